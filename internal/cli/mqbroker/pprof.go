package mqbroker

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// pprofListenAddr is where --pprof-addr listens: as given, or on bindAddress when it names only
// a port (":6060"), as every other listener of the broker follows bindAddress.
func pprofListenAddr(flag, bindAddress string) string {
	host, port, err := net.SplitHostPort(flag)
	if flag == "" || err != nil || host != "" {
		return flag
	}
	return net.JoinHostPort(config.SpecificHost(bindAddress), port)
}

// startPprof serves Go's profiles (/debug/pprof/) on addr when it is set; the returned function
// stops the server.
func startPprof(addr string, lg *zap.Logger) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	var g lifecycle.Group
	g.Go(func(<-chan struct{}) {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			lg.Error("pprof server stopped", zap.Error(err))
		}
	})
	lg.Info("serving Go profiles", zap.String("addr", ln.Addr().String()))
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		g.Stop()
	}, nil
}
