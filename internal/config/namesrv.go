package config

import (
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/logging"
	"github.com/rocketgo/rocketgo/internal/namesrv"
	"github.com/rocketgo/rocketgo/internal/remoting"
)

// Namesrv holds the values of namesrv.conf, one field per key, as Broker does for broker.conf;
// namesrvKeys declares the keys: RocketMQ's NamesrvConfig and NettyServerConfig, plus
// brokerChannelExpiredTime (Java hard-codes the 120 s broker expiry) and the broker's metrics and
// TLS keys.
type Namesrv struct {
	ListenPort                        int
	BindAddress                       string
	KVConfigPath                      string
	ProductEnvName                    string
	ClusterTest                       bool
	OrderMessageEnable                bool
	ReturnOrderTopicConfigToBroker    bool
	ScanNotActiveBrokerInterval       Millis
	BrokerChannelExpiredTime          Millis
	EnableAllTopicList                bool
	EnableTopicList                   bool
	NeedWaitForService                bool
	WaitSecondsForService             int
	DeleteTopicWithBrokerRegistration bool
	ConfigBlackList                   string

	MetricsKeys
	TLSKeys
	LimitKeys
	LogKeys
	NamesrvGuardKeys
}

// namesrvKey is one key of namesrv.conf.
type namesrvKey = key[Namesrv, NamesrvOptions]

// namesrvKeys is namesrv.conf, in the order of docs/configuration.md.
func namesrvKeys() []namesrvKey {
	return concat(section("Server",
		namesrvKey{name: "listenPort", def: "9876", check: port,
			doc:   "Client and broker port.",
			field: func(c *Namesrv) any { return &c.ListenPort },
			to:    toNamesrvListenAddr},
		namesrvKey{name: "bindAddress", def: "0.0.0.0",
			doc:   "Address the listener binds to (RocketMQ 5 key).",
			field: func(c *Namesrv) any { return &c.BindAddress },
			to:    toNamesrvListenAddr},
		namesrvKey{name: "kvConfigPath", defFunc: func() string { return filepath.Join(userHome(), "namesrv", "kvConfig.json") },
			defDoc: "`${user.home}/namesrv/kvConfig.json`",
			doc:    "KV config store.",
			field:  func(c *Namesrv) any { return &c.KVConfigPath },
			to:     func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.KVConfigPath = c.KVConfigPath }},
		namesrvKey{name: "productEnvName", def: "center",
			doc:   "Environment name (informational).",
			field: func(c *Namesrv) any { return &c.ProductEnvName }},
		namesrvKey{name: "clusterTest",
			doc:   "RocketMQ's cluster-test routing mode.",
			field: func(c *Namesrv) any { return &c.ClusterTest }},
		namesrvKey{name: "orderMessageEnable",
			doc:   "Put `orderTopicConf` from the KV store in routes.",
			field: func(c *Namesrv) any { return &c.OrderMessageEnable },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.OrderMessageEnable = c.OrderMessageEnable }},
		namesrvKey{name: "returnOrderTopicConfigToBroker", def: "true",
			doc:   "Return order-topic config to registering brokers.",
			field: func(c *Namesrv) any { return &c.ReturnOrderTopicConfigToBroker },
			to: func(c *Namesrv, o *NamesrvOptions) {
				o.Namesrv.ReturnOrderTopicConfigToBroker = c.ReturnOrderTopicConfigToBroker
			}},
		namesrvKey{name: "scanNotActiveBrokerInterval", def: "5000", check: positive,
			doc:   "How often dead brokers are looked for.",
			field: func(c *Namesrv) any { return &c.ScanNotActiveBrokerInterval },
			to: func(c *Namesrv, o *NamesrvOptions) {
				o.Namesrv.ScanNotActiveBrokerInterval = c.ScanNotActiveBrokerInterval.Duration()
			}},
		namesrvKey{name: "brokerChannelExpiredTime", origin: ours, def: "120000", check: positive,
			doc:   "A broker not registered for this long is removed (Java hard-codes 120 s).",
			field: func(c *Namesrv) any { return &c.BrokerChannelExpiredTime },
			to: func(c *Namesrv, o *NamesrvOptions) {
				o.Namesrv.BrokerChannelExpiredTime = c.BrokerChannelExpiredTime.Duration()
			}},
		namesrvKey{name: "enableAllTopicList", def: "true",
			doc:   "Answer GET_ALL_TOPIC_LIST_FROM_NAMESERVER.",
			field: func(c *Namesrv) any { return &c.EnableAllTopicList },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.EnableAllTopicList = c.EnableAllTopicList }},
		namesrvKey{name: "enableTopicList", def: "true",
			doc:   "Answer the per-cluster topic-list requests.",
			field: func(c *Namesrv) any { return &c.EnableTopicList },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.EnableTopicList = c.EnableTopicList }},
		namesrvKey{name: "needWaitForService",
			doc:   "Refuse route queries for waitSecondsForService after start.",
			field: func(c *Namesrv) any { return &c.NeedWaitForService },
			to:    func(c *Namesrv, o *NamesrvOptions) { o.Namesrv.NeedWaitForService = c.NeedWaitForService }},
		namesrvKey{name: "waitSecondsForService", def: "45",
			doc:   "See needWaitForService.",
			field: func(c *Namesrv) any { return &c.WaitSecondsForService },
			to: func(c *Namesrv, o *NamesrvOptions) {
				o.Namesrv.WaitForService = time.Duration(c.WaitSecondsForService) * time.Second
			}},
		namesrvKey{name: "deleteTopicWithBrokerRegistration",
			doc:   "Drop topics a broker stops registering.",
			field: func(c *Namesrv) any { return &c.DeleteTopicWithBrokerRegistration },
			to: func(c *Namesrv, o *NamesrvOptions) {
				o.Namesrv.DeleteTopicWithBrokerRegistration = c.DeleteTopicWithBrokerRegistration
			}},
		namesrvKey{name: "configBlackList", def: namesrv.DefaultConfigBlackList,
			doc: "Keys UPDATE_NAMESRV_CONFIG (`mqadmin updateNamesrvConfig`) refuses, `;`-separated; " +
				"`configBlackList`, `configStorePath`, `kvConfigPath` and `rocketmqHome` are refused whatever it says.",
			field: func(c *Namesrv) any { return &c.ConfigBlackList },
			to: func(c *Namesrv, o *NamesrvOptions) {
				o.Namesrv.ConfigBlackList = strings.Split(c.ConfigBlackList, ";")
			}},
	),
		metricsKeys(ours, namesrvMetricsDefaults, func(c *Namesrv) *MetricsKeys { return &c.MetricsKeys },
			func(c *Namesrv) string { return c.BindAddress },
			func(o *NamesrvOptions) *MetricsListener { return &o.Metrics },
			func(o *NamesrvOptions) *map[string]string { return &o.Namesrv.MetricLabels }),
		tlsKeys(func(c *Namesrv) *TLSKeys { return &c.TLSKeys }, func(o *NamesrvOptions) *TLSKeys { return &o.TLS }),
		limitKeys(func(c *Namesrv) *LimitKeys { return &c.LimitKeys },
			func(o *NamesrvOptions) *remoting.Limits { return &o.Namesrv.Limits }),
		namesrvGuardKeys(),
		logKeys(func(c *Namesrv) *LogKeys { return &c.LogKeys }, func(o *NamesrvOptions) *logging.Options { return &o.Log }),
		ignored[Namesrv, NamesrvOptions](ignoredNamesrvKeys()...))
}

