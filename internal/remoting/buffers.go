package remoting

import (
	"math/bits"
	"sync"
)

// Frame buffers are recycled by size class, powers of two from 512 bytes to
// 4 MiB; larger frames are allocated and left to the collector.
const (
	minFrameClassShift = 9
	maxFrameClassShift = 22
	numFrameClasses    = maxFrameClassShift - minFrameClassShift + 1
)

// maxPooledHeaderBuf bounds the header buffer a writer returns to the pool.
const maxPooledHeaderBuf = 1 << 20

// A client's frames are mostly responses, which go to their callers and
// are never recycled: it pools only frames small enough that rounding them
// up to a size class costs little (bodiless answers, recycled at once).
// Larger ones are allocated to size.
const clientMaxPooledFrame = 4 << 10

// frameBuf is a pooled buffer holding one frame read from a peer.
type frameBuf struct {
	b     []byte
	class int8 // -1: not pooled
}

// headerBuf is a pooled buffer for one batch of encoded frame headers.
type headerBuf struct{ b []byte }

// buffers are the reusable buffers of one Server's or Client's
// connections.
//
// A request's frame buffer is recycled once nothing can refer to it any
// more: at once when the command has no body (decoding copies every string,
// so only Body aliases the frame); otherwise after the handler returned a
// response and that response has been written or dropped (the response may
// carry slices of the request, as an echo does). A handler that returns nil
// keeps its request (long polling, a send waiting for its group commit): its
// frame is recycled only when the handler answers with WriteResponseLast,
// once that answer has been written; never after WriteResponse. Responses
// handed to callers are theirs: those frames are never recycled.
type buffers struct {
	frames  [numFrameClasses]sync.Pool
	headers sync.Pool
	// maxFrame is the largest frame taken from the pool; 0 means
	// 1<<maxFrameClassShift.
	maxFrame int

	// Test hooks: poison overwrites a recycled frame, so that a test sees
	// any use after recycling; recycled is told of every recycled frame.
	poison   bool
	recycled func(b []byte)
}

// frameClass returns the class of an n-byte frame, or -1 if it is too large
// to pool.
func frameClass(n int) int {
	if n <= 1<<minFrameClassShift {
		return 0
	}
	shift := bits.Len(uint(n - 1))
	if shift > maxFrameClassShift {
		return -1
	}
	return shift - minFrameClassShift
}

// getFrame returns a buffer whose b has length n.
func (p *buffers) getFrame(n int) *frameBuf {
	class := frameClass(n)
	if class < 0 || (p.maxFrame > 0 && n > p.maxFrame) {
		return &frameBuf{b: make([]byte, n), class: -1}
	}
	if fb, ok := p.frames[class].Get().(*frameBuf); ok {
		fb.b = fb.b[:n]
		return fb
	}
	b := make([]byte, n, 1<<(class+minFrameClassShift))
	return &frameBuf{b: b, class: int8(class)}
}

// putFrame recycles fb; nil is ignored. The caller guarantees that nothing
// refers to fb.b any more.
func (p *buffers) putFrame(fb *frameBuf) {
	if fb == nil || fb.class < 0 {
		return
	}
	if p.poison {
		b := fb.b[:cap(fb.b)]
		for i := range b {
			b[i] = 0xDB
		}
	}
	if p.recycled != nil {
		p.recycled(fb.b)
	}
	p.frames[fb.class].Put(fb)
}

// getHeaders returns an empty header buffer.
func (p *buffers) getHeaders() *headerBuf {
	if hb, ok := p.headers.Get().(*headerBuf); ok {
		return hb
	}
	return &headerBuf{b: make([]byte, 0, 4096)}
}

// putHeaders recycles hb unless it grew too large to keep.
func (p *buffers) putHeaders(hb *headerBuf) {
	if cap(hb.b) > maxPooledHeaderBuf {
		return
	}
	hb.b = hb.b[:0]
	p.headers.Put(hb)
}
