package namesrv

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// closableConn is a registration connection that can be closed, as *remoting.Conn can.
type closableConn struct{ closed atomic.Bool }

func (c *closableConn) Closed() bool { return c.closed.Load() }

func slaveOf(name, addr string, conn any) BrokerRegistration {
	return BrokerRegistration{ClusterName: "c1", BrokerName: name, BrokerAddr: addr, BrokerID: 1,
		HAServerAddr: addr + "1", Topics: topics(1), Conn: conn}
}

// TestRegistrationCannotReplaceALiveMaster: a second REGISTER_BROKER for the same brokerName and
// brokerId from another connection, at another address, is refused while the first connection is
// open: routes and the slave's HA address keep the real master.
func TestRegistrationCannotReplaceALiveMaster(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	real, hijacker := &closableConn{}, &closableConn{}
	_, err := m.RegisterBroker(master("c1", "broker-a", "10.0.0.1:10911", real, topics(1, topicCfg("T", 4, 6))))
	require.NoError(t, err)

	_, err = m.RegisterBroker(master("c1", "broker-a", "10.6.6.6:10911", hijacker, topics(2, topicCfg("T", 4, 6))))
	var conflict *RegistrationConflictError
	require.ErrorAs(t, err, &conflict)
	require.Equal(t, "10.0.0.1:10911", conflict.HeldBy)
	require.ErrorContains(t, err, "registered at another address")

	route, ok := m.TopicRoute("T")
	require.True(t, ok)
	require.Equal(t, body.BrokerAddrs{0: "10.0.0.1:10911"}, route.BrokerDatas[0].BrokerAddrs)
	res, err := m.RegisterBroker(slaveOf("broker-a", "10.0.0.2:10911", &closableConn{}))
	require.NoError(t, err)
	require.Equal(t, RegisterResult{MasterAddr: "10.0.0.1:10911", HAServerAddr: "10.0.0.1:109111"}, res)

	// The hijacker closing changes nothing; the real master's connection closing frees the name.
	hijacker.closed.Store(true)
	require.Empty(t, m.OnConnectionClose(hijacker))
	real.closed.Store(true)
	require.Equal(t, []string{"10.0.0.1:10911"}, m.OnConnectionClose(real))
	_, err = m.RegisterBroker(master("c1", "broker-a", "10.0.0.9:10911", &closableConn{}, topics(3, topicCfg("T", 4, 6))))
	require.NoError(t, err, "a master that moved registers once the old one is gone")
}

// TestRegistrationCannotRelabelALiveAddress: another connection cannot register a live address
// under another name, id or HA address.
func TestRegistrationCannotRelabelALiveAddress(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	_, err := m.RegisterBroker(master("c1", "broker-a", "10.0.0.1:10911", &closableConn{}, topics(1, topicCfg("T", 4, 6))))
	require.NoError(t, err)
	other := master("c1", "broker-a", "10.0.0.1:10911", &closableConn{}, topics(1))
	other.HAServerAddr = "10.6.6.6:10912"
	_, err = m.RegisterBroker(other)
	require.ErrorContains(t, err, "the address is registered as")
	_, err = m.RegisterBroker(master("c1", "broker-z", "10.0.0.1:10911", &closableConn{}, topics(1)))
	require.ErrorContains(t, err, "the address is registered as")
	res, err := m.RegisterBroker(slaveOf("broker-a", "10.0.0.2:10911", &closableConn{}))
	require.NoError(t, err)
	require.Equal(t, "10.0.0.1:109111", res.HAServerAddr, "the slave still learns the real HA address")
}

// TestSameBrokerOverANewConnection: a broker that re-dialled (or restarted while its old
// connection lingered) registers over its new connection; it stays until both have closed.
func TestSameBrokerOverANewConnection(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	oldConn, newConn := &closableConn{}, &closableConn{}
	_, err := m.RegisterBroker(master("c1", "b", "a:1", oldConn, topics(1, topicCfg("T", 4, 6))))
	require.NoError(t, err)
	_, err = m.RegisterBroker(master("c1", "b", "a:1", newConn, topics(1, topicCfg("T", 4, 6))))
	require.NoError(t, err)
	newConn.closed.Store(true)
	require.Empty(t, m.OnConnectionClose(newConn), "the old connection still holds it")
	oldConn.closed.Store(true)
	require.Equal(t, []string{"a:1"}, m.OnConnectionClose(oldConn))
}

// TestExpiredRegistrationCanBeReplaced: once the live registration has expired its address can
// be taken over, even if its connection was never closed.
func TestExpiredRegistrationCanBeReplaced(t *testing.T) {
	clk := newTestClock()
	m := NewRouteInfoManager(RouteOptions{Now: clk.Now})
	_, err := m.RegisterBroker(master("c1", "b", "10.0.0.1:1", &closableConn{}, topics(1, topicCfg("T", 4, 6))))
	require.NoError(t, err)
	clk.Advance(DefaultBrokerChannelExpiredTime + time.Millisecond)
	_, err = m.RegisterBroker(master("c1", "b", "10.0.0.2:1", &closableConn{}, topics(1, topicCfg("T", 4, 6))))
	require.NoError(t, err)
	route, _ := m.TopicRoute("T")
	require.Equal(t, body.BrokerAddrs{0: "10.0.0.2:1"}, route.BrokerDatas[0].BrokerAddrs)
}

// TestUnregisterOnlyOverTheRegisteringConnection: UNREGISTER_BROKER from another connection is
// refused while the broker's own is open.
func TestUnregisterOnlyOverTheRegisteringConnection(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	own := &closableConn{}
	_, err := m.RegisterBroker(master("c1", "b", "a:1", own, topics(1, topicCfg("T", 4, 6))))
	require.NoError(t, err)
	var conflict *RegistrationConflictError
	require.ErrorAs(t, m.UnregisterBroker("c1", "b", "a:1", 0, &closableConn{}), &conflict)
	_, ok := m.TopicRoute("T")
	require.True(t, ok)
	require.NoError(t, m.UnregisterBroker("c1", "b", "a:1", 0, own))
	_, ok = m.TopicRoute("T")
	require.False(t, ok)
}
