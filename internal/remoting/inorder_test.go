package remoting_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestInOrderOnewaySeenByTheNextRequest: a oneway request ServerOptions.InOrder names is served
// before the connection's next request is read, so that request sees its effect however slow
// the oneway handler is; the same request sent two-way is served at once as any other.
func TestInOrderOnewaySeenByTheNextRequest(t *testing.T) {
	var applied atomic.Int64
	_, addr := startEcho(t, remoting.ServerOptions{
		InOrder: func(code protocol.RequestCode) bool { return code == codeBlock },
	}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			time.Sleep(20 * time.Millisecond) // a worker would let the next request overtake it
			applied.Add(1)
			return protocol.NewResponse(req, protocol.Success, "")
		}))
		s.Handle(codePanic, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			return protocol.NewResponse(req, protocol.Success, strconv.FormatInt(applied.Load(), 10))
		}))
	})
	raw := remotingtest.Dial(t, addr)
	for i := 1; i <= 5; i++ {
		raw.Write(&protocol.Command{Code: int32(codeBlock), Opaque: int32(2 * i), Flag: protocol.FlagOneway})
		resp := raw.RoundTrip(&protocol.Command{Code: int32(codePanic), Opaque: int32(2*i + 1)})
		require.Equal(t, int32(2*i+1), resp.Opaque)
		require.Equal(t, strconv.Itoa(i), resp.Remark, "the oneway request before it was applied")
	}
}