// toNamesrvListenAddr: bindAddress:listenPort is where the name server listens.
func toNamesrvListenAddr(c *Namesrv, o *NamesrvOptions) {
	o.Namesrv.ListenAddr = net.JoinHostPort(c.BindAddress, strconv.Itoa(c.ListenPort))
}

// DefaultNamesrv returns RocketMQ's name-server defaults, as namesrvKeys declares them.
func DefaultNamesrv() *Namesrv {
	n := &Namesrv{}
	applyDefaults(namesrvKeys(), n)
	return n
}

func namesrvSchema() *schema[Namesrv, NamesrvOptions] { return newSchema(namesrvKeys()) }

// LoadNamesrv reads a namesrv.conf (path may be empty for defaults only) and applies overrides
// as LoadBroker does; OTLP_GRPC and LOG exporters become DISABLE with a warning.
func LoadNamesrv(path string, overrides map[string]string, lg *zap.Logger) (*Namesrv, error) {
	lg = orNop(lg)
	n := DefaultNamesrv()
	l := &loader[Namesrv, NamesrvOptions]{sch: namesrvSchema(), path: path, overrides: overrides, lg: lg}
	if _, err := l.load(n); err != nil {
		return nil, err
	}
	n.normalizeMetrics(lg)
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return n, nil
}

// Validate checks every value and returns all problems joined.
func (n *Namesrv) Validate() error {
	errs := checkFields(namesrvSchema(), n)
	if n.KVConfigPath == "" {
		errs = append(errs, &ValueError{Key: "kvConfigPath", Reason: "must not be empty"})
	}
	errs = append(errs, n.checkExporter()...)
	errs = append(errs, n.checkLabels()...)
	errs = append(errs, n.checkLog()...)
	errs = append(errs, n.TLSKeys.check()...)
	return errors.Join(errs...)
}

// NamesrvOptions is what namesrv.conf configures, mapped by Namesrv.Options.
type NamesrvOptions struct {
	// Namesrv holds everything but Namesrv.TLS (TLS.Server loads it: it reads files) and
	// Namesrv.Observe (the RPC metrics, which the command wires when Metrics.Enabled).
	Namesrv namesrv.Options
	Metrics MetricsListener
	TLS     TLSKeys
	Log     logging.Options // the logging keys; the command's flags win over them
}

// Options maps every key onto the name server's options: namesrv.DefaultOptions, then each key's
// to in table order, and every key with its value for GET_NAMESRV_CONFIG.
func (n *Namesrv) Options() (NamesrvOptions, error) {
	if err := n.Validate(); err != nil {
		return NamesrvOptions{}, err
	}
	o := NamesrvOptions{Namesrv: namesrv.DefaultOptions()}
	mapOnto(namesrvKeys(), n, &o)
	for _, f := range n.Fields() {
		o.Namesrv.ConfigKeys = append(o.Namesrv.ConfigKeys, namesrv.ConfigKey{Name: f.Key, Value: f.Value})
	}
	return o, nil
}

// Fields lists every key with its effective value, sorted by key.
func (n *Namesrv) Fields() []Field { return fieldsOf(namesrvSchema(), n) }

// LogEffective logs the effective configuration as one info entry of key=value lines, the keys
// that differ from the defaults first.
func (n *Namesrv) LogEffective(lg *zap.Logger) {
	orNop(lg).Info(effectiveText("effective namesrv configuration", n.Fields(), DefaultNamesrv().Fields()))
}
