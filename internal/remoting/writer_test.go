package remoting

import (
	"net"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// discardConn is a net.Conn that accepts every write.
type discardConn struct{ net.Conn }

func (discardConn) Write(b []byte) (int, error)      { return len(b), nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }

// TestWriteBatchDoesNotAllocate: once warm, encoding and writing a batch
// of typical send responses allocates nothing (header buffers are pooled).
func TestWriteBatchDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	c := &Conn{nc: discardConn{}, cfg: &connConfig{lg: zap.NewNop(), bufs: new(buffers), writeTimeout: time.Second}}
	batch := make([]outFrame, 256)
	for i := range batch {
		resp := protocol.NewResponse(&protocol.Command{Opaque: int32(i)}, protocol.Success, "")
		resp.ExtFields = protocol.NewExt(map[string]string{
			"msgId": "7F00000100002A9F00000000000F4240", "queueId": "3", "queueOffset": strconv.Itoa(i),
			"MSG_REGION": "DefaultRegion", "TRACE_ON": "true",
		})
		batch[i] = outFrame{cmd: resp}
	}
	var w frameWriter
	if err := c.writeBatch(&w, batch); err != nil {
		t.Fatal(err)
	}
	// sync.Pool may drop the buffer at a GC; allow for the odd refill.
	allocs := testing.AllocsPerRun(50, func() {
		if err := c.writeBatch(&w, batch); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.5 {
		t.Fatalf("%.1f allocations per batch", allocs)
	}
}

// TestFrameClasses: every frame size maps to a class whose buffers hold it.
func TestFrameClasses(t *testing.T) {
	var p buffers
	for _, n := range []int{4, 511, 512, 513, 1024, 1025, 1 << 20, 4 << 20, 4<<20 + 1, 16 << 20} {
		fb := p.getFrame(n)
		if len(fb.b) != n {
			t.Fatalf("frame of %d: buffer of len %d", n, len(fb.b))
		}
		if pooled := n <= 1<<maxFrameClassShift; pooled != (fb.class >= 0) {
			t.Fatalf("frame of %d: class %d", n, fb.class)
		}
		if fb.class >= 0 && cap(fb.b) != 1<<(int(fb.class)+minFrameClassShift) {
			t.Fatalf("frame of %d: class %d, cap %d", n, fb.class, cap(fb.b))
		}
		p.putFrame(fb)
	}
	// A client pools only small frames; larger ones are allocated to size.
	client := buffers{maxFrame: clientMaxPooledFrame}
	if fb := client.getFrame(clientMaxPooledFrame); fb.class < 0 {
		t.Fatal("a small frame is not pooled")
	}
	if fb := client.getFrame(clientMaxPooledFrame + 1); fb.class >= 0 || cap(fb.b) != clientMaxPooledFrame+1 {
		t.Fatalf("a large client frame: class %d, cap %d", fb.class, cap(fb.b))
	}
}
