package remoting

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// ServerOptions configure a Server. Zero values take the defaults noted.
type ServerOptions struct {
	// Addr to listen on, "host:port"; ":0" picks a free port. Default ":0".
	Addr string
	// MaxFrameSize is the largest frame accepted, length field included.
	// Default protocol.MaxFrameSize (16 MiB).
	MaxFrameSize int
	// MaxConcurrentRequests bounds the requests being served at once across
	// all connections; beyond it requests get SYSTEM_BUSY. Default 10000
	// (Java's send thread pool queue capacity).
	MaxConcurrentRequests int
	// ReadBufferSize per connection. Default 16 KiB.
	ReadBufferSize int
	// Limits bound connections, their idle time and their queued bytes (see
	// Limits; Java's serverChannelMaxIdleTimeSeconds is 120 s).
	Limits
	// WriteTimeout bounds one write; a peer that stops reading is closed.
	// Default 30 s; negative means none.
	WriteTimeout time.Duration
	// OnConnect and OnDisconnect, if set, run when a connection starts
	// (before its first request) and once it has ended.
	OnConnect    func(c *Conn)
	OnDisconnect func(c *Conn)
	// Observe, if set, is called once for every response written: the
	// request code, the response code and the time since the request
	// arrived. It runs on the connection's writer goroutine.
	Observe func(code protocol.RequestCode, respCode protocol.ResponseCode, d time.Duration)
	// Intercept, if set, sees every request that has a handler before the
	// handler does (e.g. an access check); see Interceptor.
	Intercept Interceptor
	// TLS selects plain TCP (the zero value), TLS beside plain TCP, or TLS
	// only; see TLSMode. Start fails if a TLS mode has no certificate.
	TLS TLSOptions
	// ConnIDs numbers the connections (Conn.ID). Servers that serve the same
	// handlers on two ports (the broker's VIP channel) share one, so that a
	// connection id names one connection across them. Default: the server's own.
	ConnIDs *atomic.Uint64
	// InOrder, if set, names the oneway requests served on their connection's reader, so that
	// the connection's next request sees their effect: requests are otherwise served at once
	// and may finish in any order. A Java consumer whose offsets an admin resets commits each
	// offset oneway and queries it at once. Such handlers must be quick: the connection reads
	// nothing meanwhile.
	InOrder func(code protocol.RequestCode) bool
}

const (
	defaultMaxConcurrentRequests = 10000
	defaultReadBufferSize        = 16 << 10
	defaultWriteTimeout          = 30 * time.Second
)

func (o *ServerOptions) setDefaults() {
	if o.Addr == "" {
		o.Addr = ":0"
	}
	if o.ConnIDs == nil {
		o.ConnIDs = new(atomic.Uint64)
	}
	if o.MaxFrameSize <= 0 {
		o.MaxFrameSize = protocol.MaxFrameSize
	}
	if o.MaxConcurrentRequests <= 0 {
		o.MaxConcurrentRequests = defaultMaxConcurrentRequests
	}
	if o.ReadBufferSize <= 0 {
		o.ReadBufferSize = defaultReadBufferSize
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = defaultWriteTimeout
	}
	if o.TLS.HandshakeTimeout <= 0 {
		o.TLS.HandshakeTimeout = defaultHandshakeTimeout
	}
	o.Limits.setDefaults()
}

// Server accepts remoting connections and serves their requests.
type Server struct {
	opts ServerOptions
	lg   *zap.Logger
	cfg  connConfig
	disp dispatcher
	bufs *buffers
	wg   sync.WaitGroup
	// refused counts connections closed at the limit since the last log line, written at
	// lastRefusalLog (unix nanoseconds).
	refused        atomic.Int64
	lastRefusalLog atomic.Int64

	mu struct {
		sync.Mutex
		ln      net.Listener
		started bool
		closed  bool
		conns   map[*Conn]struct{}
		// detecting holds accepted connections whose first byte is awaited
		// to tell TLS from plain TCP.
		detecting map[net.Conn]struct{}
	}
}

// NewServer returns a server; register handlers, then Start it.
func NewServer(opts ServerOptions, lg *zap.Logger) *Server {
	if lg == nil {
		lg = zap.NewNop()
	}
	opts.setDefaults()
	s := &Server{opts: opts, lg: lg, bufs: new(buffers)}
	s.disp = newDispatcher(lg, opts.MaxConcurrentRequests, &s.wg)
	s.disp.observe = opts.Observe
	s.disp.inOrder = opts.InOrder
	writeTimeout := opts.WriteTimeout
	if writeTimeout < 0 {
		writeTimeout = 0
	}
	s.cfg = connConfig{
		lg:           lg,
		maxFrame:     opts.MaxFrameSize,
		readBuffer:   opts.ReadBufferSize,
		idleTimeout:  opts.IdleTimeout,
		writeTimeout: writeTimeout,
		dispatcher:   &s.disp,
		bufs:         s.bufs,
		limits:       newConnLimits(opts.Limits),
	}
	s.mu.conns = make(map[*Conn]struct{})
	s.mu.detecting = make(map[net.Conn]struct{})
	return s
}

