package remoting

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// connConfig is what a Conn needs from its owner (a Server or a Client).
type connConfig struct {
	lg           *zap.Logger
	maxFrame     int
	readBuffer   int
	idleTimeout  time.Duration
	writeTimeout time.Duration
	dispatcher   *dispatcher
	bufs         *buffers
	limits       *connLimits // a server's flow control; nil for a client
}

// Conn is one remoting connection, on the server or the client side.
type Conn struct {
	id     uint64
	nc     net.Conn
	remote string
	local  string
	// remoteAP is remote parsed (zero when it is not ip:port).
	remoteAP netip.AddrPort
	cfg      *connConfig
	lg       *zap.Logger

	ctx    context.Context // done when the connection closes
	cancel context.CancelFunc
	opaque atomic.Int32 // opaques of the requests this side sends
	out    writeQueue

	// Flow control (limits.go): the peer's requests being handled, whether the reader waits for
	// the queue to drain, and the token that wakes it.
	serving     atomic.Int32
	readStopped atomic.Bool
	flowWake    chan struct{}

	mu struct {
		sync.Mutex
		closed   bool
		pending  map[int32]*call    // our requests waiting for a response
		inflight map[int32]inflight // peer requests not answered yet
		onClose  []func()
		values   map[any]any
		calls    callTimeouts // what ends pending calls early: contexts, deadlines
	}
}

// inflight is what a response needs to know of its request.
type inflight struct {
	code          protocol.RequestCode
	oneway        bool
	serializeType protocol.SerializeType
	start         time.Time
	// frame is the request's frame when its handler returned without an answer: recycled once
	// the answer WriteResponseLast gives has been written (WriteResponse leaves it alone).
	frame *frameBuf
}

