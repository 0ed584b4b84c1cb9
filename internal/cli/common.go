package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/logging"
	"github.com/rocketgo/rocketgo/internal/metrics"
)

// logFlags are the logging flags both servers take.
type logFlags struct {
	level  string
	format string
	output string
}

func (f *logFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.level, "log-level", "info", "log level: debug, info, warn, error")
	cmd.Flags().StringVar(&f.format, "log-format", "console", "log format: console or json")
	cmd.Flags().StringVar(&f.output, "log-file", "", "log to this file instead of stderr")
}

func (f *logFlags) logger() (*zap.Logger, error) {
	return logging.New(logging.Options{Level: f.level, Format: f.format, Output: f.output})
}

// printFields writes key=value lines (the -p flag, as Apache's -p prints the configuration).
func printFields(w io.Writer, fields []config.Field) {
	for _, f := range fields {
		fmt.Fprintf(w, "%s=%s\n", f.Key, f.Value)
	}
}

// metricsServer starts /metrics on l.Addr when l.Enabled; it returns a registry (nil when
// disabled) and a stop function.
func metricsServer(l config.MetricsListener, lg *zap.Logger) (*prometheus.Registry, func(), error) {
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

// brokerGCPercent is the broker's GOGC unless the environment sets one. The broker's heap is small
// (messages live in mapped files, not on the heap), so at Go's default of 100 the collector runs
// very often; 400 trades a few more megabytes of heap for a quarter of the GC work.
const brokerGCPercent = 400

// tuneGC applies brokerGCPercent when GOGC is not set.
func tuneGC(lg *zap.Logger) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(brokerGCPercent)
	lg.Info("GC target set", zap.Int("GOGC", brokerGCPercent))
}

// waitForSignal blocks until SIGINT or SIGTERM, or ctx ends.
func waitForSignal(ctx context.Context, lg *zap.Logger) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	lg.Info("shutting down")
}
