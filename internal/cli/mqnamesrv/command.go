// Package mqnamesrv is the mqnamesrv command: it parses the flags, loads namesrv.conf, maps it
// onto the name server's options (internal/config), runs the name server until SIGINT or SIGTERM
// and shuts it down.
package mqnamesrv

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/cli/clicommon"
	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/namesrv"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// NewCommand is mqnamesrv: `mqnamesrv [-c namesrv.conf] [-p]`.
func NewCommand() *cobra.Command {
	var (
		confPath string
		print    bool
		logs     clicommon.LogFlags
	)
	cmd := &cobra.Command{
		Use:           "mqnamesrv",
		Short:         "RocketMQ-compatible name server",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: false,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lg, err := logs.Logger()
			if err != nil {
				return err
			}
			defer func() { _ = lg.Sync() }()
			cfg, err := config.LoadNamesrv(confPath, nil, lg)
			if err != nil {
				return err
			}
			if print {
				clicommon.PrintFields(cmd.OutOrStdout(), cfg.Fields())
				return nil
			}
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
			opts := o.Namesrv
			opts.TLS, err = o.TLS.Server(lg)
			if err != nil {
				return err
			}
			if reg != nil {
				rpc, err := metrics.NewRPC(reg, metrics.Labels{NodeType: metrics.NodeTypeNameserver, Extra: opts.MetricLabels},
					metrics.RPCOptions{RequestCodeName: broker.RequestCodeName, ResponseCodeName: broker.ResponseCodeName})
				if err != nil {
					return err
				}
				opts.Observe = func(code protocol.RequestCode, respCode protocol.ResponseCode, d time.Duration) {
					rpc.Observe(int32(code), int32(respCode), d, false)
				}
			}
			var registerer prometheus.Registerer // stays a nil interface when metrics are off
			if reg != nil {
				registerer = reg
			}
			srv, err := namesrv.New(opts, lg, registerer)
			if err != nil {
				return err
			}
			if err := srv.Start(); err != nil {
				return err
			}
			lg.Sugar().Infof("The Name Server boot success. serializeType=JSON, address %s", srv.Addr())
			clicommon.WaitForSignal(cmd.Context(), lg)
			return srv.Close()
		},
	}
	cmd.Flags().StringVarP(&confPath, "configFile", "c", "", "name server config file (Java properties)")
	cmd.Flags().BoolVarP(&print, "printConfigItem", "p", false, "print the effective configuration and exit")
	logs.Register(cmd)
	return cmd
}
