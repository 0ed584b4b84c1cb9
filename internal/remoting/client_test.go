package remoting_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

type heldRequest struct {
	c   *remoting.Conn
	req *protocol.Command
}

// holdAll registers a codeBlock handler that answers nothing and hands
// every request to the returned channel.
func holdAll(held chan heldRequest) func(s *remoting.Server) {
	return func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
			held <- heldRequest{c, req}
			return nil
		}))
	}
}

// TestOpaqueCorrelation answers many concurrent requests in reverse order;
// every caller must get the answer to its own request.
func TestOpaqueCorrelation(t *testing.T) {
	const n = 300
	held := make(chan heldRequest, n)
	var conns atomic.Int32
	_, addr := startEcho(t, remoting.ServerOptions{OnConnect: func(*remoting.Conn) { conns.Add(1) }}, holdAll(held))
	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)

	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			want := strconv.Itoa(i)
			resp, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.PullMessage, map[string]string{"i": want}, nil))
			if err == nil && resp.ExtFields.Get("i") != want {
				err = errors.New("request " + want + " got the answer to " + resp.ExtFields.Get("i"))
			}
			errs <- err
		}()
	}
	reqs := make([]heldRequest, 0, n)
	for len(reqs) < n {
		reqs = append(reqs, <-held)
	}
	for i := n - 1; i >= 0; i-- {
		resp := protocol.NewResponse(reqs[i].req, protocol.Success, "")
		resp.ExtFields = protocol.NewExt(map[string]string{"i": reqs[i].req.ExtFields.Get("i")})
		require.NoError(t, reqs[i].c.WriteResponse(resp))
	}
	for i := 0; i < n; i++ {
		require.NoError(t, <-errs)
	}
	require.Equal(t, int32(1), conns.Load(), "one connection per address")
}

func TestClientAsyncAndOneway(t *testing.T) {
	oneway := make(chan *protocol.Command, 1)
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(codePanic, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			oneway <- req
			return protocol.NewResponse(req, protocol.Success, "dropped")
		}))
	})
	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)

	const n = 100
	results := make(chan result, n)
	for i := 0; i < n; i++ {
		req := protocol.NewRequest(protocol.HeartBeat, map[string]string{"i": strconv.Itoa(i)}, nil)
		cli.InvokeAsync(ctx, addr, req, func(resp *protocol.Command, err error) { results <- result{resp, err} })
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		seen[(<-results).must(t).ExtFields.Get("i")] = true
	}
	require.Len(t, seen, n)

	require.NoError(t, cli.InvokeOneway(ctx, addr, protocol.NewRequest(protocol.SendMessage, nil, nil)))
	req := <-oneway
	require.True(t, req.IsOneway())
	// The oneway answer is dropped; the next response is the next request's.
	resp, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, map[string]string{"i": "x"}, nil))
	require.NoError(t, err)
	require.Equal(t, "x", resp.ExtFields.Get("i"))
}

func TestInvokeTimeoutCleansPending(t *testing.T) {
	held := make(chan heldRequest, 2)
	_, addr := startEcho(t, remoting.ServerOptions{}, holdAll(held))
	cli := newClient(t, remoting.ClientOptions{})

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.PullMessage, nil, nil))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	h := <-held

	async := make(chan result, 1)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	cli.InvokeAsync(ctx2, addr, protocol.NewRequest(protocol.PullMessage, nil, nil), func(resp *protocol.Command, err error) {
		async <- result{resp, err}
	})
	require.ErrorIs(t, (<-async).err, context.DeadlineExceeded)
	h2 := <-held

	// Late answers meet no pending call and are dropped without harm.
	require.NoError(t, h.c.WriteResponse(protocol.NewResponse(h.req, protocol.Success, "late")))
	require.NoError(t, h2.c.WriteResponse(protocol.NewResponse(h2.req, protocol.Success, "late")))
	resp, err := cli.Invoke(ctxTimeout(t), addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
	require.NoError(t, err)
	require.Empty(t, resp.Remark)
}

func TestServerToClientRequests(t *testing.T) {
	conns := make(chan *remoting.Conn, 1)
	_, addr := startEcho(t, remoting.ServerOptions{OnConnect: func(c *remoting.Conn) { conns <- c }}, nil)
	clientSaw := make(chan *protocol.Command, 4)
	cli := newClient(t, remoting.ClientOptions{
		Handler: remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			clientSaw <- req
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.SetExt("group", req.ExtFields.Get("consumerGroup"))
			return resp
		}),
	})
	ctx := ctxTimeout(t)
	_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
	require.NoError(t, err)
	sc := <-conns

	// Sync.
	resp, err := sc.Invoke(ctx, protocol.NewRequest(protocol.GetConsumerRunningInfo, map[string]string{"consumerGroup": "g1"}, nil))
	require.NoError(t, err)
	require.Equal(t, "g1", resp.ExtFields.Get("group"))
	require.Equal(t, protocol.JSON, (<-clientSaw).SerializeType)

	// Async.
	got := make(chan result, 1)
	sc.InvokeAsync(ctx, protocol.NewRequest(protocol.GetConsumerStatusFromClient, map[string]string{"consumerGroup": "g2"}, nil),
		func(resp *protocol.Command, err error) { got <- result{resp, err} })
	require.Equal(t, "g2", (<-got).must(t).ExtFields.Get("group"))
	<-clientSaw

	// Oneway: the client serves it; its answer is dropped.
	require.NoError(t, sc.InvokeOneway(protocol.NewRequest(protocol.NotifyConsumerIdsChanged, map[string]string{"consumerGroup": "g3"}, nil)))
	req := <-clientSaw
	require.True(t, req.IsOneway())
	require.Equal(t, "g3", req.ExtFields.Get("consumerGroup"))
}

