// Package mqbroker is the mqbroker command: it parses the flags, loads broker.conf, maps it onto
// the broker's options (internal/config), runs the broker until SIGINT or SIGTERM and shuts it
// down.
package mqbroker

import (
	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/cli/clicommon"
	"github.com/rocketgo/rocketgo/internal/config"
)

// NewCommand is mqbroker: `mqbroker -c broker.conf [-n host:port] [-p]`, as with Apache.
func NewCommand() *cobra.Command {
	var (
		confPath    string
		namesrvAddr string
		print       bool
		pprofAddr   string
		logs        clicommon.LogFlags
	)
	cmd := &cobra.Command{
		Use:          "mqbroker",
		Short:        "RocketMQ-compatible broker",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lg, err := logs.Logger()
			if err != nil {
				return err
			}
			defer func() { _ = lg.Sync() }()
			overrides := map[string]string{}
			if namesrvAddr != "" {
				overrides["namesrvAddr"] = namesrvAddr
			}
			cfg, err := config.LoadBroker(confPath, overrides, lg)
			if err != nil {
				return err
			}
			if print {
				clicommon.PrintFields(cmd.OutOrStdout(), cfg.Fields())
				return nil
			}
			cfg.LogEffective(lg)
			tuneGC(lg)
			stopPprof, err := startPprof(pprofAddr, lg)
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
			opts.Broker.TLS, err = opts.TLS.Server(lg)
			if err != nil {
				return err
			}
			if reg != nil {
				opts.Broker.Metrics = reg
			}
			b, err := broker.New(opts.Broker, lg)
			if err != nil {
				return err
			}
			if err := b.Start(); err != nil {
				_ = b.Close()
				return err
			}
			lg.Sugar().Infof("The broker[%s, %s] boot success. serializeType=JSON and name server is %s",
				cfg.BrokerName, cfg.BrokerAddr(), cfg.NamesrvAddr)
			clicommon.WaitForSignal(cmd.Context(), lg)
			return b.Close()
		},
	}
	cmd.Flags().StringVarP(&confPath, "configFile", "c", "", "broker config file (Java properties, e.g. conf/broker.conf)")
	cmd.Flags().StringVarP(&namesrvAddr, "namesrvAddr", "n", "", "name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876'")
	cmd.Flags().BoolVarP(&print, "printConfigItem", "p", false, "print the effective configuration and exit")
	cmd.Flags().StringVar(&pprofAddr, "pprof-addr", "", "serve Go profiles (/debug/pprof/) on this host:port")
	logs.Register(cmd)
	return cmd
}
