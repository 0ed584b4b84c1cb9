package remoting

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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
}

// Conn is one remoting connection, on the server or the client side.
type Conn struct {
	id     uint64
	nc     net.Conn
	remote string
	local  string
	cfg    *connConfig
	lg     *zap.Logger

	ctx    context.Context // done when the connection closes
	cancel context.CancelFunc
	opaque atomic.Int32 // opaques of the requests this side sends
	out    writeQueue

	mu struct {
		sync.Mutex
		closed   bool
		pending  map[int32]*call    // our requests waiting for a response
		inflight map[int32]inflight // peer requests not answered yet
		onClose  []func()
		values   map[any]any
	}
}

// inflight is what a response needs to know of its request.
type inflight struct {
	code          int16
	oneway        bool
	serializeType protocol.SerializeType
	start         time.Time
}

func newConn(id uint64, nc net.Conn, cfg *connConfig) *Conn {
	c := &Conn{id: id, nc: nc, cfg: cfg, remote: addrString(nc.RemoteAddr()), local: addrString(nc.LocalAddr())}
	c.lg = cfg.lg.With(zap.Uint64("conn", id), zap.String("remote", c.remote))
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.out.init()
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
	if !tryGo(c.writeLoop) || !tryGo(c.readLoop) {
		c.shutdown(ErrConnClosed)
	}
}

// ID is unique among the connections of one Server or Client.
func (c *Conn) ID() uint64 { return c.id }

// RemoteAddr is the peer's address, "ip:port".
func (c *Conn) RemoteAddr() string { return c.remote }

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
	c.mu.Unlock()

	c.cancel()
	_ = c.nc.Close()
	c.out.close()
	if cause != nil && !isClosedErr(cause) {
		c.lg.Debug("connection closed", zap.Error(cause))
	}
	for _, call := range pending {
		call.finish(nil, ErrConnClosed)
	}
	for _, f := range hooks {
		c.runHook(f)
	}
}

func (c *Conn) runHook(f func()) {
	defer func() {
		if r := recover(); r != nil {
			c.lg.Error("OnClose hook panicked", zap.Any("panic", r), zap.Stack("stack"))
		}
	}()
	f()
}

func isClosedErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed)
}

// readLoop reads frames until the connection fails. A broken frame closes
// the connection.
func (c *Conn) readLoop() {
	br := bufio.NewReaderSize(c.nc, c.cfg.readBuffer)
	for {
		if c.cfg.idleTimeout > 0 {
			_ = c.nc.SetReadDeadline(time.Now().Add(c.cfg.idleTimeout))
		}
		frame, err := protocol.ReadFrame(br, c.cfg.maxFrame)
		if err == nil {
			var cmd *protocol.Command
			if cmd, err = protocol.DecodeCommand(frame); err == nil {
				c.received(cmd)
				continue
			}
		}
		c.readFailed(err)
		return
	}
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

func (c *Conn) received(cmd *protocol.Command) {
	if cmd.IsResponse() {
		if call := c.takeCall(cmd.Opaque); call != nil {
			call.finish(cmd, nil)
		} else {
			c.lg.Debug("dropping response with unknown opaque", zap.Int32("opaque", cmd.Opaque))
		}
		return
	}
	c.cfg.dispatcher.dispatch(c, cmd)
}

// answer queues resp as the answer to req, or drops it if req is oneway.
func (c *Conn) answer(req inflight, opaque int32, resp *protocol.Command) {
	if req.oneway {
		release(resp)
		return
	}
	resp.Opaque = opaque
	resp.Flag |= protocol.FlagResponse
	resp.SerializeType = req.serializeType
	_ = c.out.push(outFrame{cmd: resp, reqCode: req.code, start: req.start})
}

func requestInfo(req *protocol.Command, start time.Time) inflight {
	return inflight{code: req.Code, oneway: req.IsOneway(), serializeType: req.SerializeType, start: start}
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
	c.answer(req, resp.Opaque, resp)
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
	stop func() bool                    // stops the async timeout
	run  func(func())                   // runs cb in a tracked goroutine
}

type callResult struct {
	resp *protocol.Command
	err  error
}

func (k *call) finish(resp *protocol.Command, err error) {
	if k.cb == nil {
		k.done <- callResult{resp, err}
		return
	}
	if k.stop != nil {
		k.stop()
	}
	cb := k.cb
	k.run(func() { cb(resp, err) })
}

// addCall assigns req its opaque and registers k for the response. For an
// async call, timeout builds k.stop under the lock, so that whoever later
// takes the call sees it.
func (c *Conn) addCall(req *protocol.Command, k *call, timeout func(opaque int32) func() bool) error {
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
	if timeout != nil {
		k.stop = timeout(req.Opaque)
	}
	return nil
}

func (c *Conn) takeCall(opaque int32) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.mu.pending[opaque]
	if k != nil {
		delete(c.mu.pending, opaque)
	}
	return k
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
	if err := c.addCall(req, k, nil); err != nil {
		release(req)
		return nil, err
	}
	opaque := req.Opaque
	if err := c.out.push(outFrame{cmd: req}); err != nil {
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
		return nil, fmt.Errorf("remoting: %s to %s, opaque %d: %w",
			protocol.RequestCode(req.Code), c.remote, opaque, ctx.Err())
	}
}

// InvokeAsync sends req and calls cb exactly once, in its own goroutine:
// with the response, or with an error when ctx is done first, the
// connection closes, or the request could not be queued.
func (c *Conn) InvokeAsync(ctx context.Context, req *protocol.Command, cb func(*protocol.Command, error)) {
	c.invokeAsync(ctx, req, cb, c.cfg.dispatcher.goFunc)
}

func (c *Conn) invokeAsync(ctx context.Context, req *protocol.Command, cb func(*protocol.Command, error), run func(func())) {
	prepareRequest(req, false)
	k := &call{cb: cb, run: run}
	code := req.Code
	err := c.addCall(req, k, func(opaque int32) func() bool {
		return context.AfterFunc(ctx, func() {
			if c.takeCall(opaque) != nil {
				err := fmt.Errorf("remoting: %s to %s, opaque %d: %w", protocol.RequestCode(code), c.remote, opaque, ctx.Err())
				run(func() { cb(nil, err) })
			}
		})
	})
	if err != nil {
		release(req)
		run(func() { cb(nil, err) })
		return
	}
	opaque := req.Opaque
	if err := c.out.push(outFrame{cmd: req}); err != nil {
		if c.takeCall(opaque) != nil {
			k.finish(nil, err)
		}
	}
}

// InvokeOneway sends req with the oneway flag; no response is expected. It
// returns once the request is queued.
func (c *Conn) InvokeOneway(req *protocol.Command) error {
	prepareRequest(req, true)
	req.Opaque = c.opaque.Add(1)
	return c.out.push(outFrame{cmd: req})
}
