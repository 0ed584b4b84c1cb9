// Package mqbroker is the mqbroker command: it parses the flags, loads broker.conf, maps it onto
// the broker's options (internal/config), builds the logger from the file's logging keys and the
// flags, runs the broker until SIGINT or SIGTERM and shuts it down once, whatever signals follow.
package mqbroker

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/cli/clicommon"
	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/logging"
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
	startup := clicommon.NewStartup()
	overrides := map[string]string{}
	if f.namesrvAddr != "" {
		overrides["namesrvAddr"] = f.namesrvAddr
	}
	cfg, err := config.LoadBroker(f.confPath, overrides, startup.Logger())
	if err != nil {
		return f.logs.Report(startup, err)
	}
	if f.print {
		clicommon.PrintFields(cmd.OutOrStdout(), cfg.Fields())
		return f.logs.Report(startup, nil)
	}
	opts, err := cfg.Options()
	if err != nil {
		return f.logs.Report(startup, err)
	}
	lg, err := f.logs.Open(opts.Log, "broker", startup)
	if err != nil {
		return err
	}
	defer func() { _ = lg.Close() }()
	return f.serve(cmd.Context(), cfg, opts, lg)
}

// serve runs the broker cfg describes until SIGINT or SIGTERM, or ctx ends, then stops it: the
// broker (unregistering from the name servers, closing the store cleanly) before the metrics and
// health listener, which answers /readyz "shutting down" meanwhile.
func (f *flags) serve(ctx context.Context, cfg *config.Broker, opts config.BrokerOptions, lg *logging.Logger) error {
	signals := clicommon.NotifySignals(lg.Logger, lg.Reopen)
	cfg.LogEffective(lg.Logger)
	tuneGC(lg.Logger)
	stopPprof, err := startPprof(pprofListenAddr(f.pprofAddr, cfg.BindAddress), lg.Logger)
	if err != nil {
		return err
	}
	defer stopPprof()
	var ready clicommon.Readiness
	reg, stopMetrics, err := clicommon.MetricsServer(opts.Metrics, lg.Logger, &ready)
	if err != nil {
		return err
	}
	defer stopMetrics()
	b, err := newBroker(opts, reg, lg.Logger)
	if err != nil {
		return err
	}
	if err := b.Start(); err != nil {
		_ = b.Close()
		return err
	}
	ready.Serving(b.Ready)
	lg.Sugar().Infof("The broker[%s, %s] boot success. serializeType=JSON and name server is %s",
		cfg.BrokerName, cfg.BrokerAddr(), cfg.NamesrvAddr)
	signals.Wait(ctx)
	ready.Stopping()
	return signals.Shutdown(b.Close)
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
