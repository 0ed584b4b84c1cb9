package remoting

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// ClientOptions configure a Client. Zero values take the defaults noted.
type ClientOptions struct {
	// DialTimeout bounds connecting. Default 3 s.
	DialTimeout time.Duration
	// RequestTimeout applies to calls whose ctx has no deadline. Default 3 s.
	RequestTimeout time.Duration
	// MaxFrameSize accepted from servers. Default protocol.MaxFrameSize.
	MaxFrameSize int
	// ReadBufferSize per connection. Default 16 KiB.
	ReadBufferSize int
	// WriteTimeout bounds one write. Default 30 s; negative means none.
	WriteTimeout time.Duration
	// Handler serves requests that servers send to this client (e.g.
	// NOTIFY_CONSUMER_IDS_CHANGED). Nil answers REQUEST_CODE_NOT_SUPPORTED.
	Handler Handler
	// MaxConcurrentRequests bounds server requests served at once.
	// Default 10000.
	MaxConcurrentRequests int
}

const defaultTimeout = 3 * time.Second

// Client sends requests to remoting servers over one connection per
// address, dialled on first use and again after it fails.
type Client struct {
	opts ClientOptions
	lg   *zap.Logger
	cfg  connConfig
	disp dispatcher
	bufs *buffers
	wg   sync.WaitGroup
	ids  atomic.Uint64

	mu struct {
		sync.Mutex
		closed bool
		conns  map[string]*clientConn
	}
}

// clientConn is one address's connection, or the dial in progress.
type clientConn struct {
	ready chan struct{} // closed when the dial is over
	conn  *Conn
	err   error
}

// NewClient returns a client. It starts no goroutine until it is used.
func NewClient(opts ClientOptions, lg *zap.Logger) *Client {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.DialTimeout <= 0 {
		opts.DialTimeout = defaultTimeout
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = defaultTimeout
	}
	if opts.MaxFrameSize <= 0 {
		opts.MaxFrameSize = protocol.MaxFrameSize
	}
	if opts.ReadBufferSize <= 0 {
		opts.ReadBufferSize = defaultReadBufferSize
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = defaultWriteTimeout
	}
	if opts.MaxConcurrentRequests <= 0 {
		opts.MaxConcurrentRequests = defaultMaxConcurrentRequests
	}
	c := &Client{opts: opts, lg: lg}
	c.disp = newDispatcher(lg, opts.MaxConcurrentRequests, &c.wg)
	c.bufs = &buffers{maxFrame: clientMaxPooledFrame}
	c.disp.fallback = opts.Handler
	c.cfg = connConfig{
		lg:           lg,
		maxFrame:     opts.MaxFrameSize,
		readBuffer:   opts.ReadBufferSize,
		writeTimeout: max(opts.WriteTimeout, 0),
		dispatcher:   &c.disp,
		bufs:         c.bufs,
	}
	c.mu.conns = make(map[string]*clientConn)
	return c
}

// Conn returns the connection to addr, dialling it if needed.
func (c *Client) Conn(ctx context.Context, addr string) (*Conn, error) {
	for {
		c.mu.Lock()
		if c.mu.closed {
			c.mu.Unlock()
			return nil, ErrClientClosed
		}
		cc, ok := c.mu.conns[addr]
		if !ok {
			cc = &clientConn{ready: make(chan struct{})}
			c.mu.conns[addr] = cc
			c.mu.Unlock()
			c.dial(ctx, addr, cc)
		} else {
			c.mu.Unlock()
		}
		select {
		case <-cc.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("remoting: connect to %s: %w", addr, ctx.Err())
		}
		if cc.err != nil {
			return nil, cc.err
		}
		if !cc.conn.Closed() {
			return cc.conn, nil
		}
		c.forget(addr, cc) // closed since; dial again
	}
}

