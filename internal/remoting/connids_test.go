package remoting_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestSharedConnIDs: two servers with one ConnIDs counter (the broker's client and VIP ports)
// number their connections apart; without one, each counts from 1.
func TestSharedConnIDs(t *testing.T) {
	idOf := remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
		resp := protocol.NewResponse(req, protocol.Success, "")
		resp.Remark = strconv.FormatUint(c.ID(), 10)
		return resp
	})
	ask := func(s *remoting.Server) string {
		raw := remotingtest.Dial(t, s.Addr().String())
		return raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 1}).Remark
	}
	handle := func(s *remoting.Server) { s.Handle(codeEcho, idOf) }
	ids := new(atomic.Uint64)
	a := remotingtest.StartServer(t, remoting.ServerOptions{ConnIDs: ids}, handle)
	b := remotingtest.StartServer(t, remoting.ServerOptions{ConnIDs: ids}, handle)
	require.Equal(t, []string{"1", "2", "3"}, []string{ask(a), ask(b), ask(a)})

	c := remotingtest.StartServer(t, remoting.ServerOptions{}, handle)
	require.Equal(t, "1", ask(c), "a server of its own counts from 1")
}
