package broker_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
)

// TestReadyWithoutNamesrv: a broker without name servers is not ready before Start, ready once
// started, and not once Close has begun.
func TestReadyWithoutNamesrv(t *testing.T) {
	unstarted, err := broker.New(brokertest.Options(t.TempDir()), nil)
	require.NoError(t, err)
	require.ErrorContains(t, unstarted.Ready(), "starting", "the store is open but nothing serves yet")
	require.NoError(t, unstarted.Close())

	b := brokertest.Start(t)
	require.NoError(t, b.Ready())
	require.NoError(t, b.Close())
	require.ErrorContains(t, b.Ready(), "shutting down")
}

// TestReadyNeedsARegistration: with a name server that does not answer the broker is started but
// not ready; with one that does, it is ready when Start returns (Start registers before it
// returns).
func TestReadyNeedsARegistration(t *testing.T) {
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadAddr := dead.Addr().String()
	require.NoError(t, dead.Close())
	b := brokertest.Start(t, func(o *broker.Options) {
		o.NamesrvAddrs = []string{deadAddr}
		o.RegisterTimeout = 500 * time.Millisecond
	})
	require.ErrorContains(t, b.Ready(), "no name server has accepted the registration")

	ns := startNamesrv(t)
	b2 := brokertest.Start(t, func(o *broker.Options) {
		o.NamesrvAddrs = []string{deadAddr, ns}
		o.RegisterTimeout = 500 * time.Millisecond
	})
	require.NoError(t, b2.Ready(), "one name server of two is enough")
}