func (c *Client) dial(ctx context.Context, addr string, cc *clientConn) {
	defer close(cc.ready)
	d := net.Dialer{Timeout: c.opts.DialTimeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		cc.err = fmt.Errorf("remoting: connect to %s: %w", addr, err)
		c.forget(addr, cc)
		return
	}
	conn := newConn(c.ids.Add(1), nc, &c.cfg)
	c.mu.Lock()
	if c.mu.closed {
		c.mu.Unlock()
		_ = nc.Close()
		cc.err = ErrClientClosed
		return
	}
	cc.conn = conn
	c.mu.Unlock()
	conn.OnClose(func() { c.forget(addr, cc) })
	conn.start(c.disp.tryGo)
	c.lg.Debug("connected", zap.String("addr", addr), zap.Uint64("conn", conn.id))
}

// forget drops addr's entry if it is still cc.
func (c *Client) forget(addr string, cc *clientConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.conns[addr] == cc {
		delete(c.mu.conns, addr)
	}
}

// Invoke sends req to addr and waits for the response. Without a deadline
// on ctx, RequestTimeout applies. It sets req.Opaque.
func (c *Client) Invoke(ctx context.Context, addr string, req *protocol.Command) (*protocol.Command, error) {
	ctx, cancel := ctxOrTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	conn, err := c.Conn(ctx, addr)
	if err != nil {
		release(req)
		return nil, err
	}
	return conn.Invoke(ctx, req)
}

// InvokeAsync sends req to addr and calls cb exactly once, on a goroutine
// of its own, with the response or an error. Without a deadline on ctx,
// RequestTimeout applies. Dialling, if needed, happens before it returns.
func (c *Client) InvokeAsync(ctx context.Context, addr string, req *protocol.Command, cb func(*protocol.Command, error)) {
	var deadline time.Time
	if _, ok := ctx.Deadline(); !ok {
		// The connection's deadline sweep ends the call: no context and
		// timer of its own.
		deadline = time.Now().Add(c.opts.RequestTimeout)
	}
	conn := c.ready(addr)
	if conn == nil {
		dctx, cancel := ctx, context.CancelFunc(func() {})
		if !deadline.IsZero() {
			dctx, cancel = context.WithDeadline(ctx, deadline)
		}
		var err error
		conn, err = c.Conn(dctx, addr)
		cancel()
		if err != nil {
			release(req)
			c.disp.callback(cb, nil, err)
			return
		}
	}
	conn.invokeAsync(ctx, req, cb, deadline)
}

// ready returns the open connection to addr, or nil if there is none yet.
func (c *Client) ready(addr string) *Conn {
	c.mu.Lock()
	cc := c.mu.conns[addr]
	c.mu.Unlock()
	if cc == nil {
		return nil
	}
	select {
	case <-cc.ready:
	default:
		return nil
	}
	if cc.err != nil || cc.conn.Closed() {
		return nil
	}
	return cc.conn
}

// InvokeOneway sends req to addr with the oneway flag and returns once it
// is queued. ctx bounds dialling.
func (c *Client) InvokeOneway(ctx context.Context, addr string, req *protocol.Command) error {
	ctx, cancel := ctxOrTimeout(ctx, c.opts.DialTimeout)
	defer cancel()
	conn, err := c.Conn(ctx, addr)
	if err != nil {
		release(req)
		return err
	}
	return conn.InvokeOneway(req)
}

// CloseConn closes the connection to addr, if any; the next call redials.
func (c *Client) CloseConn(addr string) {
	c.mu.Lock()
	cc := c.mu.conns[addr]
	c.mu.Unlock()
	if cc == nil {
		return
	}
	<-cc.ready
	if cc.conn != nil {
		cc.conn.shutdown(nil)
	}
}

// Close closes every connection, fails the calls waiting on them, and
// waits for the client's goroutines. It is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	c.mu.closed = true
	ccs := make([]*clientConn, 0, len(c.mu.conns))
	for _, cc := range c.mu.conns {
		ccs = append(ccs, cc)
	}
	c.mu.Unlock()
	for _, cc := range ccs {
		<-cc.ready
		if cc.conn != nil {
			cc.conn.shutdown(ErrClientClosed)
		}
	}
	c.disp.close()
	c.wg.Wait()
	return nil
}
