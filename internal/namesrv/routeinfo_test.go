package namesrv

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.UnixMilli(1700000000000)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func topics(counter int64, tcs ...body.TopicConfig) *body.TopicConfigSerializeWrapper {
	w := &body.TopicConfigSerializeWrapper{
		DataVersion:      body.DataVersion{Counter: counter, Timestamp: 1700000000000},
		TopicConfigTable: map[string]body.TopicConfig{},
	}
	for _, tc := range tcs {
		w.TopicConfigTable[tc.TopicName] = tc
	}
	return w
}

func topicCfg(name string, queues, perm int) body.TopicConfig {
	tc := body.NewTopicConfig(name)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = queues, queues, perm
	return tc
}

type connKey struct{ id int }

func master(cluster, name, addr string, conn any, w *body.TopicConfigSerializeWrapper) BrokerRegistration {
	return BrokerRegistration{ClusterName: cluster, BrokerName: name, BrokerAddr: addr, BrokerID: 0,
		HAServerAddr: addr + "1", Topics: w, Conn: conn}
}

func TestTwoBrokersOfOneClusterInARoute(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	res, err := m.RegisterBroker(master("c1", "broker-b", "10.0.0.2:10911", &connKey{2}, topics(1, topicCfg("T", 8, 6))))
	require.NoError(t, err)
	require.Equal(t, RegisterResult{}, res, "a master gets no master address")
	m.RegisterBroker(master("c1", "broker-a", "10.0.0.1:10911", &connKey{1}, topics(1, topicCfg("T", 4, 6), topicCfg("OnlyA", 2, 6))))

	route, ok := m.TopicRoute("T")
	require.True(t, ok)
	data, err := route.Encode()
	require.NoError(t, err)
	require.Equal(t, `{"brokerDatas":[`+
		`{"brokerAddrs":{"0":"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"c1"},`+
		`{"brokerAddrs":{"0":"10.0.0.2:10911"},"brokerName":"broker-b","cluster":"c1"}],`+
		`"filterServerTable":{},"queueDatas":[`+
		`{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},`+
		`{"brokerName":"broker-b","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}]}`, string(data))

	route, ok = m.TopicRoute("OnlyA")
	require.True(t, ok)
	require.Len(t, route.BrokerDatas, 1)
	_, ok = m.TopicRoute("Unknown")
	require.False(t, ok)

	ci := m.ClusterInfo()
	require.Equal(t, map[string][]string{"c1": {"broker-a", "broker-b"}}, ci.ClusterAddrTable)
	require.Equal(t, body.BrokerAddrs{0: "10.0.0.1:10911"}, ci.BrokerAddrTable["broker-a"].BrokerAddrs)
	require.Equal(t, []string{"OnlyA", "T"}, m.Topics())
	require.Equal(t, []string{"OnlyA", "T"}, m.TopicsByCluster("c1"))
	require.Empty(t, m.TopicsByCluster("other"))
	require.Equal(t, 2, m.LiveBrokers())
}

func TestSlaveRegistrationReturnsMaster(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	slave := BrokerRegistration{ClusterName: "c1", BrokerName: "broker-a", BrokerAddr: "10.0.0.9:10911", BrokerID: 1,
		HAServerAddr: "10.0.0.9:10912", Topics: topics(1, topicCfg("SlaveOnly", 4, 6)), Conn: &connKey{9}}
	res, err := m.RegisterBroker(slave)
	require.NoError(t, err)
	require.Equal(t, RegisterResult{}, res, "no master yet")
	_, ok := m.TopicRoute("SlaveOnly")
	require.False(t, ok, "a slave's topics do not make routes")

	m.RegisterBroker(master("c1", "broker-a", "10.0.0.1:10911", &connKey{1}, topics(1, topicCfg("T", 4, 6))))
	res, err = m.RegisterBroker(slave)
	require.NoError(t, err)
	require.Equal(t, RegisterResult{MasterAddr: "10.0.0.1:10911", HAServerAddr: "10.0.0.1:109111"}, res)

	route, ok := m.TopicRoute("T")
	require.True(t, ok)
	require.Equal(t, body.BrokerAddrs{0: "10.0.0.1:10911", 1: "10.0.0.9:10911"}, route.BrokerDatas[0].BrokerAddrs)
}

