// Package clicommon is what the server commands (mqbroker, mqnamesrv) share: the logging flags and
// the logger built from them and the file's keys, the -p listing, the /metrics and health
// listener with its readiness, and the signal handling from start-up to exit (SIGINT and SIGTERM
// stop the server once, whatever follows; SIGHUP reopens the log file).
package clicommon

import (
	"fmt"
	"io"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/metrics"
)

// PrintFields writes key=value lines (the -p flag, as Apache's -p prints the configuration).
func PrintFields(w io.Writer, fields []config.Field) {
	for _, f := range fields {
		fmt.Fprintf(w, "%s=%s\n", f.Key, f.Value)
	}
}

// MetricsServer starts /metrics, /healthz and /readyz on l.Addr when l.Enabled, /readyz answering
// what ready says; it returns a registry (nil when disabled) and a stop function.
func MetricsServer(l config.MetricsListener, lg *zap.Logger, ready *Readiness) (*prometheus.Registry, func(), error) {
	if !l.Enabled {
		return nil, func() {}, nil
	}
	addr := l.Addr
	reg := metrics.NewRegistry()
	srv := metrics.NewServer(addr, reg, lg.Named("metrics"))
	srv.SetReadiness(ready.Ready)
	if err := srv.Start(); err != nil {
		return nil, nil, fmt.Errorf("metrics on %s: %w", addr, err)
	}
	return reg, func() { _ = srv.Close() }, nil
}
