// Package mqnamesrv is the mqnamesrv command: it parses the flags, loads namesrv.conf, maps it
// onto the name server's options (internal/config), builds the logger from the file's logging keys
// and the flags, runs the name server until SIGINT or SIGTERM and shuts it down once, whatever
// signals follow.
package mqnamesrv

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/cli/clicommon"
	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/logging"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/namesrv"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// flags are mqnamesrv's command line.
type flags struct {
	confPath string
	print    bool
	logs     clicommon.LogFlags
}

// NewCommand is mqnamesrv: `mqnamesrv [-c namesrv.conf] [-p]`.
func NewCommand() *cobra.Command {
	f := &flags{}
	cmd := &cobra.Command{
		Use:           "mqnamesrv",
		Short:         "RocketMQ-compatible name server",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: false,
		RunE:          func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	cmd.Flags().StringVarP(&f.confPath, "configFile", "c", "", "name server config file (Java properties)")
	cmd.Flags().BoolVarP(&f.print, "printConfigItem", "p", false, "print the effective configuration and exit")
	f.logs.Register(cmd)
	return cmd
}

// run loads namesrv.conf, then prints it (-p) or serves it.
func (f *flags) run(cmd *cobra.Command) error {
	startup := clicommon.NewStartup()
	cfg, err := config.LoadNamesrv(f.confPath, nil, startup.Logger())
	if err != nil {
		return f.logs.Report(startup, err)
	}
	if f.print {
		clicommon.PrintFields(cmd.OutOrStdout(), cfg.Fields())
		return f.logs.Report(startup, nil)
	}
	o, err := cfg.Options()
	if err != nil {
		return f.logs.Report(startup, err)
	}
	lg, err := f.logs.Open(o.Log, "namesrv", startup)
	if err != nil {
		return err
	}
	defer func() { _ = lg.Close() }()
	return serve(cmd.Context(), cfg, o, lg)
}

// serve runs the name server cfg describes until SIGINT or SIGTERM, or ctx ends, then stops it
// before the metrics and health listener.
func serve(ctx context.Context, cfg *config.Namesrv, o config.NamesrvOptions, lg *logging.Logger) error {
	signals := clicommon.NotifySignals(lg.Logger, lg.Reopen)
	cfg.LogEffective(lg.Logger)
	var ready clicommon.Readiness
	reg, stopMetrics, err := clicommon.MetricsServer(o.Metrics, lg.Logger, &ready)
	if err != nil {
		return err
	}
	defer stopMetrics()
	srv, err := newServer(o, reg, lg.Logger)
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	ready.Serving(routesServed(o.Namesrv, time.Now()))
	lg.Sugar().Infof("The Name Server boot success. serializeType=JSON, address %s", srv.Addr())
	signals.Wait(ctx)
	ready.Stopping()
	return signals.Shutdown(srv.Close)
}

// routesServed is the name server's readiness once it listens: ready, unless needWaitForService
// makes it refuse routes for waitSecondsForService after start.
func routesServed(o namesrv.Options, started time.Time) func() error {
	return func() error {
		if o.NeedWaitForService && time.Since(started) < o.WaitForService {
			return fmt.Errorf("needWaitForService: routes are refused for %v after start", o.WaitForService)
		}
		return nil
	}
}

// newServer builds the name server with its TLS certificate loaded and, when reg is set, its
// metrics.
func newServer(o config.NamesrvOptions, reg *prometheus.Registry, lg *zap.Logger) (*namesrv.Server, error) {
	opts := o.Namesrv
	var err error
	if opts.TLS, err = o.TLS.Server(lg); err != nil {
		return nil, err
	}
	var registerer prometheus.Registerer // stays a nil interface when metrics are off
	if reg != nil {
		if opts.Observe, err = observeRPC(reg, opts.MetricLabels); err != nil {
			return nil, err
		}
		// the name server's own series carry node_type as its rpc latency does
		registerer = prometheus.WrapRegistererWith(prometheus.Labels{"node_type": metrics.NodeTypeNameserver}, reg)
	}
	return namesrv.New(opts, lg, registerer)
}

// observeRPC registers the RPC metrics on reg and returns the function that records one.
func observeRPC(reg *prometheus.Registry, labels map[string]string) (
	func(protocol.RequestCode, protocol.ResponseCode, time.Duration), error) {
	rpc, err := metrics.NewRPC(reg, metrics.Labels{NodeType: metrics.NodeTypeNameserver, Extra: labels},
		metrics.RPCOptions{RequestCodeName: broker.RequestCodeName, ResponseCodeName: broker.ResponseCodeName})
	if err != nil {
		return nil, err
	}
	return func(code protocol.RequestCode, respCode protocol.ResponseCode, d time.Duration) {
		rpc.Observe(int32(code), int32(respCode), d, false)
	}, nil
}
