package config

import (
	"os"
	"path/filepath"
	"time"
)

// Broker is the schema of broker.conf. Each mapstructure tag is the key RocketMQ's BrokerConfig,
// MessageStoreConfig or NettyServerConfig reads (keys match case-insensitively). The check tag
// drives Validate: "pos" > 0, "port" 0-65535, "pct" 0-100; other numbers must be ≥ 0. Fields
// typed int hold Java ints (32-bit range), int64 and Millis hold Java longs.
type Broker struct {
	// Identity and network.
	BrokerClusterName               string `mapstructure:"brokerClusterName"`
	BrokerName                      string `mapstructure:"brokerName"`
	BrokerID                        int64  `mapstructure:"brokerId"`
	NamesrvAddr                     string `mapstructure:"namesrvAddr"`
	BrokerIP1                       string `mapstructure:"brokerIP1"`
	BrokerIP2                       string `mapstructure:"brokerIP2"`
	BindAddress                     string `mapstructure:"bindAddress"`
	ListenPort                      int    `mapstructure:"listenPort" check:"port"`
	HAListenPort                    int    `mapstructure:"haListenPort" check:"port"`
	ServerChannelMaxIdleTimeSeconds int    `mapstructure:"serverChannelMaxIdleTimeSeconds"`
	BrokerPermission                int    `mapstructure:"brokerPermission"`
	RegionID                        string `mapstructure:"regionId"`
	TraceOn                         bool   `mapstructure:"traceOn"`
	AclEnable                       bool   `mapstructure:"aclEnable"`
	AclConfigPath                   string `mapstructure:"aclConfigPath"` // ours: where plain_acl.yml is

	// TLS (Java's -Dtls.* system properties).
	TLSServerMode     TLSMode `mapstructure:"tls.server.mode"`
	TLSServerCertPath string  `mapstructure:"tls.server.certPath"`
	TLSServerKeyPath  string  `mapstructure:"tls.server.keyPath"`
	TLSTestModeEnable bool    `mapstructure:"tls.test.mode.enable"`

	// Roles and the store.
	BrokerRole                 BrokerRole    `mapstructure:"brokerRole"`
	FlushDiskType              FlushDiskType `mapstructure:"flushDiskType"`
	StorePathRootDir           string        `mapstructure:"storePathRootDir"`
	StorePathCommitLog         string        `mapstructure:"storePathCommitLog"`
	MappedFileSizeCommitLog    int           `mapstructure:"mappedFileSizeCommitLog" check:"pos"`
	MappedFileSizeConsumeQueue int           `mapstructure:"mappedFileSizeConsumeQueue" check:"pos"`
	MaxMessageSize             int           `mapstructure:"maxMessageSize" check:"pos"`
	CheckCRCOnRecover          bool          `mapstructure:"checkCRCOnRecover"`
	MessageIndexEnable         bool          `mapstructure:"messageIndexEnable"`
	MessageIndexSafe           bool          `mapstructure:"messageIndexSafe"`
	MaxHashSlotNum             int           `mapstructure:"maxHashSlotNum" check:"pos"`
	MaxIndexNum                int           `mapstructure:"maxIndexNum" check:"pos"`
	MaxMsgsNumBatch            int           `mapstructure:"maxMsgsNumBatch" check:"pos"`
	DefaultQueryMaxNum         int           `mapstructure:"defaultQueryMaxNum" check:"pos"`

	// Flush.
	FlushIntervalCommitLog            Millis `mapstructure:"flushIntervalCommitLog" check:"pos"`
	FlushCommitLogLeastPages          int    `mapstructure:"flushCommitLogLeastPages"`
	FlushCommitLogThoroughInterval    Millis `mapstructure:"flushCommitLogThoroughInterval" check:"pos"`
	FlushIntervalConsumeQueue         Millis `mapstructure:"flushIntervalConsumeQueue" check:"pos"`
	FlushConsumeQueueLeastPages       int    `mapstructure:"flushConsumeQueueLeastPages"`
	FlushConsumeQueueThoroughInterval Millis `mapstructure:"flushConsumeQueueThoroughInterval" check:"pos"`
	SyncFlushTimeout                  Millis `mapstructure:"syncFlushTimeout" check:"pos"`

	// Cleanup.
	DeleteWhen                       string `mapstructure:"deleteWhen"`
	FileReservedTime                 int    `mapstructure:"fileReservedTime"`
	DiskMaxUsedSpaceRatio            int    `mapstructure:"diskMaxUsedSpaceRatio" check:"pct"`
	DiskSpaceCleanForciblyRatio      int    `mapstructure:"diskSpaceCleanForciblyRatio" check:"pct"`
	DiskSpaceWarningLevelRatio       int    `mapstructure:"diskSpaceWarningLevelRatio" check:"pct"`
	CleanResourceInterval            Millis `mapstructure:"cleanResourceInterval" check:"pos"`
	DeleteCommitLogFilesInterval     Millis `mapstructure:"deleteCommitLogFilesInterval"`
	DeleteConsumeQueueFilesInterval  Millis `mapstructure:"deleteConsumeQueueFilesInterval"`
	DestroyMapedFileIntervalForcibly Millis `mapstructure:"destroyMapedFileIntervalForcibly"`
	RedeleteHangedFileInterval       Millis `mapstructure:"redeleteHangedFileInterval" check:"pos"`
	CleanFileForciblyEnable          bool   `mapstructure:"cleanFileForciblyEnable"`

	// HA.
	HASendHeartbeatInterval Millis `mapstructure:"haSendHeartbeatInterval" check:"pos"`
	HAHousekeepingInterval  Millis `mapstructure:"haHousekeepingInterval" check:"pos"`
	HATransferBatchSize     int    `mapstructure:"haTransferBatchSize" check:"pos"`
	HASlaveFallbehindMax    int    `mapstructure:"haSlaveFallbehindMax"`
	HAMasterAddress         string `mapstructure:"haMasterAddress"`
	SlaveTimeout            Millis `mapstructure:"slaveTimeout" check:"pos"`
	SlaveReadEnable         bool   `mapstructure:"slaveReadEnable"`

	// Pull.
	LongPollingEnable                 bool   `mapstructure:"longPollingEnable"`
	ShortPollingTimeMills             Millis `mapstructure:"shortPollingTimeMills" check:"pos"`
	AccessMessageInMemoryMaxRatio     int    `mapstructure:"accessMessageInMemoryMaxRatio" check:"pct"`
	MaxTransferBytesOnMessageInMemory int    `mapstructure:"maxTransferBytesOnMessageInMemory" check:"pos"`
	MaxTransferCountOnMessageInMemory int    `mapstructure:"maxTransferCountOnMessageInMemory" check:"pos"`
	MaxTransferBytesOnMessageInDisk   int    `mapstructure:"maxTransferBytesOnMessageInDisk" check:"pos"`
	MaxTransferCountOnMessageInDisk   int    `mapstructure:"maxTransferCountOnMessageInDisk" check:"pos"`
	NotifyConsumerIdsChangedEnable    bool   `mapstructure:"notifyConsumerIdsChangedEnable"`

	// Topics, groups, delay, transactions.
	AutoCreateTopicEnable       bool   `mapstructure:"autoCreateTopicEnable"`
	AutoCreateSubscriptionGroup bool   `mapstructure:"autoCreateSubscriptionGroup"`
	DefaultTopicQueueNums       int    `mapstructure:"defaultTopicQueueNums" check:"pos"`
	ClusterTopicEnable          bool   `mapstructure:"clusterTopicEnable"`
	BrokerTopicEnable           bool   `mapstructure:"brokerTopicEnable"`
	TraceTopicEnable            bool   `mapstructure:"traceTopicEnable"`
	MsgTraceTopicName           string `mapstructure:"msgTraceTopicName"`
	EnablePropertyFilter        bool   `mapstructure:"enablePropertyFilter"`
	FilterSupportRetry          bool   `mapstructure:"filterSupportRetry"`
	StoreReplyMessageEnable     bool   `mapstructure:"storeReplyMessageEnable"`
	MessageDelayLevel           string `mapstructure:"messageDelayLevel"`
	FlushDelayOffsetInterval    Millis `mapstructure:"flushDelayOffsetInterval" check:"pos"`
	TransactionTimeOut          Millis `mapstructure:"transactionTimeOut" check:"pos"`
	TransactionCheckMax         int    `mapstructure:"transactionCheckMax"`
	TransactionCheckInterval    Millis `mapstructure:"transactionCheckInterval" check:"pos"`
	RejectTransactionMessage    bool   `mapstructure:"rejectTransactionMessage"`

	// Name server registration, clients, offsets.
	RegisterNameServerPeriod    Millis `mapstructure:"registerNameServerPeriod" check:"pos"`
	RegisterBrokerTimeoutMills  Millis `mapstructure:"registerBrokerTimeoutMills" check:"pos"`
	ForceRegister               bool   `mapstructure:"forceRegister"`
	CompressedRegister          bool   `mapstructure:"compressedRegister"`
	ChannelExpiredTimeout       Millis `mapstructure:"channelExpiredTimeout" check:"pos"`
	FlushConsumerOffsetInterval Millis `mapstructure:"flushConsumerOffsetInterval" check:"pos"`

	// Flow control.
	BrokerFastFailureEnable         bool   `mapstructure:"brokerFastFailureEnable"`
	WaitTimeMillsInSendQueue        Millis `mapstructure:"waitTimeMillsInSendQueue"`
	WaitTimeMillsInPullQueue        Millis `mapstructure:"waitTimeMillsInPullQueue"`
	WaitTimeMillsInHeartbeatQueue   Millis `mapstructure:"waitTimeMillsInHeartbeatQueue"`
	WaitTimeMillsInTransactionQueue Millis `mapstructure:"waitTimeMillsInTransactionQueue"`
	OsPageCacheBusyTimeOutMills     Millis `mapstructure:"osPageCacheBusyTimeOutMills" check:"pos"`

	// Metrics (RocketMQ 5 keys).
	MetricsExporterType     MetricsExporterType `mapstructure:"metricsExporterType"`
	MetricsPromExporterHost string              `mapstructure:"metricsPromExporterHost"`
	MetricsPromExporterPort int                 `mapstructure:"metricsPromExporterPort" check:"port"`
	MetricsLabel            string              `mapstructure:"metricsLabel"`
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

// DefaultBroker returns RocketMQ 4.9's defaults. brokerName is the host name and brokerIP1/2 the
// host's first non-loopback IPv4 address; namesrvAddr is left empty (the loader applies
// NAMESRV_ADDR); haListenPort and storePathCommitLog are derived by Load when left empty/zero.
func DefaultBroker() *Broker {
	ip := localIPv4()
	return &Broker{
		BrokerClusterName:               DefaultClusterName,
		BrokerName:                      localHostName(),
		BrokerIP1:                       ip,
		BrokerIP2:                       ip,
		BindAddress:                     "0.0.0.0",
		ListenPort:                      10911,
		ServerChannelMaxIdleTimeSeconds: 120,
		BrokerPermission:                6, // PERM_READ | PERM_WRITE
		RegionID:                        DefaultRegionID,
		TraceOn:                         true,
		TLSServerMode:                   TLSPermissive,
		TLSTestModeEnable:               true,

		BrokerRole:                 AsyncMaster,
		FlushDiskType:              AsyncFlush,
		StorePathRootDir:           filepath.Join(userHome(), "store"),
		MappedFileSizeCommitLog:    1 << 30,
		MappedFileSizeConsumeQueue: 300000 * cqUnitSize,
		MaxMessageSize:             4 << 20,
		CheckCRCOnRecover:          true,
		MessageIndexEnable:         true,
		MaxHashSlotNum:             5000000,
		MaxIndexNum:                5000000 * 4,
		MaxMsgsNumBatch:            64,
		DefaultQueryMaxNum:         32,

		FlushIntervalCommitLog:            500,
		FlushCommitLogLeastPages:          4,
		FlushCommitLogThoroughInterval:    10000,
		FlushIntervalConsumeQueue:         1000,
		FlushConsumeQueueLeastPages:       2,
		FlushConsumeQueueThoroughInterval: 60000,
		SyncFlushTimeout:                  5000,

		DeleteWhen:                       "04",
		FileReservedTime:                 72,
		DiskMaxUsedSpaceRatio:            75,
		DiskSpaceCleanForciblyRatio:      85,
		DiskSpaceWarningLevelRatio:       90,
		CleanResourceInterval:            10000,
		DeleteCommitLogFilesInterval:     100,
		DeleteConsumeQueueFilesInterval:  100,
		DestroyMapedFileIntervalForcibly: 120000,
		RedeleteHangedFileInterval:       120000,
		CleanFileForciblyEnable:          true,

		HASendHeartbeatInterval: 5000,
		HAHousekeepingInterval:  20000,
		HATransferBatchSize:     32 << 10,
		HASlaveFallbehindMax:    256 << 20,
		SlaveTimeout:            3000,

		LongPollingEnable:                 true,
		ShortPollingTimeMills:             1000,
		AccessMessageInMemoryMaxRatio:     40,
		MaxTransferBytesOnMessageInMemory: 256 << 10,
		MaxTransferCountOnMessageInMemory: 32,
		MaxTransferBytesOnMessageInDisk:   64 << 10,
		MaxTransferCountOnMessageInDisk:   8,
		NotifyConsumerIdsChangedEnable:    true,

		AutoCreateTopicEnable:       true,
		AutoCreateSubscriptionGroup: true,
		DefaultTopicQueueNums:       8,
		ClusterTopicEnable:          true,
		BrokerTopicEnable:           true,
		MsgTraceTopicName:           DefaultTraceTopic,
		StoreReplyMessageEnable:     true,
		MessageDelayLevel:           DefaultMessageDelayLevel,
		FlushDelayOffsetInterval:    10000,
		TransactionTimeOut:          6000,
		TransactionCheckMax:         15,
		TransactionCheckInterval:    60000,

		RegisterNameServerPeriod:    30000,
		RegisterBrokerTimeoutMills:  6000,
		ForceRegister:               true,
		ChannelExpiredTimeout:       120000,
		FlushConsumerOffsetInterval: 5000,

		BrokerFastFailureEnable:         true,
		WaitTimeMillsInSendQueue:        200,
		WaitTimeMillsInPullQueue:        5000,
		WaitTimeMillsInHeartbeatQueue:   31000,
		WaitTimeMillsInTransactionQueue: 3000,
		OsPageCacheBusyTimeOutMills:     1000,

		MetricsExporterType:     MetricsDisable,
		MetricsPromExporterPort: 5557,
	}
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

// MetricsLabels parses MetricsLabel (checked by Validate).
func (b *Broker) MetricsLabels() (map[string]string, error) { return ParseLabels(b.MetricsLabel) }

// BrokerAddr is brokerIP1:listenPort, the address the broker registers for clients.
func (b *Broker) BrokerAddr() string { return joinHostPort(b.BrokerIP1, b.ListenPort) }

// HAServerAddr is brokerIP2:haListenPort, the address slaves replicate from.
func (b *Broker) HAServerAddr() string { return joinHostPort(b.BrokerIP2, b.HAListenPort) }

// MetricsAddr is the host:port the Prometheus exporter listens on.
func (b *Broker) MetricsAddr() string {
	return joinHostPort(b.MetricsPromExporterHost, b.MetricsPromExporterPort)
}

func userHome() string {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return h
	}
	return "."
}
