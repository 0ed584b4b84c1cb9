package remoting_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// pattern returns n bytes that differ from the poison the pool writes.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i%251)
	}
	return b
}

// TestKeptRequestIsNeverRecycled: a handler that returns nil keeps its
// request; however many frames are read and recycled meanwhile, its body
// stays intact until it answers, and after.
func TestKeptRequestIsNeverRecycled(t *testing.T) {
	held := make(chan heldRequest, 1)
	var recycled atomic.Int32
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		remoting.WatchFrameRecycling(s, func([]byte) { recycled.Add(1) })
		holdAll(held)(s)
	})
	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)
	body := pattern(1000, 1)
	got := make(chan result, 1)
	cli.InvokeAsync(ctx, addr, protocol.NewRequest(protocol.PullMessage, nil, append([]byte(nil), body...)),
		func(resp *protocol.Command, err error) { got <- result{resp, err} })
	h := <-held

	// Churn the pool with frames of the same size class.
	for i := 0; i < 200; i++ {
		resp, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, pattern(1000, byte(i))))
		require.NoError(t, err)
		require.Equal(t, pattern(1000, byte(i)), resp.Body)
	}
	// The last frames are recycled just after their responses are written.
	require.Eventually(t, func() bool { return recycled.Load() >= 200 }, 5*time.Second, time.Millisecond,
		"the echoed requests' frames are recycled")
	require.Equal(t, body, h.req.Body, "the held request's body was overwritten")

	resp := protocol.NewResponse(h.req, protocol.Success, "")
	resp.Body = h.req.Body
	require.NoError(t, h.c.WriteResponse(resp))
	require.Equal(t, body, (<-got).must(t).Body)
	require.Equal(t, body, h.req.Body)
}

// TestEchoedBodyWrittenBeforeRecycling: a response may carry the request's
// body; the frame is recycled (and poisoned) only after the write.
func TestEchoedBodyWrittenBeforeRecycling(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		remoting.WatchFrameRecycling(s, nil)
	})
	cli := newClient(t, remoting.ClientOptions{})
	ctx := ctxTimeout(t)
	const n = 400
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			size := 1 + rand.IntN(5000)
			want := pattern(size, byte(i))
			resp, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat,
				map[string]string{"i": strconv.Itoa(i)}, append([]byte(nil), want...)))
			if err == nil && !bytes.Equal(resp.Body, want) {
				err = &bodyMismatch{i}
			}
			errs <- err
		}()
	}
	for i := 0; i < n; i++ {
		require.NoError(t, <-errs)
	}
}

type bodyMismatch struct{ i int }

func (e *bodyMismatch) Error() string {
	return "request " + strconv.Itoa(e.i) + ": echoed body differs"
}

// TestRequestFramesAreRecycled: a bodiless request's frame is recycled as
// soon as it is decoded, one with a body once its response is written, and
// a oneway one once its handler returned.
func TestRequestFramesAreRecycled(t *testing.T) {
	recycled := make(chan int, 16)
	proceed := make(chan struct{})
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		remoting.WatchFrameRecycling(s, func(b []byte) { recycled <- len(b) })
		s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			<-proceed
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = req.Body
			return resp
		}))
	})
	raw := remotingtest.Dial(t, addr)
	frameLen := func(cmd *protocol.Command) int {
		wire, err := protocol.EncodeCommand(cmd)
		require.NoError(t, err)
		return len(wire) - 4
	}

	// No body: recycled before the handler even runs.
	req := &protocol.Command{Code: int32(codeBlock), Opaque: 1}
	raw.Write(req)
	require.Equal(t, frameLen(req), <-recycled)
	proceed <- struct{}{}
	require.Equal(t, int32(1), raw.Read().Opaque)

	// A body: not while the handler runs, only after the response.
	req = &protocol.Command{Code: int32(codeBlock), Opaque: 2, Body: []byte("payload")}
	raw.Write(req)
	select {
	case n := <-recycled:
		t.Fatalf("a frame of %d bytes recycled while its handler runs", n)
	case <-time.After(50 * time.Millisecond):
	}
	proceed <- struct{}{}
	resp := raw.Read()
	require.Equal(t, "payload", string(resp.Body))
	require.Equal(t, frameLen(req), <-recycled)

	// Oneway with a body: once the handler returned.
	req = &protocol.Command{Code: int32(codeBlock), Opaque: 3, Flag: protocol.FlagOneway, Body: []byte("x")}
	raw.Write(req)
	proceed <- struct{}{}
	require.Equal(t, frameLen(req), <-recycled)
}

// TestResponsesHandedToCallersAreNotRecycled: a caller keeps the response
// it got, body included, while the client reads many more.
func TestResponsesHandedToCallersAreNotRecycled(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	cli := remoting.NewClient(remoting.ClientOptions{}, nil)
	t.Cleanup(func() { require.NoError(t, cli.Close()) })
	remoting.WatchClientFrameRecycling(cli, nil)
	ctx := ctxTimeout(t)
	first, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, pattern(700, 9)))
	require.NoError(t, err)
	for i := 0; i < 200; i++ {
		_, err := cli.Invoke(ctx, addr, protocol.NewRequest(protocol.HeartBeat, nil, pattern(700, byte(i))))
		require.NoError(t, err)
	}
	require.Equal(t, pattern(700, 9), first.Body)
}

// TestWriteResponseLastRecyclesTheKeptFrame: a handler that kept its request and answers with
// WriteResponseLast gives its frame back to the pool once the answer is written.
func TestWriteResponseLastRecyclesTheKeptFrame(t *testing.T) {
	held := make(chan heldRequest, 1)
	var recycled atomic.Int32
	_, addr := startEcho(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		remoting.WatchFrameRecycling(s, func([]byte) { recycled.Add(1) })
		holdAll(held)(s)
	})
	cli := newClient(t, remoting.ClientOptions{})
	got := make(chan result, 1)
	cli.InvokeAsync(ctxTimeout(t), addr, protocol.NewRequest(protocol.PullMessage, nil, pattern(1000, 1)),
		func(resp *protocol.Command, err error) { got <- result{resp, err} })
	h := <-held
	require.Eventually(t, func() bool { return remoting.HeldFrame(h.c, h.req.Opaque) }, 5*time.Second, time.Millisecond,
		"the kept request's frame waits for the answer")
	before := recycled.Load()
	require.NoError(t, h.c.WriteResponseLast(protocol.NewResponse(h.req, protocol.Success, "")))
	require.Equal(t, protocol.Success, (<-got).must(t).ResponseCode())
	require.Eventually(t, func() bool { return recycled.Load() == before+1 }, 5*time.Second, time.Millisecond,
		"the frame is recycled after the answer is written")
	require.ErrorIs(t, h.c.WriteResponseLast(protocol.NewResponse(h.req, protocol.Success, "")), remoting.ErrAnswered)
}
