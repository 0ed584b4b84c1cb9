package cli

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/rocketgo/rocketgo/internal/acl"
	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/config"
	"github.com/rocketgo/rocketgo/internal/store"
)

// brokerOptions maps broker.conf onto the broker's options.
func brokerOptions(cfg *config.Broker) (broker.Options, error) {
	so, err := storeOptions(cfg)
	if err != nil {
		return broker.Options{}, err
	}
	labels, err := cfg.MetricsLabels()
	if err != nil {
		return broker.Options{}, fmt.Errorf("metricsLabel: %w", err)
	}
	return broker.Options{
		ClusterName:                 cfg.BrokerClusterName,
		BrokerName:                  cfg.BrokerName,
		BrokerID:                    cfg.BrokerID,
		ListenAddr:                  net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.ListenPort)),
		BrokerAddr:                  cfg.BrokerAddr(),
		HAServerAddr:                cfg.HAServerAddr(),
		NamesrvAddrs:                cfg.NamesrvAddrs(),
		BrokerPermission:            cfg.BrokerPermission,
		Store:                       so,
		AutoCreateTopicEnable:       cfg.AutoCreateTopicEnable,
		DefaultTopicQueueNums:       cfg.DefaultTopicQueueNums,
		ClusterTopicEnable:          cfg.ClusterTopicEnable,
		BrokerTopicEnable:           cfg.BrokerTopicEnable,
		TraceTopicEnable:            cfg.TraceTopicEnable,
		MsgTraceTopicName:           cfg.MsgTraceTopicName,
		AutoCreateSubscriptionGroup: cfg.AutoCreateSubscriptionGroup,
		RegisterPeriod:              cfg.RegisterNameServerPeriod.Duration(),
		RegisterTimeout:             cfg.RegisterBrokerTimeoutMills.Duration(),
		CompressedRegister:          cfg.CompressedRegister,
		ChannelExpiredTimeout:       cfg.ChannelExpiredTimeout.Duration(),
		FlushConsumerOffsetInterval: cfg.FlushConsumerOffsetInterval.Duration(),
		FlushDelayOffsetInterval:    cfg.FlushDelayOffsetInterval.Duration(),
		LongPollingEnable:           cfg.LongPollingEnable,
		ShortPollingTime:            cfg.ShortPollingTimeMills.Duration(),
		SlaveReadEnable:             cfg.SlaveReadEnable,
		HA:                          haOptions(cfg),
		EnablePropertyFilter:        cfg.EnablePropertyFilter,
		RegionID:                    cfg.RegionID,
		TraceOn:                     cfg.TraceOn,
		TransactionCheckInterval:    cfg.TransactionCheckInterval.Duration(),
		TransactionTimeOut:          cfg.TransactionTimeOut.Duration(),
		TransactionCheckMax:         cfg.TransactionCheckMax,
		RejectTransactionMessage:    cfg.RejectTransactionMessage,
		MetricsExtra:                labels,
		ACL:                         aclOptions(cfg),
		ConfigText:                  configText(cfg),
	}, nil
}

// configText returns GET_BROKER_CONFIG's text: the effective configuration as Java-properties
// key=value lines, sorted by key.
func configText(cfg *config.Broker) func() string {
	var b strings.Builder
	for _, f := range cfg.Fields() {
		b.WriteString(f.Key + "=" + f.Value + "\n")
	}
	text := b.String()
	return func() string { return text }
}

// aclOptions turns plain ACL on when aclEnable is set.
func aclOptions(cfg *config.Broker) *acl.Options {
	if !cfg.AclEnable {
		return nil
	}
	return &acl.Options{Path: cfg.AclConfigPath}
}

// storeOptions maps the store keys of broker.conf onto store.Options.
func storeOptions(cfg *config.Broker) (store.Options, error) {
	host, err := netip.ParseAddrPort(cfg.BrokerAddr())
	if err != nil {
		return store.Options{}, fmt.Errorf("brokerIP1 %q with listenPort %d is not an ip:port: %w", cfg.BrokerIP1, cfg.ListenPort, err)
	}
	levels, err := cfg.DelayLevels()
	if err != nil {
		return store.Options{}, fmt.Errorf("messageDelayLevel: %w", err)
	}
	so := store.DefaultOptions(cfg.StorePathRootDir)
	so.CommitLogDir = cfg.CommitLogDir()
	so.CommitLogSegmentSize = int64(cfg.MappedFileSizeCommitLog)
	so.CQEntriesPerFile = cfg.MappedFileSizeConsumeQueue / 20
	so.MaxMessageSize = cfg.MaxMessageSize
	so.FlushType = store.AsyncFlush
	if cfg.FlushDiskType == config.SyncFlush {
		so.FlushType = store.SyncFlush
	}
	so.FlushIntervalCommitLog = cfg.FlushIntervalCommitLog.Duration()
	so.FlushCommitLogLeastPages = cfg.FlushCommitLogLeastPages
	so.FlushCommitLogThoroughInterval = cfg.FlushCommitLogThoroughInterval.Duration()
	so.SyncFlushTimeout = cfg.SyncFlushTimeout.Duration()
	so.FlushIntervalConsumeQueue = cfg.FlushIntervalConsumeQueue.Duration()
	so.FlushConsumeQueueLeastPages = cfg.FlushConsumeQueueLeastPages
	so.FlushConsumeQueueThoroughInterval = cfg.FlushConsumeQueueThoroughInterval.Duration()
	so.CheckCRCOnRecover = cfg.CheckCRCOnRecover
	so.Preallocate = true
	so.StoreHost = host
	so.DelayLevels = levels
	so.MaxTransferBytesOnMessageInMemory = cfg.MaxTransferBytesOnMessageInMemory
	so.MaxTransferCountOnMessageInMemory = cfg.MaxTransferCountOnMessageInMemory
	so.MaxTransferBytesOnMessageInDisk = cfg.MaxTransferBytesOnMessageInDisk
	so.MaxTransferCountOnMessageInDisk = cfg.MaxTransferCountOnMessageInDisk
	so.AccessMessageInMemoryMaxRatio = cfg.AccessMessageInMemoryMaxRatio
	so.OSPageCacheBusyTimeout = cfg.OsPageCacheBusyTimeOutMills.Duration()
	so.MessageIndexEnable = cfg.MessageIndexEnable
	so.MaxHashSlotNum = cfg.MaxHashSlotNum
	so.MaxIndexNum = cfg.MaxIndexNum
	so.MaxMsgsNumBatch = cfg.MaxMsgsNumBatch
	hours, err := cfg.DeleteHours()
	if err != nil {
		return store.Options{}, fmt.Errorf("deleteWhen: %w", err)
	}
	so.DeleteWhen = hours
	so.FileReservedTime = time.Duration(cfg.FileReservedTime) * time.Hour
	if cfg.FileReservedTime == 0 {
		so.FileReservedTime = time.Nanosecond // Java: 0 hours means files expire at once
	}
	so.DiskMaxUsedSpaceRatio = cfg.DiskMaxUsedSpaceRatio
	so.DiskSpaceCleanForciblyRatio = cfg.DiskSpaceCleanForciblyRatio
	so.DiskSpaceWarningLevelRatio = cfg.DiskSpaceWarningLevelRatio
	so.CleanResourceInterval = cfg.CleanResourceInterval.Duration()
	so.DestroyMapedFileIntervalForcibly = cfg.DestroyMapedFileIntervalForcibly.Duration()
	so.CleanFileForciblyEnable = cfg.CleanFileForciblyEnable
	return so, nil
}
