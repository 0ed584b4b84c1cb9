package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
)

// Server serves GET /metrics from one registry. Create it with NewServer, then Start and Close.
type Server struct {
	addr string
	srv  *http.Server
	lg   *zap.Logger

	mu      sync.Mutex
	ln      net.Listener
	started bool
	closed  bool
	done    chan struct{}
}

// NewServer returns a server for g on addr ("host:port"; an empty host listens on every
// interface, port 0 on a free port). Nothing listens before Start.
func NewServer(addr string, g prometheus.Gatherer, lg *zap.Logger) *Server {
	if lg == nil {
		lg = zap.NewNop()
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorLog:      zap.NewStdLog(lg),
		ErrorHandling: promhttp.ContinueOnError,
	}))
	return &Server{
		addr: addr,
		lg:   lg,
		srv:  &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
	}
}

// Start listens and serves in a goroutine that Close stops.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("metrics: server closed")
	}
	if s.started {
		return errors.New("metrics: server already started")
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("metrics: listen %s: %w", s.addr, err)
	}
	s.ln, s.started = ln, true
	s.lg.Info("metrics: serving /metrics", zap.String("addr", ln.Addr().String()))
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.lg.Error("metrics: server stopped", zap.Error(err))
		}
	}()
	return nil
}

// Addr is the address listened on once started (with the port chosen for port 0), else the
// configured address.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return s.ln.Addr().String()
	}
	return s.addr
}

// Close stops serving and waits for the serving goroutine. It is safe to call more than once
// and before Start.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	started := s.started
	s.mu.Unlock()
	if !started {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close() // a scrape outlived the grace period: cut it
	}
	<-s.done
	if err != nil {
		return fmt.Errorf("metrics: shutdown: %w", err)
	}
	return nil
}