func newConn(id uint64, nc net.Conn, cfg *connConfig) *Conn {
	c := &Conn{id: id, nc: nc, cfg: cfg, remote: addrString(nc.RemoteAddr()), local: addrString(nc.LocalAddr())}
	c.remoteAP, _ = netip.ParseAddrPort(c.remote)
	c.lg = cfg.lg.With(zap.Uint64("conn", id), zap.String("remote", c.remote))
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.out.init(cfg.bufs, cfg.limits)
	c.flowWake = make(chan struct{}, 1)
	c.mu.calls.fire, c.mu.calls.sweep = c.contextDone, c.sweepDeadlines
	return c
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// start runs the reader and the writer through tryGo; if the owner is closing, the connection is
// shut down instead.
func (c *Conn) start(tryGo func(func()) bool) {
	if !tryGo(c.guarded(c.writeLoop)) || !tryGo(c.guarded(c.readLoop)) {
		c.shutdown(ErrConnClosed)
	}
}

// guarded runs f; a panic (a bug) is logged and closes the connection instead of the process.
func (c *Conn) guarded(f func()) func() {
	return func() {
		defer func() {
			if r := recover(); r != nil {
				c.lg.Error("connection goroutine panicked; closing the connection", zap.Any("panic", r), zap.Stack("stack"))
				c.shutdown(fmt.Errorf("remoting: panic: %v", r))
			}
		}()
		f()
	}
}

// ID is unique among the connections of one Server or Client.
func (c *Conn) ID() uint64 { return c.id }

// RemoteAddr is the peer's address, "ip:port".
func (c *Conn) RemoteAddr() string { return c.remote }

// RemoteAddrPort is RemoteAddr parsed once; the zero AddrPort when it is not ip:port.
func (c *Conn) RemoteAddrPort() netip.AddrPort { return c.remoteAP }

// LocalAddr is this side's address, "ip:port".
func (c *Conn) LocalAddr() string { return c.local }

// Context is done when the connection closes.
func (c *Conn) Context() context.Context { return c.ctx }

// SetValue attaches v to the connection under key (e.g. the client id a
// heartbeat announced).
func (c *Conn) SetValue(key, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.values == nil {
		c.mu.values = make(map[any]any)
	}
	c.mu.values[key] = v
}

// Value returns what SetValue attached under key, or nil.
func (c *Conn) Value(key any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.values[key]
}

// OnClose registers f to run once when the connection ends. If it has
// ended already, f runs now.
func (c *Conn) OnClose(f func()) {
	c.mu.Lock()
	if !c.mu.closed {
		c.mu.onClose = append(c.mu.onClose, f)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.runHook(f)
}

// Closed reports whether the connection has ended.
func (c *Conn) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.closed
}

// Close ends the connection: queued frames are dropped (and released),
// requests waiting for a response fail with ErrConnClosed, and the OnClose
// functions run.
func (c *Conn) Close() error {
	c.shutdown(nil)
	return nil
}

func (c *Conn) shutdown(cause error) {
	c.mu.Lock()
	if c.mu.closed {
		c.mu.Unlock()
		return
	}
	c.mu.closed = true
	pending, hooks := c.mu.pending, c.mu.onClose
	c.mu.pending, c.mu.inflight, c.mu.onClose = nil, nil, nil
	c.mu.calls.stopAll()
	c.mu.Unlock()

	c.cancel()
	_ = c.nc.Close()
	c.out.close()
	if cause != nil && !isClosedErr(cause) {
		c.lg.Debug("connection closed", zap.Error(cause))
	}
	for _, call := range pending {
		call.finish(c, nil, ErrConnClosed)
	}
	for _, f := range hooks {
		c.runHook(f)
	}
}

func (c *Conn) runHook(f func()) {
	defer func() {
		if r := recover(); r != nil {
			c.lg.Error("connection hook panicked", zap.Any("panic", r), zap.Stack("stack"))
		}
	}()
	f()
}

func isClosedErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

// readLoop reads frames until the connection fails. A broken frame closes
// the connection. Frames are read into pooled buffers (see buffers) that
// grow as their bytes arrive (see readFrame).
func (c *Conn) readLoop() {
	br := bufio.NewReaderSize(c.nc, c.cfg.readBuffer)
	var dec protocol.Decoder
	for {
		if !c.waitToRead() {
			return
		}
		if c.cfg.idleTimeout > 0 {
			_ = c.nc.SetReadDeadline(time.Now().Add(c.cfg.idleTimeout))
		}
		fb, err := readFrame(br, c.cfg.maxFrame, c.cfg.bufs)
		if err == nil {
			var cmd *protocol.Command
			if cmd, err = dec.Decode(fb.b); err == nil {
				if cmd.Body == nil {
					// Nothing refers to the frame: decoding copied every string.
					c.cfg.bufs.putFrame(fb)
					fb = nil
				}
				c.received(cmd, fb)
				continue
			}
		}
		c.cfg.bufs.putFrame(fb)
		if c.owesAnswer(err, br) {
			continue
		}
		c.readFailed(err)
		return
	}
}

// owesAnswer reports whether a read that failed with err leaves the connection open: the idle
// deadline passed between two frames (nothing of the next one arrived) while this side still owes
// the peer an answer, such as a held pull. A connection is idle when neither side has anything
// pending, as Java's all-idle timer sees it; a frame that started arriving must still arrive in
// full within the deadline.
func (c *Conn) owesAnswer(err error, br *bufio.Reader) bool {
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || br.Buffered() > 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.mu.closed && len(c.mu.inflight) > 0
}

func (c *Conn) readFailed(err error) {
	var ne net.Error
	switch {
	case isClosedErr(err) || c.Closed():
	case errors.As(err, &ne) && ne.Timeout():
		c.lg.Info("closing idle connection", zap.Duration("idle", c.cfg.idleTimeout))
	case errors.Is(err, protocol.ErrFrameTooShort), errors.Is(err, protocol.ErrFrameTooLarge),
		errors.Is(err, protocol.ErrHeaderTooLong), errors.Is(err, protocol.ErrSerializeType),
		errors.Is(err, protocol.ErrMalformed):
		c.lg.Warn("closing connection after a broken frame", zap.Error(err))
	default:
		c.lg.Debug("read failed", zap.Error(err))
	}
	c.shutdown(err)
}

// received handles one command read from the peer; fb holds the frame its
// Body aliases, or is nil.
func (c *Conn) received(cmd *protocol.Command, fb *frameBuf) {
	if cmd.IsResponse() {
		// A response belongs to whoever waits for it: fb is not recycled.
		if call := c.takeCall(cmd.Opaque); call != nil {
			call.finish(c, cmd, nil)
		} else {
			c.cfg.bufs.putFrame(fb)
			c.lg.Debug("dropping response with unknown opaque", zap.Int32("opaque", cmd.Opaque))
		}
		return
	}
	c.cfg.dispatcher.dispatch(c, cmd, fb)
}

// answer queues resp as the answer to req, or drops it if req is oneway.
// reqBuf, if not nil, is the request's frame buffer: it is recycled once
// resp has been written or dropped.
func (c *Conn) answer(req inflight, opaque int32, resp *protocol.Command, reqBuf *frameBuf) {
	if req.oneway {
		release(resp)
		c.cfg.bufs.putFrame(reqBuf)
		return
	}
	resp.Opaque = opaque
	resp.Flag |= protocol.FlagResponse
	resp.SerializeType = req.serializeType
	_ = c.push(outFrame{cmd: resp, reqCode: req.code, start: req.start, reqBuf: reqBuf})
}

// push queues f for the writer. A frame that would take the queue past its limits closes the
// connection: its peer is not reading what it asked for.
func (c *Conn) push(f outFrame) error {
	err := c.out.push(f)
	if errors.Is(err, errQueueFull) {
		c.lg.Warn("closing connection: too much queued for a peer that does not read", zap.Error(err))
		c.shutdown(err)
	}
	return err
}

func requestInfo(req *protocol.Command, start time.Time) inflight {
	return inflight{code: req.RequestCode(), oneway: req.IsOneway(), serializeType: req.SerializeType, start: start}
}

// beginRequest records a request being served until it is answered.
func (c *Conn) beginRequest(req *protocol.Command, start time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.closed {
		return
	}
	if c.mu.inflight == nil {
		c.mu.inflight = make(map[int32]inflight)
	}
	c.mu.inflight[req.Opaque] = requestInfo(req, start)
}

// holdFrame keeps fb, the frame of a request whose handler returned without answering, for
// the answer WriteResponse will give. If that answer came already, fb is left to the collector:
// the answer, still queued, may refer to it.
func (c *Conn) holdFrame(opaque int32, fb *frameBuf) {
	if fb == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if req, ok := c.mu.inflight[opaque]; ok {
		req.frame = fb
		c.mu.inflight[opaque] = req
	}
}

// endRequest forgets a request; false if it was answered already (or the
// connection closed).
func (c *Conn) endRequest(opaque int32) (inflight, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	req, ok := c.mu.inflight[opaque]
	if ok {
		delete(c.mu.inflight, opaque)
	}
	return req, ok
}

// WriteResponse answers, later, a request whose handler returned nil (long
// polling). resp must carry the request's opaque, as protocol.NewResponse
// sets it; the response flag and the request's serialize type are applied.
// A request is answered once: a second answer fails with ErrAnswered, and
// after the connection ended with ErrConnClosed. An answer to a oneway
// request is dropped. resp is released in every case.
func (c *Conn) WriteResponse(resp *protocol.Command) error {
	req, ok := c.endRequest(resp.Opaque)
	if !ok {
		release(resp)
		if c.Closed() {
			return ErrConnClosed
		}
		return ErrAnswered
	}
	c.answer(req, resp.Opaque, resp, nil)
	return nil
}

// WriteResponseLast is WriteResponse from a handler that is done with its request: the
// request's frame is recycled once resp has been written, so neither the request nor its body
// may be used after the call (resp itself must not refer to them).
func (c *Conn) WriteResponseLast(resp *protocol.Command) error {
	req, ok := c.endRequest(resp.Opaque)
	if !ok {
		release(resp)
		if c.Closed() {
			return ErrConnClosed
		}
		return ErrAnswered
	}
	c.answer(req, resp.Opaque, resp, req.frame)
	return nil
}

func release(cmd *protocol.Command) {
	if cmd != nil && cmd.Release != nil {
		cmd.Release()
	}
}

// call is one request this side sent and waits a response for.
type call struct {
	done chan callResult                // sync: buffered, receives once
	cb   func(*protocol.Command, error) // async

	// Async calls only: what fails the call before its response comes.
	code     protocol.RequestCode // the request's, for the error
	ctx      context.Context      // nil, or watched through watch
	watch    *ctxWatch
	deadline time.Time // zero: none
}

type callResult struct {
	resp *protocol.Command
	err  error
}

// finish delivers the outcome: to the waiting caller, or to cb on a worker
// goroutine of c's dispatcher (never on the reader).
func (k *call) finish(c *Conn, resp *protocol.Command, err error) {
	if k.cb == nil {
		k.done <- callResult{resp, err}
		return
	}
	c.cfg.dispatcher.callback(k.cb, resp, err)
}

// callError is the error of a call that ended without a response.
func (c *Conn) callError(code protocol.RequestCode, opaque int32, cause error) error {
	return fmt.Errorf("remoting: %s to %s, opaque %d: %w", code, c.remote, opaque, cause)
}

// addCall assigns req its opaque and registers k for the response, and
// with the conn's timeouts if k has a context or a deadline.
func (c *Conn) addCall(req *protocol.Command, k *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.closed {
		return ErrConnClosed
	}
	if c.mu.pending == nil {
		c.mu.pending = make(map[int32]*call)
	}
	req.Opaque = c.opaque.Add(1)
	c.mu.pending[req.Opaque] = k
	if k.ctx != nil {
		k.watch = c.mu.calls.watch(k.ctx)
	}
	if !k.deadline.IsZero() {
		c.mu.calls.armAt(k.deadline)
	}
	return nil
}

func (c *Conn) takeCall(opaque int32) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.removeCallLocked(opaque)
}

