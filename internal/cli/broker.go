package cli

import (
	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/config"
)

// NewBrokerCommand is mqbroker: `mqbroker -c broker.conf [-n host:port] [-p]`, as with Apache.
func NewBrokerCommand() *cobra.Command {
	var (
		confPath    string
		namesrvAddr string
		print       bool
		pprofAddr   string
		logs        logFlags
	)
	cmd := &cobra.Command{
		Use:          "mqbroker",
		Short:        "RocketMQ-compatible broker",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lg, err := logs.logger()
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
				printFields(cmd.OutOrStdout(), cfg.Fields())
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
			reg, stopMetrics, err := metricsServer(opts.Metrics, lg)
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
			waitForSignal(cmd.Context(), lg)
			return b.Close()
		},
	}
	cmd.Flags().StringVarP(&confPath, "configFile", "c", "", "broker config file (Java properties, e.g. conf/broker.conf)")
	cmd.Flags().StringVarP(&namesrvAddr, "namesrvAddr", "n", "", "name server address list, e.g. '192.168.0.1:9876;192.168.0.2:9876'")
	cmd.Flags().BoolVarP(&print, "printConfigItem", "p", false, "print the effective configuration and exit")
	cmd.Flags().StringVar(&pprofAddr, "pprof-addr", "", "serve Go profiles (/debug/pprof/) on this host:port")
	logs.register(cmd)
	return cmd
}
