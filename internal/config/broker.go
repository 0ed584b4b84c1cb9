package config

import (
	"os"
	"path/filepath"
	"time"
)

// Broker holds the values of broker.conf, one field per key, named after the key. What each key
// is (name, type, default, range, documentation, where it lands) is declared in brokerKeys; a
// field is only the typed slot its key fills. Fields typed int hold Java ints (32-bit range),
// int64 and Millis hold Java longs.
type Broker struct {
	// Identity and network.
	BrokerClusterName string
	BrokerName        string
	BrokerID          int64
	NamesrvAddr       string
	BrokerIP1         string
	BrokerIP2         string
	BindAddress       string
	ListenPort        int
	HAListenPort      int
	FastListenPort    int
	BrokerPermission  int
	RegionID          string
	TraceOn           bool

	// Security.
	AclEnable     bool
	AclConfigPath string
	TLSKeys

	// Roles and the store.
	BrokerRole                 BrokerRole
	FlushDiskType              FlushDiskType
	StorePathRootDir           string
	StorePathCommitLog         string
	MappedFileSizeCommitLog    int
	MappedFileSizeConsumeQueue int
	MaxMessageSize             int
	CheckCRCOnRecover          bool
	MessageIndexEnable         bool
	MessageIndexSafe           bool
	MaxHashSlotNum             int
	MaxIndexNum                int
	MaxMsgsNumBatch            int
	DefaultQueryMaxNum         int

	// Flush.
	FlushIntervalCommitLog            Millis
	FlushCommitLogLeastPages          int
	FlushCommitLogThoroughInterval    Millis
	FlushIntervalConsumeQueue         Millis
	FlushConsumeQueueLeastPages       int
	FlushConsumeQueueThoroughInterval Millis
	SyncFlushTimeout                  Millis
	MaxMappedConsumeQueueFiles        int // not a Java key
	ConsumeQueueSyncFSMin             int // not a Java key

	// Cleanup.
	DeleteWhen                       string
	FileReservedTime                 int
	DiskMaxUsedSpaceRatio            int
	DiskSpaceCleanForciblyRatio      int
	DiskSpaceWarningLevelRatio       int
	CleanResourceInterval            Millis
	DeleteCommitLogFilesInterval     Millis
	DeleteConsumeQueueFilesInterval  Millis
	DestroyMapedFileIntervalForcibly Millis
	RedeleteHangedFileInterval       Millis
	CleanFileForciblyEnable          bool

	// HA.
	HAAllowlist             Allowlist
	HASendHeartbeatInterval Millis
	HAHousekeepingInterval  Millis
	HATransferBatchSize     int
	HASlaveFallbehindMax    int
	HAMasterAddress         string
	SlaveTimeout            Millis
	SlaveReadEnable         bool

	// Pull.
	LongPollingEnable                 bool
	ShortPollingTimeMills             Millis
	AccessMessageInMemoryMaxRatio     int
	MaxTransferBytesOnMessageInMemory int
	MaxTransferCountOnMessageInMemory int
	MaxTransferBytesOnMessageInDisk   int
	MaxTransferCountOnMessageInDisk   int
	NotifyConsumerIdsChangedEnable    bool
	LitePullMessageEnable             bool

	// POP and server-side assignment.
	ReviveQueueNum            int
	ReviveInterval            Millis
	PopFromRetryProbability   int
	PopPollingSize            int
	MaxPopPollingSize         int
	ServerLoadBalancerEnable  bool
	DefaultMessageRequestMode MessageRequestMode
	DefaultPopShareQueueNum   int

	// Topics, groups, delay, transactions.
	AutoCreateTopicEnable       bool
	AutoCreateSubscriptionGroup bool
	DefaultTopicQueueNums       int
	ClusterTopicEnable          bool
	BrokerTopicEnable           bool
	TraceTopicEnable            bool
	MsgTraceTopicName           string
	EnablePropertyFilter        bool
	FilterSupportRetry          bool
	StoreReplyMessageEnable     bool
	MessageDelayLevel           string
	FlushDelayOffsetInterval    Millis
	TransactionTimeOut          Millis
	TransactionCheckMax         int
	TransactionCheckInterval    Millis
	RejectTransactionMessage    bool

	// Name server registration, clients, offsets.
	RegisterNameServerPeriod    Millis
	RegisterBrokerTimeoutMills  Millis
	ForceRegister               bool
	CompressedRegister          bool
	ChannelExpiredTimeout       Millis
	FlushConsumerOffsetInterval Millis

	// Flow control.
	BrokerFastFailureEnable         bool
	WaitTimeMillsInSendQueue        Millis
	WaitTimeMillsInPullQueue        Millis
	WaitTimeMillsInHeartbeatQueue   Millis
	WaitTimeMillsInTransactionQueue Millis
	OsPageCacheBusyTimeOutMills     Millis

	TimerKeys
	LimitKeys
	MetricsKeys
	RequestLimitKeys
	LogKeys
}

// Broker-side defaults that are not plain literals.
const (
	DefaultClusterName       = "DefaultCluster"
	DefaultBrokerName        = "DEFAULT_BROKER" // when the host name cannot be read
	DefaultMessageDelayLevel = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"
	DefaultTraceTopic        = "RMQ_SYS_TRACE_TOPIC"
	DefaultRegionID          = "DefaultRegion"
	cqUnitSize               = 20 // bytes per ConsumeQueue entry
)

// DefaultBroker returns RocketMQ 4.9's defaults, as brokerKeys declares them. brokerName is the
// host name and brokerIP1/2 the host's first non-loopback IPv4 address; namesrvAddr is left empty
// (the loader applies NAMESRV_ADDR); haListenPort and storePathCommitLog are derived by Load when
// left empty/zero.
func DefaultBroker() *Broker {
	b := &Broker{}
	applyDefaults(brokerKeys(), b)
	return b
}

// NamesrvAddrs returns namesrvAddr split at ';'.
func (b *Broker) NamesrvAddrs() []string { return SplitAddrs(b.NamesrvAddr) }

// StorePathConsumeQueue is <storePathRootDir>/consumequeue.
func (b *Broker) StorePathConsumeQueue() string {
	return filepath.Join(b.StorePathRootDir, "consumequeue")
}

// StorePathIndex is <storePathRootDir>/index.
func (b *Broker) StorePathIndex() string { return filepath.Join(b.StorePathRootDir, "index") }

// StorePathConfig is <storePathRootDir>/config, where topics.json and the offset files live.
func (b *Broker) StorePathConfig() string { return filepath.Join(b.StorePathRootDir, "config") }

// DelayLevels parses MessageDelayLevel (checked by Validate).
func (b *Broker) DelayLevels() ([]time.Duration, error) { return ParseDelayLevels(b.MessageDelayLevel) }

// DeleteHours parses DeleteWhen (checked by Validate).
func (b *Broker) DeleteHours() ([]int, error) { return ParseDeleteHours(b.DeleteWhen) }

// BrokerAddr is brokerIP1:listenPort, the address the broker registers for clients.
func (b *Broker) BrokerAddr() string { return joinHostPort(b.BrokerIP1, b.ListenPort) }

// HAServerAddr is brokerIP2:haListenPort, the address slaves replicate from.
func (b *Broker) HAServerAddr() string { return joinHostPort(b.BrokerIP2, b.HAPort()) }

func userHome() string {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return h
	}
	return "."
}