func TestTopicsApplyOnlyWhenDataVersionChanges(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	conn := &connKey{1}
	m.RegisterBroker(master("c1", "b", "a:1", conn, topics(1, topicCfg("T", 4, 6))))
	m.RegisterBroker(master("c1", "b", "a:1", conn, topics(1, topicCfg("T", 8, 6), topicCfg("New", 1, 6))))
	route, _ := m.TopicRoute("T")
	require.Equal(t, 4, route.QueueDatas[0].WriteQueueNums, "same DataVersion: ignored")
	_, ok := m.TopicRoute("New")
	require.False(t, ok)

	m.RegisterBroker(master("c1", "b", "a:1", conn, topics(2, topicCfg("T", 8, 6), topicCfg("New", 1, 6))))
	route, _ = m.TopicRoute("T")
	require.Equal(t, 8, route.QueueDatas[0].WriteQueueNums)
	_, ok = m.TopicRoute("New")
	require.True(t, ok)

	// 4.9 keeps topics a newer registration no longer lists.
	m.RegisterBroker(master("c1", "b", "a:1", conn, topics(3, topicCfg("T", 8, 6))))
	_, ok = m.TopicRoute("New")
	require.True(t, ok)

	m2 := NewRouteInfoManager(RouteOptions{DeleteTopicWithBrokerRegistration: true})
	m2.RegisterBroker(master("c1", "b", "a:1", conn, topics(1, topicCfg("T", 4, 6), topicCfg("Gone", 1, 6))))
	m2.RegisterBroker(master("c1", "b2", "a:2", conn, topics(1, topicCfg("Gone", 1, 6))))
	m2.RegisterBroker(master("c1", "b", "a:1", conn, topics(2, topicCfg("T", 4, 6))))
	route, ok = m2.TopicRoute("Gone")
	require.True(t, ok, "still on b2")
	require.Equal(t, "b2", route.QueueDatas[0].BrokerName)
	require.Len(t, route.QueueDatas, 1)
}

func TestExpiryWithInjectedClock(t *testing.T) {
	clk := newTestClock()
	m := NewRouteInfoManager(RouteOptions{Now: clk.Now})
	connA, connB := &connKey{1}, &connKey{2}
	m.RegisterBroker(master("c1", "broker-a", "a:1", connA, topics(1, topicCfg("T", 4, 6))))
	fast := master("c1", "broker-b", "b:1", connB, topics(1, topicCfg("T", 4, 6)))
	fast.Timeout = 30 * time.Second
	m.RegisterBroker(fast)

	clk.Advance(30 * time.Second)
	require.Empty(t, m.ScanNotActiveBrokers(), "exactly at the timeout is still alive")
	clk.Advance(time.Millisecond)
	expired := m.ScanNotActiveBrokers()
	require.Equal(t, []ExpiredBroker{{BrokerAddr: "b:1", Conns: []any{connB}, LastUpdate: time.UnixMilli(1700000000000)}}, expired,
		"heartbeatTimeoutMillis overrides the default")

	clk.Advance(60 * time.Second)
	// QUERY_DATA_VERSION with an unchanged version keeps the broker alive.
	changed, cur := m.QueryDataVersion("a:1", body.DataVersion{Counter: 1, Timestamp: 1700000000000})
	require.False(t, changed)
	require.Equal(t, &body.DataVersion{Counter: 1, Timestamp: 1700000000000}, cur)
	changed, _ = m.QueryDataVersion("a:1", body.DataVersion{Counter: 2, Timestamp: 1700000000000})
	require.True(t, changed)
	changed, cur = m.QueryDataVersion("nobody:1", body.DataVersion{})
	require.True(t, changed)
	require.Nil(t, cur)

	clk.Advance(119 * time.Second)
	require.Empty(t, m.ScanNotActiveBrokers())
	clk.Advance(2 * time.Second)
	expired = m.ScanNotActiveBrokers()
	require.Len(t, expired, 1)
	require.Equal(t, "a:1", expired[0].BrokerAddr)
	require.Equal(t, []any{connA}, expired[0].Conns)

	_, ok := m.TopicRoute("T")
	require.False(t, ok)
	require.Empty(t, m.ClusterInfo().ClusterAddrTable)
	require.Empty(t, m.ClusterInfo().BrokerAddrTable)
	require.Zero(t, m.LiveBrokers())
	require.Zero(t, m.TopicCount())
}

func TestConnectionCloseRemovesBroker(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	connM, connS, connOther := &connKey{1}, &connKey{2}, &connKey{3}
	m.RegisterBroker(master("c1", "broker-a", "a:1", connM, topics(1, topicCfg("T", 4, 6))))
	m.RegisterBroker(BrokerRegistration{ClusterName: "c1", BrokerName: "broker-a", BrokerAddr: "a:2", BrokerID: 1,
		Topics: topics(1), Conn: connS})

	require.Empty(t, m.OnConnectionClose(connOther), "a client connection closing changes nothing")
	require.Empty(t, m.OnConnectionClose(nil))

	require.Equal(t, []string{"a:1"}, m.OnConnectionClose(connM))
	route, ok := m.TopicRoute("T")
	require.True(t, ok, "the group survives while its slave is registered")
	require.Equal(t, body.BrokerAddrs{1: "a:2"}, route.BrokerDatas[0].BrokerAddrs)

	require.Equal(t, []string{"a:2"}, m.OnConnectionClose(connS))
	_, ok = m.TopicRoute("T")
	require.False(t, ok)
	require.Empty(t, m.ClusterInfo().ClusterAddrTable)
}