func (c *Conn) removeCallLocked(opaque int32) *call {
	k := c.mu.pending[opaque]
	if k != nil {
		delete(c.mu.pending, opaque)
		if k.watch != nil {
			c.mu.calls.unwatch(k.watch)
		}
	}
	return k
}

// contextDone fails the calls whose context w watched.
func (c *Conn) contextDone(w *ctxWatch) {
	type ended struct {
		k      *call
		opaque int32
	}
	var fail []ended
	c.mu.Lock()
	c.mu.calls.forget(w)
	for opaque, k := range c.mu.pending {
		if k.watch == w {
			delete(c.mu.pending, opaque)
			fail = append(fail, ended{k, opaque})
		}
	}
	c.mu.Unlock()
	for _, e := range fail {
		e.k.finish(c, nil, c.callError(e.k.code, e.opaque, e.k.ctx.Err()))
	}
}

// sweepDeadlines fails the calls whose deadline has passed and arms the
// timer for the next one.
func (c *Conn) sweepDeadlines() {
	type ended struct {
		k      *call
		opaque int32
	}
	var fail []ended
	c.mu.Lock()
	c.mu.calls.fired()
	if c.mu.closed {
		c.mu.Unlock()
		return
	}
	now := time.Now()
	var next time.Time
	for opaque, k := range c.mu.pending {
		switch {
		case k.deadline.IsZero():
		case !k.deadline.After(now):
			c.removeCallLocked(opaque)
			fail = append(fail, ended{k, opaque})
		case next.IsZero() || k.deadline.Before(next):
			next = k.deadline
		}
	}
	if !next.IsZero() {
		c.mu.calls.armAt(next)
	}
	c.mu.Unlock()
	for _, e := range fail {
		e.k.finish(c, nil, c.callError(e.k.code, e.opaque, context.DeadlineExceeded))
	}
}

