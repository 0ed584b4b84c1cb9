// Package clicommon is what the server commands (mqbroker, mqnamesrv) share: the logging flags,
// the -p listing, the /metrics listener and waiting for SIGINT or SIGTERM.
package clicommon

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/logging"
	"github.com/rocketgo/rocketgo/internal/metrics"
)

// LogFlags are the logging flags both servers take.
type LogFlags struct {
	level  string
	format string
	output string
}

// Register adds --log-level, --log-format and --log-file to cmd.
func (f *LogFlags) Register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.level, "log-level", "info", "log level: debug, info, warn, error")
	cmd.Flags().StringVar(&f.format, "log-format", "console", "log format: console or json")
	cmd.Flags().StringVar(&f.output, "log-file", "", "log to this file instead of stderr")
}

// Logger builds the logger the flags select.
func (f *LogFlags) Logger() (*zap.Logger, error) {
	return logging.New(logging.Options{Level: f.level, Format: f.format, Output: f.output})
}

// PrintFields writes key=value lines (the -p flag, as Apache's -p prints the configuration).
func PrintFields(w io.Writer, fields []config.Field) {
	for _, f := range fields {
		fmt.Fprintf(w, "%s=%s\n", f.Key, f.Value)
	}
}

// MetricsServer starts /metrics on l.Addr when l.Enabled; it returns a registry (nil when
// disabled) and a stop function.
func MetricsServer(l config.MetricsListener, lg *zap.Logger) (*prometheus.Registry, func(), error) {
	if !l.Enabled {
		return nil, func() {}, nil
	}
	addr := l.Addr
	reg := metrics.NewRegistry()
	srv := metrics.NewServer(addr, reg, lg.Named("metrics"))
	if err := srv.Start(); err != nil {
		return nil, nil, fmt.Errorf("metrics on %s: %w", addr, err)
	}
	lg.Info("metrics listening", zap.String("addr", srv.Addr()))
	return reg, func() { _ = srv.Close() }, nil
}

// WaitForSignal blocks until SIGINT or SIGTERM, or ctx ends.
func WaitForSignal(ctx context.Context, lg *zap.Logger) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	lg.Info("shutting down")
}
