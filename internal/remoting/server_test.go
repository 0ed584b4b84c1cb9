package remoting_test

import (
	"context"
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

const (
	codeEcho  = protocol.HeartBeat
	codeBlock = protocol.PullMessage
	codePanic = protocol.SendMessage
)

// echo answers SUCCESS with the request's ext fields and body.
var echo = remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
	resp := protocol.NewResponse(req, protocol.Success, "")
	resp.ExtFields = req.ExtFields
	resp.Body = req.Body
	return resp
})

func startEcho(t *testing.T, opts remoting.ServerOptions, more func(s *remoting.Server)) (*remoting.Server, string) {
	s := remotingtest.StartServer(t, opts, func(s *remoting.Server) {
		s.Handle(codeEcho, echo)
		if more != nil {
			more(s)
		}
	})
	return s, s.Addr().String()
}

func newClient(t *testing.T, opts remoting.ClientOptions) *remoting.Client {
	c := remoting.NewClient(opts, zaptest.NewLogger(t))
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestEachEncodingAnsweredInItsOwn(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	raw := remotingtest.Dial(t, addr)
	for i, st := range []protocol.SerializeType{protocol.JSON, protocol.RocketMQ, protocol.JSON} {
		req := protocol.NewRequest(protocol.HeartBeat, map[string]string{"k": "v\x01"}, []byte("body"))
		req.Opaque, req.SerializeType = int32(100+i), st
		resp := raw.RoundTrip(req)
		require.Equal(t, st, resp.SerializeType)
		require.True(t, resp.IsResponse())
		require.Equal(t, int32(100+i), resp.Opaque)
		require.Equal(t, protocol.Success, resp.ResponseCode())
		require.Equal(t, "v\x01", resp.ExtFields.Get("k"))
		require.Equal(t, "body", string(resp.Body))
		require.Equal(t, int16(409), resp.Version)
		require.Equal(t, "JAVA", resp.Language)
	}
}

func TestUnknownCodeNotSupported(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: 9999, Opaque: 5})
	require.Equal(t, protocol.RequestCodeNotSupported, resp.ResponseCode())
	require.Equal(t, " request type 9999 not supported", resp.Remark)
	require.Equal(t, int32(5), resp.Opaque)
}

// RocketMQ 5's codes are past 16 bits (POP_MESSAGE is 200050) and travel in JSON headers: an
// unserved one is answered like any other unknown code, not taken for a broken frame.
func TestWideCodeNotSupportedKeepsConnection(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: 200050, Opaque: 6})
	require.Equal(t, protocol.RequestCodeNotSupported, resp.ResponseCode())
	require.Equal(t, int32(6), resp.Opaque)
	require.Contains(t, resp.Remark, "200050")
	require.Equal(t, protocol.Success, raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 7}).ResponseCode())
}

func TestDefaultHandler(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) { s.HandleDefault(echo) })
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: 9999, Opaque: 5})
	require.Equal(t, protocol.Success, resp.ResponseCode())
}

func TestHandlerPanicAnswersSystemError(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(codePanic, remoting.HandlerFunc(func(context.Context, *remoting.Conn, *protocol.Command) *protocol.Command {
			panic("boom: nil topic")
		}))
	})
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codePanic), Opaque: 1})
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Equal(t, "boom: nil topic", resp.Remark)
	// The connection and the server live on.
	resp = raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 2})
	require.Equal(t, protocol.Success, resp.ResponseCode())
}

func TestBrokenFrameClosesOnlyThatConnection(t *testing.T) {
	frame := func(length uint32, rest ...byte) []byte {
		return append(binary.BigEndian.AppendUint32(nil, length), rest...)
	}
	broken := map[string][]byte{
		"length below 4":        frame(2, 0, 0),
		"header past frame":     frame(6, 0, 0, 0, 9, '{', '}'),
		"undecodable json":      frame(7, 0, 0, 0, 3, '{', 'x', '}'),
		"unknown serialize":     frame(6, 5, 0, 0, 2, '{', '}'),
		"bad rocketmq header":   frame(8, 1, 0, 0, 4, 0, 0, 0, 0),
		"larger than the limit": frame(4096, 0, 0, 0, 2, '{', '}'),
	}
	_, addr := startEcho(t, remoting.ServerOptions{MaxFrameSize: 1024}, nil)
	good := remotingtest.Dial(t, addr)
	for name, b := range broken {
		t.Run(name, func(t *testing.T) {
			bad := remotingtest.Dial(t, addr)
			// A good request first: the connection works until the broken frame.
			require.Equal(t, protocol.Success, bad.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 1}).ResponseCode())
			bad.WriteRaw(b)
			bad.ExpectClosed()
			resp := good.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 7})
			require.Equal(t, protocol.Success, resp.ResponseCode())
			require.Equal(t, int32(7), resp.Opaque)
		})
	}
}

