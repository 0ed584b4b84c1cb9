// Package mqbroker is the mqbroker command: it parses the flags, loads broker.conf, maps it onto
// the broker's options (internal/config), runs the broker until SIGINT or SIGTERM and shuts it
// down.
package mqbroker

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/cli/clicommon"
	"github.com/rocketgo/rocketgo/internal/config"
)

// flags are mqbroker's command line.
type flags struct {
	confPath    string
	namesrvAddr string
	print       bool
	pprofAddr   string
	logs        clicommon.LogFlags
}

// NewCommand is mqbroker: `mqbroker -c broker.conf [-n host:port] [-p]`, as with Apache.
func NewCommand() *cobra.Command {
	f := &flags{}
	cmd := &cobra.Command{
		Use:          "mqbroker",
		Short:        "RocketMQ-compatible broker",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE:         func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	cmd.Flags().StringVarP(&f.confPath, "configFile", "c", "", "broker config file (Java properties, e.g. conf/broker.conf)")
	cmd.Flags().StringVarP(&f.namesrvAddr, "namesrvAddr", "n", "", "name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876'")
	cmd.Flags().BoolVarP(&f.print, "printConfigItem", "p", false, "print the effective configuration and exit")
	cmd.Flags().StringVar(&f.pprofAddr, "pprof-addr", "", "serve Go profiles (/debug/pprof/) on this host:port (\":port\": on bindAddress)")
	f.logs.Register(cmd)
	return cmd
}

// run loads broker.conf, then prints it (-p) or serves it.
func (f *flags) run(cmd *cobra.Command) error {
	lg, err := f.logs.Logger()
	if err != nil {
		return err
	}
	defer func() { _ = lg.Sync() }()
	overrides := map[string]string{}
	if f.namesrvAddr != "" {
		overrides["namesrvAddr"] = f.namesrvAddr
	}
	cfg, err := config.LoadBroker(f.confPath, overrides, lg)
	if err != nil {
		return err
	}
	if f.print {
		clicommon.PrintFields(cmd.OutOrStdout(), cfg.Fields())
		return nil
	}
	return f.serve(cmd.Context(), cfg, lg)
}

// serve runs the broker cfg describes until SIGINT or SIGTERM, or ctx ends.
func (f *flags) serve(ctx context.Context, cfg *config.Broker, lg *zap.Logger) error {
	cfg.LogEffective(lg)
	tuneGC(lg)
	stopPprof, err := startPprof(pprofListenAddr(f.pprofAddr, cfg.BindAddress), lg)
	if err != nil {
		return err
	}
	defer stopPprof()
	opts, err := cfg.Options()
	if err != nil {
		return err
	}
	reg, stopMetrics, err := clicommon.MetricsServer(opts.Metrics, lg)
	if err != nil {
		return err
	}
	defer stopMetrics()
	b, err := newBroker(opts, reg, lg)
	if err != nil {
		return err
	}
	if err := b.Start(); err != nil {
		_ = b.Close()
		return err
	}
	lg.Sugar().Infof("The broker[%s, %s] boot success. serializeType=JSON and name server is %s",
		cfg.BrokerName, cfg.BrokerAddr(), cfg.NamesrvAddr)
	clicommon.WaitForSignal(ctx, lg)
	return b.Close()
}

// newBroker builds the broker with its TLS certificate loaded and, when reg is set, its metrics.
func newBroker(opts config.BrokerOptions, reg *prometheus.Registry, lg *zap.Logger) (*broker.Broker, error) {
	var err error
	if opts.Broker.TLS, err = opts.TLS.Server(lg); err != nil {
		return nil, err
	}
	if reg != nil { // a nil *Registry must stay a nil Registerer
		opts.Broker.Metrics = reg
	}
	return broker.New(opts.Broker, lg)
}
