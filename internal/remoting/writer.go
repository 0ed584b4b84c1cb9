package remoting

import (
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// outFrame is one queued frame. A response to a served request carries the
// request's code and arrival time for the Observe hook.
type outFrame struct {
	cmd     *protocol.Command
	reqCode protocol.RequestCode
	start   time.Time
	skip    bool      // not written: it could not be encoded
	reqBuf  *frameBuf // the request's frame, recycled once cmd is written or dropped
	size    int64     // counted in the queue's bytes until written or dropped (frameSize)
}

// writeQueue is a connection's outgoing frames; one writer drains it.
type writeQueue struct {
	bufs   *buffers
	limits *connLimits // nil: unbounded (a client's connections)
	// queued is the size of the frames queued or being written; changed under mu, read anywhere.
	queued atomic.Int64
	mu     sync.Mutex
	frames []outFrame
	closed bool
	wake   chan struct{} // capacity 1: "frames is not empty"
	done   chan struct{} // closed by close
}

// drop releases a frame that will not be written, and recycles the
// request frame it answered.
func (q *writeQueue) drop(f *outFrame) {
	release(f.cmd)
	q.bufs.putFrame(f.reqBuf)
}

func (q *writeQueue) init(bufs *buffers, limits *connLimits) {
	q.bufs, q.limits = bufs, limits
	q.wake = make(chan struct{}, 1)
	q.done = make(chan struct{})
}

// push queues f, or drops it and fails: ErrConnClosed when the connection
// has ended, errQueueFull when f would take the queue past its limits.
func (q *writeQueue) push(f outFrame) error {
	f.size = frameSize(f.cmd)
	q.mu.Lock()
	err := ErrConnClosed
	if !q.closed {
		err = q.limits.admit(q.queued.Load(), f.size)
	}
	if err != nil {
		q.mu.Unlock()
		q.drop(&f)
		return err
	}
	q.queued.Add(f.size)
	q.limits.add(f.size)
	q.frames = append(q.frames, f)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return nil
}

// take swaps the queued frames with spare (an emptied earlier batch).
func (q *writeQueue) take(spare []outFrame) []outFrame {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.frames
	q.frames = spare[:0]
	return batch
}

// written forgets n bytes that have been written or dropped.
func (q *writeQueue) written(n int64) {
	if n == 0 {
		return
	}
	q.mu.Lock()
	q.queued.Add(-n)
	q.mu.Unlock()
	q.limits.add(-n)
}

// close refuses further frames and wakes the writer, which releases what is
// left.
func (q *writeQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.done)
	}
}

// frameWriter is the writer goroutine's reusable state. The buffer the
// headers are encoded in is taken from the pool for one batch, so that an
// idle connection holds none.
type frameWriter struct {
	ends []int       // end offset of each frame's header in the header buffer
	vecs net.Buffers // headers and bodies for one writev
	nb   net.Buffers // consumed by WriteTo; kept here so it does not escape per write
}

// writeLoop writes queued frames in batches until the connection ends.
func (c *Conn) writeLoop() {
	var w frameWriter
	var spare []outFrame
	for {
		select {
		case <-c.out.wake:
		case <-c.out.done:
			c.dropQueued()
			return
		}
		// Let the goroutines that are about to queue frames do so first:
		// on a busy connection this turns ~1 write per frame into ~1 per 20.
		runtime.Gosched()
		batch := c.out.take(spare)
		if len(batch) == 0 {
			spare = batch // the queue now owns spare's array
			continue
		}
		err := c.writeBatch(&w, batch)
		var n int64
		for i := range batch {
			n += batch[i].size
			c.finishFrame(&batch[i], err == nil)
			batch[i] = outFrame{}
		}
		c.out.written(n)
		c.flowChanged()
		spare = batch
		if err != nil {
			c.shutdown(err)
			c.dropQueued()
			return
		}
	}
}

func (c *Conn) dropQueued() {
	batch := c.out.take(nil)
	var n int64
	for i := range batch {
		n += batch[i].size
		c.out.drop(&batch[i])
	}
	c.out.written(n)
}

// writeBatch encodes the headers of batch and writes them with the bodies
// in one writev.
func (c *Conn) writeBatch(w *frameWriter, batch []outFrame) error {
	hb := c.cfg.bufs.getHeaders()
	defer c.cfg.bufs.putHeaders(hb)
	hdr := hb.b[:0]
	w.ends = w.ends[:0]
	for i := range batch {
		var err error
		start := len(hdr)
		if hdr, err = protocol.AppendFrameHeader(hdr, batch[i].cmd); err != nil {
			hdr = hdr[:start]
			c.encodeFailed(&batch[i], err)
			if !batch[i].skip {
				hdr, _ = protocol.AppendFrameHeader(hdr, batch[i].cmd)
			}
		}
		w.ends = append(w.ends, len(hdr))
	}
	hb.b = hdr
	w.vecs = w.vecs[:0]
	start := 0
	for i := range batch {
		if batch[i].skip {
			continue
		}
		cmd := batch[i].cmd
		w.vecs = append(w.vecs, hdr[start:w.ends[i]])
		start = w.ends[i]
		if len(cmd.Body) > 0 {
			w.vecs = append(w.vecs, cmd.Body)
		}
		for _, p := range cmd.BodyParts {
			if len(p) > 0 {
				w.vecs = append(w.vecs, p)
			}
		}
	}
	if c.cfg.writeTimeout > 0 {
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.cfg.writeTimeout))
	}
	w.nb = w.vecs
	_, err := w.nb.WriteTo(c.nc)
	clear(w.vecs) // drop references to bodies
	return err
}

// encodeFailed handles a frame too big to encode: a response is replaced by
// SYSTEM_ERROR; a request is not sent and its caller gets the error.
func (c *Conn) encodeFailed(f *outFrame, err error) {
	c.lg.Error("cannot encode frame", zap.Int32("code", f.cmd.Code), zap.Error(err))
	if f.cmd.IsResponse() {
		failed := f.cmd
		f.cmd = protocol.NewResponse(failed, protocol.SystemError, err.Error())
		release(failed) // last: its owner may reuse it
		return
	}
	f.skip = true
	if k := c.takeCall(f.cmd.Opaque); k != nil {
		k.finish(c, nil, err)
	}
}

// finishFrame reports a written response to Observe, then releases the
// frame (nothing touches it after Release: its owner may reuse it) and
// recycles the request frame it answered.
func (c *Conn) finishFrame(f *outFrame, written bool) {
	if obs := c.cfg.dispatcher.observe; written && !f.skip && obs != nil && !f.start.IsZero() {
		obs(f.reqCode, f.cmd.ResponseCode(), time.Since(f.start))
	}
	c.out.drop(f)
}
