// Package mqnamesrv is the mqnamesrv command: it parses the flags, loads namesrv.conf, maps it
// onto the name server's options (internal/config), runs the name server until SIGINT or SIGTERM
// and shuts it down.
package mqnamesrv

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/cli/clicommon"
	"github.com/rocketgo/rocketgo/internal/config"
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
	lg, err := f.logs.Logger()
	if err != nil {
		return err
	}
	defer func() { _ = lg.Sync() }()
	cfg, err := config.LoadNamesrv(f.confPath, nil, lg)
	if err != nil {
		return err
	}
	if f.print {
		clicommon.PrintFields(cmd.OutOrStdout(), cfg.Fields())
		return nil
	}
	return serve(cmd.Context(), cfg, lg)
}

// serve runs the name server cfg describes until SIGINT or SIGTERM, or ctx ends.
func serve(ctx context.Context, cfg *config.Namesrv, lg *zap.Logger) error {
	cfg.LogEffective(lg)
	o, err := cfg.Options()
	if err != nil {
		return err
	}
	reg, stopMetrics, err := clicommon.MetricsServer(o.Metrics, lg)
	if err != nil {
		return err
	}
	defer stopMetrics()
	srv, err := newServer(o, reg, lg)
	if err != nil {
		return err
	}
	if err := srv.Start(); err != nil {
		return err
	}
	lg.Sugar().Infof("The Name Server boot success. serializeType=JSON, address %s", srv.Addr())
	clicommon.WaitForSignal(ctx, lg)
	return srv.Close()
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