func TestReRegistrationOverNewConnectionSurvivesOldClose(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	oldConn, newConn := &connKey{1}, &connKey{2}
	m.RegisterBroker(master("c1", "b", "a:1", oldConn, topics(1, topicCfg("T", 4, 6))))
	m.RegisterBroker(master("c1", "b", "a:1", newConn, topics(1, topicCfg("T", 4, 6))))
	require.Empty(t, m.OnConnectionClose(oldConn))
	_, ok := m.TopicRoute("T")
	require.True(t, ok)
}

func TestUnregisterBroker(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	m.RegisterBroker(master("c1", "broker-a", "a:1", &connKey{1}, topics(1, topicCfg("T", 4, 6))))
	m.RegisterBroker(master("c1", "broker-b", "b:1", &connKey{2}, topics(1, topicCfg("T", 4, 6))))
	m.RegisterBroker(BrokerRegistration{ClusterName: "c1", BrokerName: "broker-a", BrokerAddr: "a:2", BrokerID: 1, Conn: &connKey{3}})

	require.NoError(t, m.UnregisterBroker("c1", "broker-a", "a:1", 0, nil))
	route, _ := m.TopicRoute("T")
	require.Len(t, route.QueueDatas, 2, "broker-a still has its slave")
	require.Equal(t, body.BrokerAddrs{1: "a:2"}, route.BrokerDatas[0].BrokerAddrs)

	require.NoError(t, m.UnregisterBroker("c1", "broker-a", "a:2", 1, nil))
	route, _ = m.TopicRoute("T")
	require.Len(t, route.QueueDatas, 1)
	require.Equal(t, "broker-b", route.QueueDatas[0].BrokerName)
	require.Equal(t, map[string][]string{"c1": {"broker-b"}}, m.ClusterInfo().ClusterAddrTable)

	require.NoError(t, m.UnregisterBroker("c1", "broker-b", "b:1", 0, nil))
	require.Empty(t, m.ClusterInfo().ClusterAddrTable)
	require.Empty(t, m.Topics())
	require.NoError(t, m.UnregisterBroker("c1", "nobody", "x:1", 0, nil)) // unknown: no-op
}

func TestRoleSwitchKeepsOneIDPerAddress(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	conn := &connKey{1}
	m.RegisterBroker(BrokerRegistration{ClusterName: "c1", BrokerName: "b", BrokerAddr: "a:2", BrokerID: 1, Conn: conn})
	m.RegisterBroker(master("c1", "b", "a:2", conn, topics(1, topicCfg("T", 4, 6))))
	route, ok := m.TopicRoute("T")
	require.True(t, ok)
	require.Equal(t, body.BrokerAddrs{0: "a:2"}, route.BrokerDatas[0].BrokerAddrs)
}

func TestDeleteTopic(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	m.RegisterBroker(master("c1", "b1", "a:1", &connKey{1}, topics(1, topicCfg("T", 4, 6), topicCfg("U", 4, 6))))
	m.RegisterBroker(master("c2", "b2", "a:2", &connKey{2}, topics(1, topicCfg("T", 4, 6))))

	m.DeleteTopic("T", "c1")
	route, ok := m.TopicRoute("T")
	require.True(t, ok)
	require.Equal(t, "b2", route.QueueDatas[0].BrokerName)
	require.Len(t, route.QueueDatas, 1)
	m.DeleteTopic("T", "c2")
	_, ok = m.TopicRoute("T")
	require.False(t, ok)

	m.DeleteTopic("U", "")
	require.Empty(t, m.Topics())
	m.DeleteTopic("Nothing", "c1")
}

func TestFilterServersInRoute(t *testing.T) {
	m := NewRouteInfoManager(RouteOptions{})
	r := master("c1", "b", "a:1", &connKey{1}, topics(1, topicCfg("T", 4, 6)))
	r.FilterServers = []string{"f:1"}
	m.RegisterBroker(r)
	route, _ := m.TopicRoute("T")
	require.Equal(t, map[string][]string{"a:1": {"f:1"}}, route.FilterServerTable)
}

func TestRouteTableConcurrentUse(t *testing.T) {
	clk := newTestClock()
	m := NewRouteInfoManager(RouteOptions{Now: clk.Now})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := &connKey{i}
			for j := range 50 {
				m.RegisterBroker(master("c1", "b", "a:1", conn, topics(int64(j), topicCfg("T", 4, 6))))
				m.TopicRoute("T")
				m.ClusterInfo()
				m.ScanNotActiveBrokers()
				m.OnConnectionClose(&connKey{100 + i})
			}
		}()
	}
	wg.Wait()
	_, ok := m.TopicRoute("T")
	require.True(t, ok)
}