func TestFrameSizeLimit(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{MaxFrameSize: 4096}, nil)
	raw := remotingtest.Dial(t, addr)
	req := &protocol.Command{Code: int32(codeEcho), Opaque: 1}
	hdr, err := protocol.EncodeCommand(req)
	require.NoError(t, err)
	// Exactly at the limit (length field included) is served.
	req.Body = make([]byte, 4096-len(hdr))
	require.Equal(t, protocol.Success, raw.RoundTrip(req).ResponseCode())
	// One byte more closes the connection.
	req.Body = make([]byte, 4096-len(hdr)+1)
	raw.Write(req)
	raw.ExpectClosed()
}

func TestOnewayRequestIsNotAnswered(t *testing.T) {
	seen := make(chan string, 1)
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(codePanic, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			seen <- req.ExtFields.Get("x")
			return protocol.NewResponse(req, protocol.Success, "")
		}))
	})
	raw := remotingtest.Dial(t, addr)
	raw.Write(&protocol.Command{Code: int32(codePanic), Opaque: 1, Flag: protocol.FlagOneway, ExtFields: protocol.NewExt(map[string]string{"x": "y"})})
	require.Equal(t, "y", <-seen)
	// The next frame on the wire answers the next request, not the oneway one.
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 2})
	require.Equal(t, int32(2), resp.Opaque)
}

func TestSlowHandlerDoesNotBlockTheConnection(t *testing.T) {
	unblock := make(chan struct{})
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			<-unblock
			return protocol.NewResponse(req, protocol.Success, "slow")
		}))
	})
	raw := remotingtest.Dial(t, addr)
	raw.Write(&protocol.Command{Code: int32(codeBlock), Opaque: 1})
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 2})
	require.Equal(t, int32(2), resp.Opaque)
	close(unblock)
	resp = raw.Read()
	require.Equal(t, int32(1), resp.Opaque)
	require.Equal(t, "slow", resp.Remark)
}

func TestOverloadAnswersSystemBusy(t *testing.T) {
	unblock := make(chan struct{})
	entered := make(chan struct{})
	_, addr := startEcho(t, remoting.ServerOptions{MaxConcurrentRequests: 1}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			close(entered)
			<-unblock
			return protocol.NewResponse(req, protocol.Success, "")
		}))
	})
	raw := remotingtest.Dial(t, addr)
	raw.Write(&protocol.Command{Code: int32(codeBlock), Opaque: 1})
	<-entered
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 2})
	require.Equal(t, int32(2), resp.Opaque)
	require.Equal(t, protocol.SystemBusy, resp.ResponseCode())
	require.True(t, strings.HasPrefix(resp.Remark, "[OVERLOAD]system busy"), resp.Remark)
	close(unblock)
	require.Equal(t, int32(1), raw.Read().Opaque)
	// Capacity is back.
	require.Equal(t, protocol.Success, raw.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 3}).ResponseCode())
}

type result struct {
	resp *protocol.Command
	err  error
}

func (r result) must(t *testing.T) *protocol.Command {
	t.Helper()
	require.NoError(t, r.err)
	return r.resp
}

type observed struct {
	code protocol.RequestCode
	resp protocol.ResponseCode
}

func TestDeferredResponseAndObserve(t *testing.T) {
	var mu sync.Mutex
	var obs []observed
	held := make(chan struct {
		c   *remoting.Conn
		req *protocol.Command
	}, 1)
	_, addr := startEcho(t, remoting.ServerOptions{
		Observe: func(code protocol.RequestCode, resp protocol.ResponseCode, d time.Duration) {
			mu.Lock()
			obs = append(obs, observed{code, resp})
			mu.Unlock()
		},
	}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
			held <- struct {
				c   *remoting.Conn
				req *protocol.Command
			}{c, req}
			return nil
		}))
	})
	cli := newClient(t, remoting.ClientOptions{})
	got := make(chan result, 1)
	cli.InvokeAsync(ctxTimeout(t), addr, protocol.NewRequest(protocol.PullMessage, nil, nil), func(resp *protocol.Command, err error) {
		got <- result{resp, err}
	})
	h := <-held
	resp := protocol.NewResponse(h.req, protocol.PullNotFound, "")
	resp.SerializeType = protocol.RocketMQ // overridden by the request's
	require.NoError(t, h.c.WriteResponse(resp))
	r := (<-got).must(t)
	require.Equal(t, protocol.PullNotFound, r.ResponseCode())
	require.Equal(t, protocol.JSON, r.SerializeType)
	// A second answer to the same request is refused.
	require.ErrorIs(t, h.c.WriteResponse(protocol.NewResponse(h.req, protocol.Success, "")), remoting.ErrAnswered)

	_, err := cli.Invoke(ctxTimeout(t), addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(obs) == 2
	}, 5*time.Second, time.Millisecond)
	require.Equal(t, []observed{{codeBlock, protocol.PullNotFound}, {codeEcho, protocol.Success}}, obs)
}