// Handle registers h for requests with code. It must be called before Start.
func (s *Server) Handle(code protocol.RequestCode, h Handler) {
	s.mustNotBeStarted()
	s.disp.handlers[code] = s.withIntercept(h)
}

// HandleInline registers h for requests with code, run on the connection's reader instead of a
// worker: one goroutine handoff less per request, for handlers that never block (a send that
// appends and answers, or leaves its answer to a later WriteResponse). The connection reads
// nothing else while h runs. It must be called before Start.
func (s *Server) HandleInline(code protocol.RequestCode, h Handler) {
	s.Handle(code, h)
	s.disp.inline[code] = true
}

// HandleDefault registers h for codes that have no handler of their own
// (Java's default processor). Without it they get REQUEST_CODE_NOT_SUPPORTED.
func (s *Server) HandleDefault(h Handler) {
	s.mustNotBeStarted()
	s.disp.fallback = s.withIntercept(h)
}

func (s *Server) mustNotBeStarted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.started {
		panic("remoting: handler registered after Start")
	}
}

// Start listens on Addr and starts accepting connections.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return ErrServerClosed
	}
	if s.mu.started {
		return errors.New("remoting: server already started")
	}
	if err := s.opts.TLS.check(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("remoting: listen %s: %w", s.opts.Addr, err)
	}
	s.mu.ln, s.mu.started = ln, true
	s.wg.Add(1)
	go s.acceptLoop(ln)
	s.lg.Info("remoting server listening", zap.Stringer("addr", ln.Addr()))
	return nil
}

// Addr is the listening address, nil before Start.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.ln == nil {
		return nil
	}
	return s.mu.ln.Addr()
}

// Close stops accepting, closes every connection and waits for the
// server's goroutines, handlers included, to finish. It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return nil
	}
	s.mu.closed = true
	ln := s.mu.ln
	conns := make([]*Conn, 0, len(s.mu.conns))
	for c := range s.mu.conns {
		conns = append(conns, c)
	}
	detecting := make([]net.Conn, 0, len(s.mu.detecting))
	for nc := range s.mu.detecting {
		detecting = append(detecting, nc)
	}
	s.mu.Unlock()

	var err error
	if ln != nil {
		err = ln.Close()
	}
	for _, nc := range detecting {
		_ = nc.Close()
	}
	for _, c := range conns {
		c.shutdown(ErrServerClosed)
	}
	s.disp.close()
	s.wg.Wait()
	return err
}

func (s *Server) acceptLoop(ln net.Listener) {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.lg.Warn("accept failed; retrying", zap.Error(err), zap.Duration("backoff", backoff))
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if !s.acceptLimit() {
			_ = nc.Close()
			continue
		}
		if s.opts.TLS.Mode == TLSDisabled {
			s.serveConn(nc)
		} else {
			s.detect(nc)
		}
	}
}

// detect serves nc once acceptTLS, on a goroutine of its own, has told TLS
// from plain TCP.
func (s *Server) detect(nc net.Conn) {
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	s.mu.detecting[nc] = struct{}{}
	s.mu.Unlock()
	if !s.disp.tryGo(func() { s.acceptTLSGuarded(nc) }) {
		s.doneDetecting(nc)
		_ = nc.Close()
	}
}

// acceptTLSGuarded is acceptTLS; a panic (a bug) is logged and closes nc.
func (s *Server) acceptTLSGuarded(nc net.Conn) {
	defer func() {
		if r := recover(); r != nil {
			s.lg.Error("TLS detection panicked; closing the connection", zap.Any("panic", r), zap.Stack("stack"))
			_ = nc.Close()
		}
	}()
	s.acceptTLS(nc)
}

func (s *Server) doneDetecting(nc net.Conn) {
	s.mu.Lock()
	delete(s.mu.detecting, nc)
	s.mu.Unlock()
}

func (s *Server) serveConn(nc net.Conn) {
	c := newConn(s.opts.ConnIDs.Add(1), nc, &s.cfg)
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		_ = nc.Close()
		return
	}
	s.mu.conns[c] = struct{}{}
	s.mu.Unlock()

	c.lg.Debug("connection accepted")
	if s.opts.OnConnect != nil {
		c.runHook(func() { s.opts.OnConnect(c) })
	}
	c.OnClose(func() {
		s.mu.Lock()
		delete(s.mu.conns, c)
		s.mu.Unlock()
		if s.opts.OnDisconnect != nil {
			s.opts.OnDisconnect(c)
		}
	})
	c.start(s.disp.tryGo)
}
