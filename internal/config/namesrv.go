package config

import (
	"errors"
	"path/filepath"
	"reflect"

	"go.uber.org/zap"
)

// Namesrv is the schema of namesrv.conf: keys of RocketMQ's NamesrvConfig and NettyServerConfig,
// plus brokerChannelExpiredTime (Java hard-codes the 120 s broker expiry) and the broker's metrics
// keys. Tags work as on Broker.
type Namesrv struct {
	ListenPort                        int    `mapstructure:"listenPort" check:"port"`
	BindAddress                       string `mapstructure:"bindAddress"`
	ServerChannelMaxIdleTimeSeconds   int    `mapstructure:"serverChannelMaxIdleTimeSeconds"`
	KVConfigPath                      string `mapstructure:"kvConfigPath"`
	ProductEnvName                    string `mapstructure:"productEnvName"`
	ClusterTest                       bool   `mapstructure:"clusterTest"`
	OrderMessageEnable                bool   `mapstructure:"orderMessageEnable"`
	ReturnOrderTopicConfigToBroker    bool   `mapstructure:"returnOrderTopicConfigToBroker"`
	ScanNotActiveBrokerInterval       Millis `mapstructure:"scanNotActiveBrokerInterval" check:"pos"`
	BrokerChannelExpiredTime          Millis `mapstructure:"brokerChannelExpiredTime" check:"pos"`
	EnableAllTopicList                bool   `mapstructure:"enableAllTopicList"`
	EnableTopicList                   bool   `mapstructure:"enableTopicList"`
	NeedWaitForService                bool   `mapstructure:"needWaitForService"`
	WaitSecondsForService             int    `mapstructure:"waitSecondsForService"`
	DeleteTopicWithBrokerRegistration bool   `mapstructure:"deleteTopicWithBrokerRegistration"`

	MetricsExporterType     MetricsExporterType `mapstructure:"metricsExporterType"`
	MetricsPromExporterHost string              `mapstructure:"metricsPromExporterHost"`
	MetricsPromExporterPort int                 `mapstructure:"metricsPromExporterPort" check:"port"`
	MetricsLabel            string              `mapstructure:"metricsLabel"`

	// TLS (Java's -Dtls.* system properties), as in broker.conf.
	TLSServerMode     TLSMode `mapstructure:"tls.server.mode"`
	TLSServerCertPath string  `mapstructure:"tls.server.certPath"`
	TLSServerKeyPath  string  `mapstructure:"tls.server.keyPath"`
	TLSTestModeEnable bool    `mapstructure:"tls.test.mode.enable"`
}

// DefaultNamesrv returns RocketMQ's name-server defaults.
func DefaultNamesrv() *Namesrv {
	return &Namesrv{
		ListenPort:                      9876,
		BindAddress:                     "0.0.0.0",
		ServerChannelMaxIdleTimeSeconds: 120,
		KVConfigPath:                    filepath.Join(userHome(), "namesrv", "kvConfig.json"),
		ProductEnvName:                  "center",
		ReturnOrderTopicConfigToBroker:  true,
		ScanNotActiveBrokerInterval:     5000,
		BrokerChannelExpiredTime:        120000,
		EnableAllTopicList:              true,
		EnableTopicList:                 true,
		WaitSecondsForService:           45,
		MetricsExporterType:             MetricsDisable,
		MetricsPromExporterPort:         5557,
		TLSServerMode:                   TLSPermissive,
		TLSTestModeEnable:               true,
	}
}

func namesrvSchema() *schema {
	return newSchema(reflect.TypeOf(Namesrv{}), nil, javaNamesrvKeys)
}

// LoadNamesrv reads a namesrv.conf (path may be empty for defaults only) and applies overrides
// as LoadBroker does; OTLP_GRPC and LOG exporters become DISABLE with a warning.
func LoadNamesrv(path string, overrides map[string]string, lg *zap.Logger) (*Namesrv, error) {
	lg = orNop(lg)
	n := DefaultNamesrv()
	l := &loader{sch: namesrvSchema(), path: path, overrides: overrides, lg: lg}
	if _, err := l.load(n); err != nil {
		return nil, err
	}
	if n.MetricsExporterType == MetricsOTLPGRPC || n.MetricsExporterType == MetricsLog {
		lg.Warn("config: metrics exporter not supported, metrics disabled; use PROM",
			zap.String("metricsExporterType", string(n.MetricsExporterType)))
		n.MetricsExporterType = MetricsDisable
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return n, nil
}

// Validate checks every value and returns all problems joined.
func (n *Namesrv) Validate() error {
	errs := checkFields(namesrvSchema(), reflect.ValueOf(n).Elem())
	if n.KVConfigPath == "" {
		errs = append(errs, &ValueError{Key: "kvConfigPath", Reason: "must not be empty"})
	}
	if !validEnum(n.MetricsExporterType, MetricsDisable, MetricsProm) {
		errs = append(errs, &ValueError{Key: "metricsExporterType", Value: string(n.MetricsExporterType),
			Reason: "want DISABLE or PROM"})
	}
	if _, err := ParseLabels(n.MetricsLabel); err != nil {
		errs = append(errs, &ValueError{Key: "metricsLabel", Value: n.MetricsLabel, Reason: err.Error()})
	}
	errs = append(errs, checkTLS(n.TLSServerMode, n.TLSServerCertPath, n.TLSServerKeyPath, n.TLSTestModeEnable)...)
	return errors.Join(errs...)
}

// MetricsLabels parses MetricsLabel (checked by Validate).
func (n *Namesrv) MetricsLabels() (map[string]string, error) { return ParseLabels(n.MetricsLabel) }

// MetricsAddr is the host:port the Prometheus exporter listens on.
func (n *Namesrv) MetricsAddr() string {
	return joinHostPort(n.MetricsPromExporterHost, n.MetricsPromExporterPort)
}

// Fields lists every key with its effective value, sorted by key.
func (n *Namesrv) Fields() []Field { return fieldsOf(namesrvSchema(), reflect.ValueOf(n).Elem()) }

// LogEffective logs the effective configuration as one entry, every key a field, sorted.
func (n *Namesrv) LogEffective(lg *zap.Logger) {
	orNop(lg).Info("effective namesrv configuration", zapFields(n.Fields())...)
}
