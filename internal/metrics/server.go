package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// Server serves GET /metrics from one registry, and the health probes: GET /healthz (200 while
// the process serves HTTP: liveness) and GET /readyz (200 when the readiness function set with
// SetReadiness reports nil, else 503 with the reason). Create it with NewServer, then Start and
// Close.
type Server struct {
	addr  string
	srv   *http.Server
	lg    *zap.Logger
	ready atomic.Pointer[func() error]

	mu      sync.Mutex
	ln      net.Listener
	started bool
	closed  bool
	serving lifecycle.Group // the Serve goroutine
}

// NewServer returns a server for g on addr ("host:port"; an empty host listens on every
// interface, port 0 on a free port). Nothing listens before Start.
func NewServer(addr string, g prometheus.Gatherer, lg *zap.Logger) *Server {
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Server{addr: addr, lg: lg}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorLog:      zap.NewStdLog(lg),
		ErrorHandling: promhttp.ContinueOnError,
	}))
	mux.HandleFunc("GET "+LivenessPath, func(w http.ResponseWriter, _ *http.Request) { probeAnswer(w, nil, "ok") })
	mux.HandleFunc("GET "+ReadinessPath, s.serveReady)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return s
}

// The paths of the health probes.
const (
	LivenessPath  = "/healthz"
	ReadinessPath = "/readyz"
)

// SetReadiness sets the function GET /readyz asks: nil means ready, an error says why not. Before
// it is set the server answers 503 "starting".
func (s *Server) SetReadiness(ready func() error) { s.ready.Store(&ready) }

func (s *Server) serveReady(w http.ResponseWriter, _ *http.Request) {
	err := errors.New("starting")
	if f := s.ready.Load(); f != nil && *f != nil {
		err = (*f)()
	}
	probeAnswer(w, err, "ready")
}

// probeAnswer writes 200 and ok, or 503 and err's text.
func probeAnswer(w http.ResponseWriter, err error, ok string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, "not ready: %v\n", err)
		return
	}
	_, _ = fmt.Fprintln(w, ok)
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
	s.lg.Info("metrics: serving /metrics, /healthz and /readyz", zap.String("addr", ln.Addr().String()))
	s.serving.Go(func(<-chan struct{}) {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.lg.Error("metrics: server stopped", zap.Error(err))
		}
	})
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
	s.serving.Stop()
	if err != nil {
		return fmt.Errorf("metrics: shutdown: %w", err)
	}
	return nil
}
