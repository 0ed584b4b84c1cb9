package remoting_test

import (
	"context"
	"encoding/binary"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

const codeBig = protocol.GetAllTopicConfig

// bigAnswers answers codeBig with a body of size bytes, counting the requests it served; when gate
// is not nil each request waits for it to close first.
func bigAnswers(size int, served *atomic.Int32, gate chan struct{}) func(s *remoting.Server) {
	body := make([]byte, size)
	return func(s *remoting.Server) {
		s.Handle(codeBig, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			served.Add(1)
			if gate != nil {
				<-gate
			}
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = body
			return resp
		}))
	}
}

func writeRequests(t *testing.T, raw *remotingtest.RawConn, n int) {
	for i := 0; i < n; i++ {
		raw.Write(&protocol.Command{Code: int32(codeBig), Opaque: int32(i + 1)})
	}
}

// settled waits until f stops changing for a while and returns its value.
func settled(f func() int32) int32 {
	last, stable := f(), 0
	for stable < 10 {
		time.Sleep(50 * time.Millisecond)
		if v := f(); v != last {
			last, stable = v, 0
			continue
		}
		stable++
	}
	return last
}

// TestReaderStopsWhileThePeerDoesNotRead: a client that writes requests and reads nothing makes
// the server stop reading once its queue is over the high-water mark; when the client reads, the
// server resumes and every request is answered.
func TestReaderStopsWhileThePeerDoesNotRead(t *testing.T) {
	const n, size = 600, 256 << 10
	var served atomic.Int32
	_, addr := startEcho(t, remoting.ServerOptions{Limits: remoting.Limits{
		WriteBufferHighWaterMark: 512 << 10, WriteBufferLowWaterMark: 128 << 10, MaxConnRequests: 4,
	}}, bigAnswers(size, &served, nil))
	raw := remotingtest.Dial(t, addr)
	go writeRequests(t, raw, n)
	// The kernel's socket buffers hold some responses; beyond them the server stops.
	stopped := settled(served.Load)
	t.Logf("served %d of %d requests before the server stopped reading", stopped, n)
	require.Less(t, stopped, int32(n/2), "the server kept reading requests whose answers nobody reads")
	seen := map[int32]bool{}
	for i := 0; i < n; i++ {
		resp := raw.Read()
		require.Len(t, resp.Body, size)
		seen[resp.Opaque] = true
	}
	require.Len(t, seen, n, "every request answered once")
	require.Equal(t, int32(n), served.Load())
}

// TestConnectionOverItsQueueBoundIsClosed: responses that pile up past MaxQueuedBytes (here
// handlers that were already running when the reader stopped) close the connection.
func TestConnectionOverItsQueueBoundIsClosed(t *testing.T) {
	var served atomic.Int32
	gate := make(chan struct{})
	closed := make(chan struct{})
	_, addr := startEcho(t, remoting.ServerOptions{
		Limits:       remoting.Limits{MaxQueuedBytes: 2 << 20, MaxConnRequests: 64},
		OnDisconnect: func(*remoting.Conn) { close(closed) },
	}, bigAnswers(512<<10, &served, gate))
	raw := remotingtest.Dial(t, addr)
	writeRequests(t, raw, 32)
	require.Eventually(t, func() bool { return served.Load() == 32 }, 10*time.Second, time.Millisecond)
	close(gate) // 32 answers of 512 KiB at once: 16 MiB for a peer that reads nothing
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("connection not closed")
	}
}

// TestTotalQueueBoundClosesTheConnectionOverItsMark: past MaxTotalQueuedBytes a connection above
// its high-water mark is closed, and a connection that reads keeps working.
func TestTotalQueueBoundClosesTheConnectionOverItsMark(t *testing.T) {
	var served atomic.Int32
	gate := make(chan struct{})
	closed := make(chan struct{}, 2)
	_, addr := startEcho(t, remoting.ServerOptions{
		Limits: remoting.Limits{MaxTotalQueuedBytes: 1 << 20, WriteBufferHighWaterMark: 64 << 10,
			WriteBufferLowWaterMark: 16 << 10, MaxConnRequests: 64},
		OnDisconnect: func(*remoting.Conn) { closed <- struct{}{} },
	}, bigAnswers(256<<10, &served, gate))
	hog := remotingtest.Dial(t, addr)
	writeRequests(t, hog, 16)
	require.Eventually(t, func() bool { return served.Load() == 16 }, 10*time.Second, time.Millisecond)
	close(gate)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("connection not closed")
	}
	good := remotingtest.Dial(t, addr)
	for i := 0; i < 20; i++ {
		require.Equal(t, protocol.Success, good.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: int32(i)}).ResponseCode())
	}
}

