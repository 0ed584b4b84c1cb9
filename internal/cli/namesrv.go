package cli

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/namesrv"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// NewNamesrvCommand is mqnamesrv: `mqnamesrv [-c namesrv.conf] [-p]`.
func NewNamesrvCommand() *cobra.Command {
	var (
		confPath string
		print    bool
		logs     logFlags
	)
	cmd := &cobra.Command{
		Use:           "mqnamesrv",
		Short:         "RocketMQ-compatible name server",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: false,
		RunE: func(cmd *cobra.Command, _ []string) error {
			lg, err := logs.logger()
			if err != nil {
				return err
			}
			defer func() { _ = lg.Sync() }()
			cfg, err := config.LoadNamesrv(confPath, nil, lg)
			if err != nil {
				return err
			}
			if print {
				printFields(cmd.OutOrStdout(), cfg.Fields())
				return nil
			}
			cfg.LogEffective(lg)
			reg, stopMetrics, err := metricsServer(cfg.MetricsExporterType.Enabled(), cfg.MetricsAddr(), lg)
			if err != nil {
				return err
			}
			defer stopMetrics()
			opts, err := namesrvOptions(cfg)
			if err != nil {
				return err
			}
			opts.TLS, err = serverTLS(tlsKeys{cfg.TLSServerMode, cfg.TLSServerCertPath, cfg.TLSServerKeyPath,
				cfg.TLSTestModeEnable}, lg)
			if err != nil {
				return err
			}
			if reg != nil {
				labels, _ := cfg.MetricsLabels()
				rpc, err := metrics.NewRPC(reg, metrics.Labels{NodeType: metrics.NodeTypeNameserver, Extra: labels},
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
			waitForSignal(cmd.Context(), lg)
			return srv.Close()
		},
	}
	cmd.Flags().StringVarP(&confPath, "configFile", "c", "", "name server config file (Java properties)")
	cmd.Flags().BoolVarP(&print, "printConfigItem", "p", false, "print the effective configuration and exit")
	logs.register(cmd)
	return cmd
}

// namesrvOptions maps namesrv.conf onto the name server's options.
func namesrvOptions(cfg *config.Namesrv) (namesrv.Options, error) {
	opts := namesrv.DefaultOptions()
	opts.ListenAddr = net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.ListenPort))
	opts.KVConfigPath = cfg.KVConfigPath
	opts.ScanNotActiveBrokerInterval = cfg.ScanNotActiveBrokerInterval.Duration()
	opts.BrokerChannelExpiredTime = cfg.BrokerChannelExpiredTime.Duration()
	opts.IdleTimeout = time.Duration(cfg.ServerChannelMaxIdleTimeSeconds) * time.Second
	opts.OrderMessageEnable = cfg.OrderMessageEnable
	opts.ReturnOrderTopicConfigToBroker = cfg.ReturnOrderTopicConfigToBroker
	opts.EnableAllTopicList = cfg.EnableAllTopicList
	opts.EnableTopicList = cfg.EnableTopicList
	opts.NeedWaitForService = cfg.NeedWaitForService
	opts.WaitForService = time.Duration(cfg.WaitSecondsForService) * time.Second
	opts.DeleteTopicWithBrokerRegistration = cfg.DeleteTopicWithBrokerRegistration
	labels, err := cfg.MetricsLabels()
	if err != nil {
		return opts, fmt.Errorf("metricsLabel: %w", err)
	}
	opts.MetricLabels = labels
	return opts, nil
}
