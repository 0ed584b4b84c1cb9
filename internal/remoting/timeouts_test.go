package remoting_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// clientConn returns the client's connection to addr.
func clientConn(t *testing.T, cli *remoting.Client, addr string) *remoting.Conn {
	c, err := cli.Conn(ctxTimeout(t), addr)
	require.NoError(t, err)
	return c
}

// TestRequestTimeoutSweep: without a deadline on ctx, RequestTimeout ends
// each async call on time through the connection's one timer, which is
// re-armed for later calls; calls answered in time are not touched.
func TestRequestTimeoutSweep(t *testing.T) {
	held := make(chan heldRequest, 8)
	_, addr := startEcho(t, remoting.ServerOptions{}, holdAll(held))
	const timeout = 150 * time.Millisecond
	cli := newClient(t, remoting.ClientOptions{RequestTimeout: timeout})
	conn := clientConn(t, cli, addr)

	type outcome struct {
		resp    *protocol.Command
		err     error
		elapsed time.Duration
	}
	call := func() chan outcome {
		out := make(chan outcome, 1)
		start := time.Now()
		cli.InvokeAsync(context.Background(), addr, protocol.NewRequest(protocol.PullMessage, nil, nil),
			func(resp *protocol.Command, err error) { out <- outcome{resp, err, time.Since(start)} })
		return out
	}
	first := call()
	<-held
	time.Sleep(timeout / 3) // the second call's deadline comes later than the first's
	answered := call()
	h := <-held
	second := call()
	<-held
	_, _, armed := remoting.CallWatches(conn)
	require.True(t, armed)
	require.NoError(t, h.c.WriteResponse(protocol.NewResponse(h.req, protocol.Success, "in time")))
	require.Equal(t, "in time", (<-answered).resp.Remark)

	for _, ch := range []chan outcome{first, second} {
		o := <-ch
		require.ErrorIs(t, o.err, context.DeadlineExceeded)
		require.GreaterOrEqual(t, o.elapsed, timeout)
		require.Less(t, o.elapsed, timeout+5*time.Second)
	}
	pending, watches, armed := remoting.CallWatches(conn)
	require.Zero(t, pending)
	require.Zero(t, watches)
	require.False(t, armed, "nothing pending, the timer rests")
}

// TestSharedContextWatchedOnce: calls sharing a context share one watch;
// cancelling it fails those still pending, and a finished call leaves no
// watch behind.
func TestSharedContextWatchedOnce(t *testing.T) {
	held := make(chan heldRequest, 8)
	_, addr := startEcho(t, remoting.ServerOptions{}, holdAll(held))
	cli := newClient(t, remoting.ClientOptions{})
	conn := clientConn(t, cli, addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	results := make(chan result, 4)
	for i := 0; i < 4; i++ {
		conn.InvokeAsync(ctx, protocol.NewRequest(protocol.PullMessage, nil, nil),
			func(resp *protocol.Command, err error) { results <- result{resp, err} })
	}
	hs := []heldRequest{<-held, <-held, <-held, <-held}
	pending, watches, _ := remoting.CallWatches(conn)
	require.Equal(t, 4, pending)
	require.Equal(t, 1, watches, "one watch for one context")

	require.NoError(t, hs[0].c.WriteResponse(protocol.NewResponse(hs[0].req, protocol.Success, "")))
	require.NoError(t, (<-results).err)
	cancel()
	for i := 0; i < 3; i++ {
		require.ErrorIs(t, (<-results).err, context.Canceled)
	}
	pending, watches, _ = remoting.CallWatches(conn)
	require.Zero(t, pending)
	require.Zero(t, watches)

	// A new context, answered in time: its watch goes with its last call.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	conn.InvokeAsync(ctx2, protocol.NewRequest(protocol.PullMessage, nil, nil),
		func(resp *protocol.Command, err error) { results <- result{resp, err} })
	h := <-held
	_, watches, _ = remoting.CallWatches(conn)
	require.Equal(t, 1, watches)
	require.NoError(t, h.c.WriteResponse(protocol.NewResponse(h.req, protocol.Success, "")))
	require.NoError(t, (<-results).err)
	_, watches, _ = remoting.CallWatches(conn)
	require.Zero(t, watches)

	// Calls with an already cancelled context fail, as before they are answered.
	conn.InvokeAsync(ctx, protocol.NewRequest(protocol.PullMessage, nil, nil),
		func(resp *protocol.Command, err error) { results <- result{resp, err} })
	require.ErrorIs(t, (<-results).err, context.Canceled)
}

// TestCallbacksRunConcurrently: a callback may wait for another call's
// callback; each runs on a goroutine of its own, never on the reader.
func TestCallbacksRunConcurrently(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)
	secondRan := make(chan struct{})
	done := make(chan error, 2)
	cli.InvokeAsync(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil), func(_ *protocol.Command, err error) {
		select {
		case <-secondRan:
			done <- err
		case <-ctx.Done():
			done <- errors.New("the first callback blocked the second")
		}
	})
	cli.InvokeAsync(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil), func(_ *protocol.Command, err error) {
		close(secondRan)
		done <- err
	})
	require.NoError(t, <-done)
	require.NoError(t, <-done)
	// The reader was not blocked either: a sync call still works.
	_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, nil))
	require.NoError(t, err)
}

// TestConnCloseStopsWatches: closing a connection fails its calls and
// stops watching their contexts.
func TestConnCloseStopsWatches(t *testing.T) {
	held := make(chan heldRequest, 2)
	_, addr := startEcho(t, remoting.ServerOptions{}, holdAll(held))
	cli := newClient(t, remoting.ClientOptions{})
	conn := clientConn(t, cli, addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan error, 2)
	conn.InvokeAsync(ctx, protocol.NewRequest(protocol.PullMessage, nil, nil), func(_ *protocol.Command, err error) { got <- err })
	cli.InvokeAsync(context.Background(), addr, protocol.NewRequest(protocol.PullMessage, nil, nil), func(_ *protocol.Command, err error) { got <- err })
	<-held
	<-held
	require.NoError(t, conn.Close())
	require.ErrorIs(t, <-got, remoting.ErrConnClosed)
	require.ErrorIs(t, <-got, remoting.ErrConnClosed)
	pending, watches, armed := remoting.CallWatches(conn)
	require.Zero(t, pending)
	require.Zero(t, watches)
	require.False(t, armed)
	cancel() // nothing left to fire
}
