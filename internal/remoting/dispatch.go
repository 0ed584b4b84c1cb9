package remoting

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// dispatcher runs requests from peers, and the callbacks of async calls:
// each on a goroutine of its own, bounded (requests) by sem, tracked by wg.
type dispatcher struct {
	lg       *zap.Logger
	handlers map[protocol.RequestCode]Handler // read-only once serving starts
	inline   map[protocol.RequestCode]bool    // codes served on the reader; read-only once serving starts
	fallback Handler                          // for codes without a handler; nil: not supported
	sem      chan struct{}
	wg       *sync.WaitGroup
	observe  func(code protocol.RequestCode, respCode protocol.ResponseCode, d time.Duration)
	inOrder  func(code protocol.RequestCode) bool // ServerOptions.InOrder; nil: none

	mu          sync.Mutex
	closing     bool      // set by the owner's Close before it waits on wg
	idle        []*worker // parked workers, the most recently busy last
	idleTimeout time.Duration
}

// job is one request to serve (h set), or one callback to run (cb set).
type job struct {
	c   *Conn
	h   Handler
	req *protocol.Command
	buf *frameBuf // req's frame buffer, or nil

	cb   func(*protocol.Command, error)
	resp *protocol.Command
	err  error
}

// newDispatcher returns a dispatcher for an owner that waits on wg.
func newDispatcher(lg *zap.Logger, maxConcurrent int, wg *sync.WaitGroup) dispatcher {
	return dispatcher{lg: lg, handlers: make(map[protocol.RequestCode]Handler), inline: make(map[protocol.RequestCode]bool),
		sem: make(chan struct{}, maxConcurrent), wg: wg, idleTimeout: workerIdleTimeout}
}

// tryGo runs f in a goroutine its owner waits for on Close, unless the owner is closing. Adding to
// wg under mu, and never once closing is set, keeps Add from racing the owner's Wait.
func (d *dispatcher) tryGo(f func()) bool {
	if !d.add() {
		return false
	}
	go func() {
		defer d.wg.Done()
		f()
	}()
	return true
}

// add counts one more goroutine in wg, unless the owner is closing.
func (d *dispatcher) add() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing {
		return false
	}
	d.wg.Add(1)
	return true
}

// callback runs cb(resp, err) on an idle worker, or a new one; once the owner is closing, on the
// caller's goroutine instead, so that a callback still runs exactly once.
func (d *dispatcher) callback(cb func(*protocol.Command, error), resp *protocol.Command, err error) {
	if !d.hand(job{cb: cb, resp: resp, err: err}, true) {
		d.runCallback(cb, resp, err)
	}
}

// close makes later tryGo calls refuse and ends idle workers; the owner then waits on wg.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closing = true
	idle := d.idle
	d.idle = nil
	d.mu.Unlock()
	for _, w := range idle {
		close(w.jobs)
	}
}

// dispatch starts serving req, whose frame is fb (nil if it holds
// nothing req refers to): on a worker, or for a code registered with
// HandleInline on the calling reader.
func (d *dispatcher) dispatch(c *Conn, req *protocol.Command, fb *frameBuf) {
	start := time.Now()
	h := d.handlers[req.RequestCode()]
	if h == nil {
		h = d.fallback
	}
	if h == nil {
		c.lg.Debug("request code not supported", zap.Stringer("code", req.RequestCode()))
		c.answer(requestInfo(req, start), req.Opaque,
			protocol.NewResponse(req, protocol.RequestCodeNotSupported, notSupportedRemark(req.RequestCode())), fb)
		return
	}
	select {
	case d.sem <- struct{}{}:
	default:
		c.lg.Warn("too many requests in flight, answering SYSTEM_BUSY",
			zap.Stringer("code", req.RequestCode()), zap.Int("limit", cap(d.sem)))
		c.answer(requestInfo(req, start), req.Opaque, protocol.NewResponse(req, protocol.SystemBusy, overloadRemark), fb)
		return
	}
	c.beginRequest(req, start)
	c.serving.Add(1)
	// Inline codes, and one-way requests of in-order codes, are served before the reader reads
	// the connection's next request.
	if d.inline[req.RequestCode()] || (req.IsOneway() && d.inOrder != nil && d.inOrder(req.RequestCode())) {
		d.serve(c, h, req, fb)
		return
	}
	// The reader calling us is counted in wg, so starting a worker cannot race the owner's Wait.
	d.hand(job{c: c, h: h, req: req, buf: fb}, false)
}

// serve runs the handler and queues its response. The request's frame fb
// is recycled after the response has been written; when the handler kept
// the request (nil response), only after an answer WriteResponseLast gives;
// never when it panicked or someone else answered first.
func (d *dispatcher) serve(c *Conn, h Handler, req *protocol.Command, fb *frameBuf) {
	resp, panicked := d.call(c, h, req)
	<-d.sem
	c.serving.Add(-1)
	c.flowChanged()
	if resp == nil {
		c.holdFrame(req.Opaque, fb) // answered later through WriteResponse
		return
	}
	if panicked {
		fb = nil
	}
	if info, ok := c.endRequest(req.Opaque); ok {
		c.answer(info, req.Opaque, resp, fb)
	} else {
		release(resp) // answered already, or the connection closed
	}
}

// call runs the handler; a panic becomes a SYSTEM_ERROR response.
func (d *dispatcher) call(c *Conn, h Handler, req *protocol.Command) (resp *protocol.Command, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			c.lg.Error("handler panicked", zap.Stringer("code", req.RequestCode()),
				zap.Any("panic", r), zap.Stack("stack"))
			resp, panicked = protocol.NewResponse(req, protocol.SystemError, fmt.Sprint(r)), true
		}
	}()
	return h.Serve(c.ctx, c, req), false
}

// ctxOrTimeout returns ctx, with timeout applied if ctx has no deadline.
func ctxOrTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, timeout)
}
