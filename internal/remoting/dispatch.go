package remoting

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// dispatcher runs requests from peers: one goroutine per request, bounded
// by sem, tracked by wg.
type dispatcher struct {
	lg       *zap.Logger
	handlers map[int16]Handler // read-only once serving starts
	fallback Handler           // for codes without a handler; nil: not supported
	sem      chan struct{}
	wg       *sync.WaitGroup
	observe  func(code, respCode int16, d time.Duration)

	mu      sync.Mutex
	closing bool // set by the owner's Close before it waits on wg

	// Requests are served by workers that outlive one request, so that the stacks they grew are
	// reused: jobs hands a request to an idle worker, quit ends the idle ones on Close.
	jobs     chan job
	quit     chan struct{}
	quitOnce sync.Once
}

// job is one request to serve.
type job struct {
	c   *Conn
	h   Handler
	req *protocol.Command
}

// workerIdleTimeout is how long a worker waits for another request before it exits.
const workerIdleTimeout = 30 * time.Second

// newDispatcher returns a dispatcher for an owner that waits on wg.
func newDispatcher(lg *zap.Logger, maxConcurrent int, wg *sync.WaitGroup) dispatcher {
	return dispatcher{lg: lg, handlers: make(map[int16]Handler), sem: make(chan struct{}, maxConcurrent), wg: wg,
		jobs: make(chan job), quit: make(chan struct{})}
}

// tryGo runs f in a goroutine its owner waits for on Close, unless the owner is closing. Adding to
// wg under mu, and never once closing is set, keeps Add from racing the owner's Wait.
func (d *dispatcher) tryGo(f func()) bool {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return false
	}
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		f()
	}()
	return true
}

// goFunc runs f in a goroutine its owner waits for; once the owner is closing, f runs on the
// caller's goroutine instead, so that a callback still runs exactly once.
func (d *dispatcher) goFunc(f func()) {
	if !d.tryGo(f) {
		f()
	}
}

// close makes later tryGo calls refuse and ends idle workers; the owner then waits on wg.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closing = true
	d.mu.Unlock()
	d.quitOnce.Do(func() { close(d.quit) })
}

// dispatch starts serving req; it never blocks the reader.
func (d *dispatcher) dispatch(c *Conn, req *protocol.Command) {
	start := time.Now()
	h := d.handlers[req.Code]
	if h == nil {
		h = d.fallback
	}
	if h == nil {
		c.lg.Debug("request code not supported", zap.Int16("code", req.Code))
		c.answer(requestInfo(req, start), req.Opaque,
			protocol.NewResponse(req, protocol.RequestCodeNotSupported, notSupportedRemark(req.Code)))
		return
	}
	select {
	case d.sem <- struct{}{}:
	default:
		c.lg.Warn("too many requests in flight, answering SYSTEM_BUSY",
			zap.Int16("code", req.Code), zap.Int("limit", cap(d.sem)))
		c.answer(requestInfo(req, start), req.Opaque, protocol.NewResponse(req, protocol.SystemBusy, overloadRemark))
		return
	}
	c.beginRequest(req, start)
	j := job{c: c, h: h, req: req}
	select {
	case d.jobs <- j: // an idle worker took it
	default:
		d.wg.Add(1) // the reader calling us is counted in wg, so this cannot race Wait
		go d.worker(j)
	}
}

// worker serves j, then further requests until it has been idle for workerIdleTimeout.
func (d *dispatcher) worker(j job) {
	defer d.wg.Done()
	idle := time.NewTimer(workerIdleTimeout)
	defer idle.Stop()
	for {
		d.serve(j.c, j.h, j.req)
		idle.Reset(workerIdleTimeout)
		select {
		case j = <-d.jobs:
		case <-idle.C:
			return
		case <-d.quit:
			return
		}
	}
}

func (d *dispatcher) serve(c *Conn, h Handler, req *protocol.Command) {
	resp := d.call(c, h, req)
	<-d.sem
	if resp == nil {
		return // answered later through WriteResponse
	}
	if info, ok := c.endRequest(req.Opaque); ok {
		c.answer(info, req.Opaque, resp)
	} else {
		release(resp) // answered already, or the connection closed
	}
}

// call runs the handler; a panic becomes a SYSTEM_ERROR response.
func (d *dispatcher) call(c *Conn, h Handler, req *protocol.Command) (resp *protocol.Command) {
	defer func() {
		if r := recover(); r != nil {
			c.lg.Error("handler panicked", zap.Stringer("code", protocol.RequestCode(req.Code)),
				zap.Any("panic", r), zap.Stack("stack"))
			resp = protocol.NewResponse(req, protocol.SystemError, fmt.Sprint(r))
		}
	}()
	return h.Serve(c.ctx, c, req)
}

// ctxOrTimeout returns ctx, with timeout applied if ctx has no deadline.
func ctxOrTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, timeout)
}
