package remoting_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// denyX answers SYSTEM_ERROR to requests whose ext field "deny" is "yes", naming the peer's
// address in the remark, and lets every other request through.
func denyX(seen *atomic.Int32) remoting.Interceptor {
	return func(c *remoting.Conn, req *protocol.Command) *protocol.Command {
		seen.Add(1)
		if req.ExtFields.Get("deny") == "yes" {
			return protocol.NewResponse(req, protocol.SystemError, "denied for "+c.RemoteAddr())
		}
		return nil
	}
}

func TestInterceptAnswersInsteadOfTheHandler(t *testing.T) {
	var seen, served atomic.Int32
	counting := remoting.HandlerFunc(func(ctx context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
		served.Add(1)
		return echo.Serve(ctx, c, req)
	})
	_, addr := startEcho(t, remoting.ServerOptions{Intercept: denyX(&seen)}, func(s *remoting.Server) {
		s.Handle(codePanic, counting)
	})
	raw := remotingtest.Dial(t, addr)

	resp := raw.RoundTrip(&protocol.Command{Code: int32(codePanic), Opaque: 1, ExtFields: protocol.NewExt(map[string]string{"deny": "yes"})})
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Equal(t, "denied for "+raw.LocalAddrString(), resp.Remark)
	require.Equal(t, int32(1), resp.Opaque)
	require.Zero(t, served.Load(), "the handler must not run for an intercepted request")

	resp = raw.RoundTrip(&protocol.Command{Code: int32(codePanic), Opaque: 2, ExtFields: protocol.NewExt(map[string]string{"deny": "no"}),
		Body: []byte("through")})
	require.Equal(t, protocol.Success, resp.ResponseCode())
	require.Equal(t, "through", string(resp.Body))
	require.Equal(t, int32(1), served.Load())

	// Every registered handler is guarded, echo included.
	resp = raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 3, ExtFields: protocol.NewExt(map[string]string{"deny": "yes"})})
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Equal(t, int32(3), seen.Load())
}

func TestInterceptGuardsTheDefaultHandlerButNotUnknownCodes(t *testing.T) {
	var seen atomic.Int32
	deny := protocol.NewExt(map[string]string{"deny": "yes"})
	_, addr := startEcho(t, remoting.ServerOptions{Intercept: denyX(&seen)}, func(s *remoting.Server) {
		s.HandleDefault(echo)
	})
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: 9999, Opaque: 1, ExtFields: deny})
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Equal(t, int32(1), seen.Load())

	_, addr = startEcho(t, remoting.ServerOptions{Intercept: denyX(&seen)}, nil)
	raw = remotingtest.Dial(t, addr)
	resp = raw.RoundTrip(&protocol.Command{Code: 9999, Opaque: 2, ExtFields: deny})
	require.Equal(t, protocol.RequestCodeNotSupported, resp.ResponseCode(), "no handler: nothing to guard")
	require.Equal(t, int32(1), seen.Load())
}

func TestInterceptOnewayAnswerIsDropped(t *testing.T) {
	var seen atomic.Int32
	_, addr := startEcho(t, remoting.ServerOptions{Intercept: denyX(&seen)}, nil)
	raw := remotingtest.Dial(t, addr)
	raw.Write(&protocol.Command{Code: int32(codeEcho), Opaque: 1, Flag: protocol.FlagOneway, ExtFields: protocol.NewExt(map[string]string{"deny": "yes"})})
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 2})
	require.Equal(t, int32(2), resp.Opaque, "the oneway request's denial must not be written")
	require.Eventually(t, func() bool { return seen.Load() == 2 }, 10*time.Second, time.Millisecond)
	// Had the denial been queued, it would come before this answer.
	require.Equal(t, int32(3), raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 3}).Opaque)
}

func TestInterceptPanicIsASystemError(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{Intercept: func(*remoting.Conn, *protocol.Command) *protocol.Command {
		panic("interceptor broke")
	}}, nil)
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 1})
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Equal(t, "interceptor broke", resp.Remark)
}