func TestServerRequestToClientWithoutHandler(t *testing.T) {
	conns := make(chan *remoting.Conn, 1)
	_, addr := startEcho(t, remoting.ServerOptions{OnConnect: func(c *remoting.Conn) { conns <- c }}, nil)
	cli := newClient(t, remoting.ClientOptions{})
	_, err := cli.Invoke(ctxTimeout(t), addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
	require.NoError(t, err)
	resp, err := (<-conns).Invoke(ctxTimeout(t), protocol.NewRequest(protocol.GetConsumerRunningInfo, nil, nil))
	require.NoError(t, err)
	require.Equal(t, protocol.RequestCodeNotSupported, resp.ResponseCode())
}

func TestServerInvokeOnewayOnTheWire(t *testing.T) {
	conns := make(chan *remoting.Conn, 1)
	_, addr := startEcho(t, remoting.ServerOptions{OnConnect: func(c *remoting.Conn) { conns <- c }}, nil)
	raw := remotingtest.Dial(t, addr)
	sc := <-conns
	require.NoError(t, sc.InvokeOneway(protocol.NewRequest(protocol.CheckTransactionState, map[string]string{"msgId": "m"}, []byte("half"))))
	req := raw.Read()
	require.Equal(t, protocol.CheckTransactionState, req.RequestCode())
	require.Equal(t, protocol.FlagOneway, req.Flag)
	require.Equal(t, protocol.JSON, req.SerializeType)
	require.Equal(t, "half", string(req.Body))
}

func TestClientRedialsAfterConnectionLoss(t *testing.T) {
	var conns atomic.Int32
	_, addr := startEcho(t, remoting.ServerOptions{OnConnect: func(*remoting.Conn) { conns.Add(1) }}, func(s *remoting.Server) {
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, _ *protocol.Command) *protocol.Command {
			_ = c.Close()
			return nil
		}))
	})
	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)
	_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.PullMessage, nil, nil))
	require.ErrorIs(t, err, remoting.ErrConnClosed)
	require.Eventually(t, func() bool {
		_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
		return err == nil
	}, 5*time.Second, time.Millisecond)
	require.Equal(t, int32(2), conns.Load())

	cli.CloseConn(addr)
	_, err = cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
	require.NoError(t, err)
	require.Equal(t, int32(3), conns.Load())
}

func TestClientDialFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)
	released := 0
	req := protocol.NewRequest(protocol.HeartBeat, nil, nil)
	req.Release = func() { released++ }
	_, err = cli.Invoke(ctx, addr, req)
	require.Error(t, err)
	require.Equal(t, 1, released)
	got := make(chan error, 1)
	cli.InvokeAsync(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil), func(_ *protocol.Command, err error) { got <- err })
	require.Error(t, <-got)
	require.Error(t, cli.InvokeOneway(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil)))
}

func TestCloseFailsPendingCalls(t *testing.T) {
	held := make(chan heldRequest, 1)
	_, addr := startEcho(t, remoting.ServerOptions{}, holdAll(held))
	cli := remoting.NewClient(remoting.ClientOptions{}, nil)
	ctx := ctxTimeout(t)
	errs := make(chan error, 2)
	go func() {
		_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.PullMessage, nil, nil))
		errs <- err
	}()
	<-held
	cli.InvokeAsync(ctx, addr, protocol.NewRequest(protocol.PullMessage, nil, nil), func(_ *protocol.Command, err error) { errs <- err })
	<-held
	require.NoError(t, cli.Close())
	require.ErrorIs(t, <-errs, remoting.ErrConnClosed)
	require.ErrorIs(t, <-errs, remoting.ErrConnClosed)
	_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
	require.ErrorIs(t, err, remoting.ErrClientClosed)
	require.NoError(t, cli.Close())
}

// TestServerCloseWithBusyClients closes a server while clients have calls
// in flight; every call ends and no goroutine is left (goleak in TestMain).
func TestServerCloseWithBusyClients(t *testing.T) {
	held := make(chan heldRequest, 64)
	s := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0"}, nil)
	s.Handle(codeEcho, echo)
	holdAll(held)(s)
	require.NoError(t, s.Start())
	addr := s.Addr().String()
	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = cli.Invoke(ctx, addr, protocol.NewRequest(protocol.PullMessage, nil, nil))
		}()
	}
	for i := 0; i < 32; i++ {
		<-held
	}
	require.NoError(t, s.Close())
	wg.Wait()
}