func TestBodyPartsWrittenAndReleased(t *testing.T) {
	released := make(chan struct{}, 2)
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = []byte("head|")
			resp.BodyParts = [][]byte{[]byte("one|"), nil, []byte(strings.Repeat("x", 100000))}
			resp.Release = func() { released <- struct{}{} }
			return resp
		}))
	})
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeBlock), Opaque: 1})
	require.Equal(t, "head|one|"+strings.Repeat("x", 100000), string(resp.Body))
	<-released
	require.Empty(t, released, "released twice")
}

func TestWriteResponseAfterCloseReleases(t *testing.T) {
	held := make(chan *protocol.Command, 1)
	var conn *remoting.Conn
	closed := make(chan struct{})
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
			conn = c
			c.OnClose(func() { close(closed) })
			held <- req
			return nil
		}))
	})
	raw := remotingtest.Dial(t, addr)
	raw.Write(&protocol.Command{Code: int32(codeBlock), Opaque: 1})
	req := <-held
	raw.Close()
	<-closed
	released := false
	resp := protocol.NewResponse(req, protocol.Success, "")
	resp.Release = func() { released = true }
	require.ErrorIs(t, conn.WriteResponse(resp), remoting.ErrConnClosed)
	require.True(t, released)
}

func TestConnectionHooksAndValues(t *testing.T) {
	connected := make(chan *remoting.Conn, 1)
	disconnected := make(chan *remoting.Conn, 1)
	onClose := make(chan any, 1)
	_, addr := startEcho(t, remoting.ServerOptions{
		OnConnect:    func(c *remoting.Conn) { connected <- c },
		OnDisconnect: func(c *remoting.Conn) { disconnected <- c },
	}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
			c.SetValue("clientID", req.ExtFields.Get("clientID"))
			c.OnClose(func() { onClose <- c.Value("clientID") })
			return protocol.NewResponse(req, protocol.Success, "")
		}))
	})
	raw := remotingtest.Dial(t, addr)
	c := <-connected
	require.NotZero(t, c.ID())
	require.Equal(t, raw.LocalAddrString(), c.RemoteAddr())
	raw.RoundTrip(&protocol.Command{Code: int32(codeBlock), Opaque: 1, ExtFields: protocol.NewExt(map[string]string{"clientID": "10.0.0.1@42"})})
	require.Equal(t, "10.0.0.1@42", c.Value("clientID"))
	raw.Close()
	require.Equal(t, "10.0.0.1@42", <-onClose)
	require.Same(t, c, <-disconnected)
	require.True(t, c.Closed())
	require.Error(t, c.Context().Err())
	// OnClose after the end runs at once.
	ran := false
	c.OnClose(func() { ran = true })
	require.True(t, ran)
}

func TestIdleTimeoutClosesConnection(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{Limits: remoting.Limits{IdleTimeout: 50 * time.Millisecond}}, nil)
	raw := remotingtest.Dial(t, addr)
	raw.ExpectClosed()
}

func TestCloseWaitsAndRejectsLateStart(t *testing.T) {
	s := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0"}, nil)
	require.Nil(t, s.Addr())
	entered := make(chan struct{})
	s.Handle(codeBlock, remoting.HandlerFunc(func(ctx context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
		close(entered)
		<-ctx.Done() // the connection's context ends on Close
		return protocol.NewResponse(req, protocol.Success, "")
	}))
	require.NoError(t, s.Start())
	require.Error(t, s.Start())
	require.Panics(t, func() { s.Handle(1, echo) })
	raw := remotingtest.Dial(t, s.Addr().String())
	raw.Write(&protocol.Command{Code: int32(codeBlock), Opaque: 1})
	<-entered
	require.NoError(t, s.Close())
	raw.ExpectClosed()
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.Start(), remoting.ErrServerClosed)
}

// TestNothingTouchesAResponseAfterRelease: Release is the last the
// transport does with a response, so that its owner may reuse it.
func TestNothingTouchesAResponseAfterRelease(t *testing.T) {
	observed := make(chan protocol.ResponseCode, 2)
	_, addr := startEcho(t, remoting.ServerOptions{
		Observe: func(_ protocol.RequestCode, resp protocol.ResponseCode, _ time.Duration) { observed <- resp },
	}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			resp := protocol.NewResponse(req, protocol.PullNotFound, "")
			if req.ExtFields.Get("big") == "1" {
				resp.Remark = strings.Repeat("x", 17<<20) // too big a header to encode
			}
			resp.Release = func() { *resp = protocol.Command{Code: -1, Opaque: -1} }
			return resp
		}))
	})
	raw := remotingtest.Dial(t, addr)
	resp := raw.RoundTrip(&protocol.Command{Code: int32(codeBlock), Opaque: 5})
	require.Equal(t, protocol.PullNotFound, resp.ResponseCode())
	require.Equal(t, protocol.PullNotFound, <-observed)

	resp = raw.RoundTrip(&protocol.Command{Code: int32(codeBlock), Opaque: 6, ExtFields: protocol.NewExt(map[string]string{"big": "1"})})
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Equal(t, int32(6), resp.Opaque)
	require.Equal(t, protocol.SystemError, <-observed)
}
