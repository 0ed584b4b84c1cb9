package broker

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketgo/rocketgo/internal/acl"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
)

// Options configure a Broker. internal/config maps broker.conf onto them; zero durations take
// Java's defaults.
type Options struct {
	ClusterName string
	BrokerName  string
	BrokerID    int64

	// ListenAddr is where the remoting server listens ("host:port").
	ListenAddr string
	// BrokerAddr (brokerIP1:listenPort) and HAServerAddr (brokerIP2:haListenPort) are advertised
	// to the nameservers.
	BrokerAddr   string
	HAServerAddr string
	NamesrvAddrs []string

	BrokerPermission int
	// Store configures the store; New sets Store.Role from HA.Role and, when Store.StoreHost is
	// not set, derives it from BrokerAddr.
	Store store.Options

	AutoCreateTopicEnable       bool
	DefaultTopicQueueNums       int
	ClusterTopicEnable          bool
	BrokerTopicEnable           bool
	TraceTopicEnable            bool
	MsgTraceTopicName           string
	AutoCreateSubscriptionGroup bool

	RegisterPeriod     time.Duration // registerNameServerPeriod, 30 s
	RegisterTimeout    time.Duration // registerBrokerTimeoutMills
	CompressedRegister bool

	ChannelExpiredTimeout       time.Duration // 120 s
	FlushConsumerOffsetInterval time.Duration // 5 s
	FlushDelayOffsetInterval    time.Duration // 10 s
	LongPollingEnable           bool
	ShortPollingTime            time.Duration // 1 s
	SlaveReadEnable             bool
	EnablePropertyFilter        bool // SQL92 subscriptions
	RegionID                    string
	TraceOn                     bool

	// Transactions (Java BrokerConfig); zero values take Java 4.9's defaults.
	TransactionCheckInterval time.Duration // transactionCheckInterval, 60 s
	TransactionTimeOut       time.Duration // transactionTimeOut, 6 s
	TransactionCheckMax      int           // transactionCheckMax, 15
	RejectTransactionMessage bool          // rejectTransactionMessage

	// HA is master/slave replication (brokerRole, haListenPort, ...; replication.go).
	HA HAOptions
	// Timer is timer messages (timerWheelEnable, ...; timer.go).
	Timer TimerOptions

	// MaxConcurrentRequests bounds requests in flight; beyond it SYSTEM_BUSY.
	MaxConcurrentRequests int
	// Remoting bounds the client port's connections: idle time, number, queued bytes
	// (serverChannelMaxIdleTimeSeconds, writeBufferHighWaterMark, ...; remoting.Limits).
	Remoting remoting.Limits
	// Limits bound what a request or a connection may make the broker hold or create.
	Limits Limits

	// ACL, if set, checks every request against plain_acl.yml before its handler (aclEnable).
	ACL *acl.Options
	// TLS is the client port's TLS mode and certificate (tls.server.mode).
	TLS remoting.TLSOptions

	// ConfigText returns the effective configuration as Java-properties text for
	// GET_BROKER_CONFIG; nil answers the keys these options hold.
	ConfigText func() string

	// Metrics registers the broker's metrics; nil turns them off.
	Metrics      prometheus.Registerer
	MetricsExtra map[string]string // metricsLabel pairs
}

// IsSlave reports whether the broker is a slave: its role is HA.Role, stored nowhere else.
func (o *Options) IsSlave() bool { return o.HA.Role == store.RoleSlave }

func (o *Options) setDefaults() {
	def := func(p *time.Duration, d time.Duration) {
		if *p <= 0 {
			*p = d
		}
	}
	def(&o.RegisterPeriod, 30*time.Second)
	def(&o.RegisterTimeout, 6*time.Second)
	def(&o.ChannelExpiredTimeout, 120*time.Second)
	def(&o.FlushConsumerOffsetInterval, 5*time.Second)
	def(&o.FlushDelayOffsetInterval, 10*time.Second)
	def(&o.ShortPollingTime, time.Second)
	if o.BrokerPermission == 0 {
		o.BrokerPermission = 6
	}
	if o.DefaultTopicQueueNums <= 0 {
		o.DefaultTopicQueueNums = 8
	}
	if o.RegionID == "" {
		o.RegionID = "DefaultRegion"
	}
	o.haDefaults()
}