// TestConnectionLimit: beyond MaxConnections a new connection is closed at once; once one
// closes, a new one is served again.
func TestConnectionLimit(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{Limits: remoting.Limits{MaxConnections: 2}}, nil)
	a, b := remotingtest.Dial(t, addr), remotingtest.Dial(t, addr)
	for _, c := range []*remotingtest.RawConn{a, b} {
		require.Equal(t, protocol.Success, c.RoundTrip(&protocol.Command{Code: int32(codeEcho), Opaque: 1}).ResponseCode())
	}
	remotingtest.Dial(t, addr).ExpectClosed()
	a.Close()
	require.Eventually(t, func() bool {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		defer nc.Close()
		c := remotingtest.Wrap(t, nc)
		c.Write(&protocol.Command{Code: int32(codeEcho), Opaque: 2})
		resp, err := c.ReadCommand()
		return err == nil && resp.ResponseCode() == protocol.Success
	}, 10*time.Second, 20*time.Millisecond)
}

// TestPartialFrameClosedAfterIdleTimeout: four bytes of a frame do not keep a connection open
// (slowloris): the idle deadline covers the whole frame.
func TestPartialFrameClosedAfterIdleTimeout(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{Limits: remoting.Limits{IdleTimeout: 100 * time.Millisecond}}, nil)
	raw := remotingtest.Dial(t, addr)
	raw.WriteRaw(binary.BigEndian.AppendUint32(nil, 100))
	raw.ExpectClosed()

	// Nor does a frame trickling in a byte at a time.
	raw = remotingtest.Dial(t, addr)
	frame, err := protocol.EncodeCommand(&protocol.Command{Code: int32(codeEcho), Opaque: 1, Body: make([]byte, 200)})
	require.NoError(t, err)
	stop := time.After(5 * time.Second)
	for _, c := range frame {
		if err := writeByte(raw, c, stop); err != nil {
			return // closed by the server: what this test wants
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("a frame sent over 4 s with a 100 ms idle timeout was read in full")
}

func writeByte(raw *remotingtest.RawConn, b byte, stop <-chan time.Time) error {
	select {
	case <-stop:
		return nil
	default:
	}
	_, err := raw.Conn().Write([]byte{b})
	return err
}

// TestAnnouncedFramesDoNotCostTheirLength: eight connections that each announce a 16 MiB frame
// and send 8 bytes of it cost the server far less than 8 × 16 MiB of heap.
func TestAnnouncedFramesDoNotCostTheirLength(t *testing.T) {
	_, addr := startEcho(t, remoting.ServerOptions{}, nil)
	before := heapInUse()
	for i := 0; i < 8; i++ {
		raw := remotingtest.Dial(t, addr)
		raw.WriteRaw(append(binary.BigEndian.AppendUint32(nil, protocol.MaxFrameSize-4), 0, 0, 0, 0, 1, 2, 3, 4))
	}
	time.Sleep(200 * time.Millisecond) // let the readers take what they were sent
	grown := int64(heapInUse()) - int64(before)
	require.Less(t, grown, int64(8<<20), "heap grew %d bytes", grown)
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestHeldRequestKeepsConnectionOpen: a connection whose request is held (a long poll) is not
// idle while it waits, and is closed once answered and silent.
func TestHeldRequestKeepsConnectionOpen(t *testing.T) {
	held := make(chan *remoting.Conn, 1)
	_, addr := startEcho(t, remoting.ServerOptions{Limits: remoting.Limits{IdleTimeout: 100 * time.Millisecond}},
		func(s *remoting.Server) {
			s.Handle(codeBlock, remoting.HandlerFunc(func(_ context.Context, c *remoting.Conn, _ *protocol.Command) *protocol.Command {
				held <- c
				return nil // answered later, as long polling does
			}))
		})
	raw := remotingtest.Dial(t, addr)
	raw.Write(&protocol.Command{Code: int32(codeBlock), Opaque: 7})
	c := <-held
	time.Sleep(500 * time.Millisecond) // five idle timeouts
	require.False(t, c.Closed(), "a connection with a held request was closed as idle")
	require.NoError(t, c.WriteResponse(&protocol.Command{Opaque: 7}))
	require.Equal(t, int32(7), raw.Read().Opaque)
	raw.ExpectClosed()
}