// prepareRequest clears the flags a request must not carry.
func prepareRequest(req *protocol.Command, oneway bool) {
	req.Flag &^= protocol.FlagResponse | protocol.FlagOneway
	if oneway {
		req.Flag |= protocol.FlagOneway
	}
}

// Invoke sends req to the peer and waits for its response, until ctx is
// done. It sets req.Opaque and clears the response and oneway flags.
func (c *Conn) Invoke(ctx context.Context, req *protocol.Command) (*protocol.Command, error) {
	prepareRequest(req, false)
	k := &call{done: make(chan callResult, 1)}
	if err := c.addCall(req, k); err != nil {
		release(req)
		return nil, err
	}
	opaque := req.Opaque
	if err := c.push(outFrame{cmd: req}); err != nil {
		c.takeCall(opaque)
		return nil, err
	}
	select {
	case r := <-k.done:
		return r.resp, r.err
	case <-ctx.Done():
		if c.takeCall(opaque) == nil {
			// The response (or the close) won the race.
			r := <-k.done
			return r.resp, r.err
		}
		return nil, c.callError(req.RequestCode(), opaque, ctx.Err())
	}
}

// InvokeAsync sends req and calls cb exactly once, on a goroutine of its
// own (one that runs nothing else meanwhile): with the response, or with an
// error when ctx is done first, the connection closes, or the request could
// not be queued.
func (c *Conn) InvokeAsync(ctx context.Context, req *protocol.Command, cb func(*protocol.Command, error)) {
	c.invokeAsync(ctx, req, cb, time.Time{})
}

// invokeAsync is InvokeAsync with an optional deadline of its own (zero:
// none), which ends the call like a context deadline would, without the
// cost of a context per call.
func (c *Conn) invokeAsync(ctx context.Context, req *protocol.Command, cb func(*protocol.Command, error), deadline time.Time) {
	prepareRequest(req, false)
	k := &call{cb: cb, code: req.RequestCode(), deadline: deadline}
	if ctx.Done() != nil {
		k.ctx = ctx
	}
	if err := c.addCall(req, k); err != nil {
		release(req)
		c.cfg.dispatcher.callback(cb, nil, err)
		return
	}
	opaque := req.Opaque
	if err := c.push(outFrame{cmd: req}); err != nil {
		if c.takeCall(opaque) != nil {
			k.finish(c, nil, err)
		}
	}
}

// InvokeOneway sends req with the oneway flag; no response is expected. It
// returns once the request is queued.
func (c *Conn) InvokeOneway(req *protocol.Command) error {
	prepareRequest(req, true)
	req.Opaque = c.opaque.Add(1)
	return c.push(outFrame{cmd: req})
}
