package config

import (
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rocketgo/rocketgo/internal/logging"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
)

// brokerKey is one key of broker.conf.
type brokerKey = key[Broker, BrokerOptions]

// brokerKeys is broker.conf: every key this implementation reads, then the RocketMQ keys it
// accepts and ignores. The order is the order of docs/configuration.md.
func brokerKeys() []brokerKey {
	return concat(identityKeys(), storeKeys(), flushKeys(), cleanupKeys(), haKeys(), pullKeys(),
		popKeys(), topicKeys(), timerKeys(), registrationKeys(), flowControlKeys(),
		limitKeys(func(c *Broker) *LimitKeys { return &c.LimitKeys },
			func(o *BrokerOptions) *remoting.Limits { return &o.Broker.Remoting }),
		brokerGuardKeys(), requestLimitKeys(),
		metricsKeys(fromJava, brokerMetricsDefaults, func(c *Broker) *MetricsKeys { return &c.MetricsKeys },
			func(c *Broker) string { return c.BindAddress },
			func(o *BrokerOptions) *MetricsListener { return &o.Metrics },
			func(o *BrokerOptions) *map[string]string { return &o.Broker.MetricsExtra }),
		aclKeys(),
		tlsKeys(func(c *Broker) *TLSKeys { return &c.TLSKeys }, func(o *BrokerOptions) *TLSKeys { return &o.TLS }),
		logKeys(func(c *Broker) *LogKeys { return &c.LogKeys }, func(o *BrokerOptions) *logging.Options { return &o.Log }),
		ignored[Broker, BrokerOptions](ignoredBrokerKeys()...))
}

func concat[E any](parts ...[]E) []E {
	var out []E
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func identityKeys() []brokerKey {
	return section("Identity and network",
		brokerKey{name: "brokerClusterName", def: DefaultClusterName,
			doc:   "Cluster the broker registers in.",
			field: func(c *Broker) any { return &c.BrokerClusterName },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.ClusterName = c.BrokerClusterName }},
		brokerKey{name: "brokerName", defFunc: localHostName, defDoc: "host name, else `DEFAULT_BROKER`",
			doc:   "Name shared by a master and its slaves.",
			field: func(c *Broker) any { return &c.BrokerName },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.BrokerName = c.BrokerName }},
		brokerKey{name: "brokerId",
			doc: "0 = master. Forced to 0 (with a warning) when brokerRole is a master, as Java does; a SLAVE " +
				"needs > 0.",
			field: func(c *Broker) any { return &c.BrokerID },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.BrokerID = c.BrokerID }},
		brokerKey{name: "namesrvAddr", defDoc: "env `NAMESRV_ADDR`, else empty",
			doc:   "Name servers, `host:port` separated by `;`. Each entry is checked.",
			field: func(c *Broker) any { return &c.NamesrvAddr },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.NamesrvAddrs = c.NamesrvAddrs() }},
		brokerKey{name: "brokerIP1", defFunc: localIPv4, defDoc: "first non-loopback IPv4 of the host",
			doc:   "Address registered for clients, and the store host of every message; must be an IP address.",
			field: func(c *Broker) any { return &c.BrokerIP1 },
			to:    toBrokerAddr},
		brokerKey{name: "brokerIP2", defFunc: localIPv4, defDoc: "first non-loopback IPv4 of the host",
			doc:   "Address registered for HA (`haServerAddr`).",
			field: func(c *Broker) any { return &c.BrokerIP2 },
			to:    toHAAddrs},
		brokerKey{name: "bindAddress", def: "0.0.0.0",
			doc:   "Address the client and HA listeners bind to (RocketMQ 5 key).",
			field: func(c *Broker) any { return &c.BindAddress },
			to:    both(both(toListenAddr, toFastAddr), toHAAddrs)},
		brokerKey{name: "listenPort", def: "10911", check: port,
			doc:   "Client port. 0 picks a free port (tests).",
			field: func(c *Broker) any { return &c.ListenPort },
			to:    both(both(toListenAddr, toFastAddr), both(toBrokerAddr, toHAAddrs))},
		brokerKey{name: "haListenPort", check: port, defDoc: "listenPort+1",
			doc:   "HA replication port.",
			field: func(c *Broker) any { return &c.HAListenPort },
			to:    toHAAddrs},
		brokerKey{name: "fastListenPort", check: port, defDoc: "listenPort−2",
			doc:   "VIP channel port, serving what the client port serves (Java clients with `vipChannelEnabled` use listenPort−2).",
			field: func(c *Broker) any { return &c.FastListenPort },
			to:    toFastAddr},
		brokerKey{name: "brokerPermission", def: "6",
			doc:   "4 read, 2 write, 1 inherit; applied to routes.",
			field: func(c *Broker) any { return &c.BrokerPermission },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.BrokerPermission = c.BrokerPermission }},
		brokerKey{name: "regionId", def: DefaultRegionID,
			doc:   "Returned to producers as `MSG_REGION`.",
			field: func(c *Broker) any { return &c.RegionID },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.RegionID = c.RegionID }},
		brokerKey{name: "traceOn", def: "true",
			doc:   "Returned to producers as `TRACE_ON`.",
			field: func(c *Broker) any { return &c.TraceOn },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.TraceOn = c.TraceOn }},
	)
}

// both runs f then g: for keys that land in more than one place.
func both(f, g func(*Broker, *BrokerOptions)) func(*Broker, *BrokerOptions) {
	return func(c *Broker, o *BrokerOptions) { f(c, o); g(c, o) }
}

// toListenAddr: bindAddress:listenPort is where the client listener binds.
func toListenAddr(c *Broker, o *BrokerOptions) {
	o.Broker.ListenAddr = net.JoinHostPort(c.BindAddress, strconv.Itoa(c.ListenPort))
}

// toFastAddr: bindAddress:fastListenPort is where the VIP channel binds.
func toFastAddr(c *Broker, o *BrokerOptions) {
	o.Broker.FastListenAddr = net.JoinHostPort(c.BindAddress, strconv.Itoa(c.FastPort()))
}

// toBrokerAddr: brokerIP1:listenPort is registered for clients (and is the messages' store host).
func toBrokerAddr(c *Broker, o *BrokerOptions) { o.Broker.BrokerAddr = c.BrokerAddr() }

// toHAAddrs: bindAddress:haListenPort is where the HA listener binds, brokerIP2:haListenPort is
// registered for slaves.
func toHAAddrs(c *Broker, o *BrokerOptions) {
	o.Broker.HA.ListenAddr = net.JoinHostPort(c.BindAddress, strconv.Itoa(c.HAPort()))
	o.Broker.HAServerAddr = c.HAServerAddr()
}

func storeKeys() []brokerKey {
	return section("Role and store",
		brokerKey{name: "brokerRole", def: string(AsyncMaster),
			doc:   "ASYNC_MASTER, SYNC_MASTER or SLAVE.",
			field: func(c *Broker) any { return &c.BrokerRole },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.HA.Role = c.BrokerRole.storeRole() }},
		brokerKey{name: "flushDiskType", def: string(AsyncFlush),
			doc:   "ASYNC_FLUSH or SYNC_FLUSH (group commit: answer after fdatasync).",
			field: func(c *Broker) any { return &c.FlushDiskType },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.FlushType = c.FlushDiskType.storeFlushType() }},
		brokerKey{name: "storePathRootDir", defFunc: func() string { return filepath.Join(userHome(), "store") },
			defDoc: "`${user.home}/store`",
			doc:    "Store root: consumequeue/, index/, config/, checkpoint, abort, lock.",
			field:  func(c *Broker) any { return &c.StorePathRootDir },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.RootDir, o.Broker.Store.CommitLogDir = c.StorePathRootDir, c.CommitLogDir()
			}},
		brokerKey{name: "storePathCommitLog", defDoc: "`<storePathRootDir>/commitlog`",
			doc:   "CommitLog directory.",
			field: func(c *Broker) any { return &c.StorePathCommitLog },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.CommitLogDir = c.CommitLogDir() }},
		brokerKey{name: "mappedFileSizeCommitLog", old: "mapedFileSizeCommitLog", def: "1073741824", check: positive,
			doc:   "CommitLog segment size.",
			field: func(c *Broker) any { return &c.MappedFileSizeCommitLog },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.CommitLogSegmentSize = int64(c.MappedFileSizeCommitLog)
			}},
		brokerKey{name: "mappedFileSizeConsumeQueue", old: "mapedFileSizeConsumeQueue", def: "6000000", check: positive,
			doc:   "ConsumeQueue file size (300,000 entries × 20 bytes); rounded up to whole entries.",
			field: func(c *Broker) any { return &c.MappedFileSizeConsumeQueue },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.CQEntriesPerFile = c.MappedFileSizeConsumeQueue / cqUnitSize
			}},
		brokerKey{name: "maxMessageSize", def: "4194304", check: positive,
			doc:   "Largest stored record; must be at least 8 bytes below mappedFileSizeCommitLog.",
			field: func(c *Broker) any { return &c.MaxMessageSize },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.MaxMessageSize = c.MaxMessageSize }},
		brokerKey{name: "checkCRCOnRecover", def: "true",
			doc:   "Verify record CRCs during recovery.",
			field: func(c *Broker) any { return &c.CheckCRCOnRecover },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.CheckCRCOnRecover = c.CheckCRCOnRecover }},
		brokerKey{name: "messageIndexEnable", def: "true",
			doc:   "Build IndexFiles (query by key / unique id).",
			field: func(c *Broker) any { return &c.MessageIndexEnable },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.MessageIndexEnable = c.MessageIndexEnable }},
		brokerKey{name: "messageIndexSafe",
			doc:   "Recover the index from the checkpoint's index timestamp.",
			field: func(c *Broker) any { return &c.MessageIndexSafe }},
		brokerKey{name: "maxHashSlotNum", def: "5000000", check: positive,
			doc:   "Hash slots per IndexFile.",
			field: func(c *Broker) any { return &c.MaxHashSlotNum },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.MaxHashSlotNum = c.MaxHashSlotNum }},
		brokerKey{name: "maxIndexNum", def: "20000000", check: positive,
			doc:   "Entries per IndexFile.",
			field: func(c *Broker) any { return &c.MaxIndexNum },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.MaxIndexNum = c.MaxIndexNum }},
		brokerKey{name: "maxMsgsNumBatch", def: "64", check: positive,
			doc:   "Most results of one query-by-key.",
			field: func(c *Broker) any { return &c.MaxMsgsNumBatch },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.MaxMsgsNumBatch = c.MaxMsgsNumBatch }},
		brokerKey{name: "defaultQueryMaxNum", def: "32", check: positive,
			doc:   "Result limit of a query by unique key (`viewMessage` by msgId).",
			field: func(c *Broker) any { return &c.DefaultQueryMaxNum },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.DefaultQueryMaxNum = c.DefaultQueryMaxNum }},
	)
}

func flushKeys() []brokerKey {
	return section("Flush",
		brokerKey{name: "flushIntervalCommitLog", def: "500", check: positive,
			doc:   "ASYNC_FLUSH: flush every this many ms ...",
			field: func(c *Broker) any { return &c.FlushIntervalCommitLog },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.FlushIntervalCommitLog = c.FlushIntervalCommitLog.Duration()
			}},
		brokerKey{name: "flushCommitLogLeastPages", def: "4",
			doc:   "... when at least this many 4 KiB pages are dirty.",
			field: func(c *Broker) any { return &c.FlushCommitLogLeastPages },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.FlushCommitLogLeastPages = c.FlushCommitLogLeastPages
			}},
		brokerKey{name: "flushCommitLogThoroughInterval", def: "10000", check: positive,
			doc:   "... and regardless of pages this often.",
			field: func(c *Broker) any { return &c.FlushCommitLogThoroughInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.FlushCommitLogThoroughInterval = c.FlushCommitLogThoroughInterval.Duration()
			}},
		brokerKey{name: "flushIntervalConsumeQueue", def: "1000", check: positive,
			doc:   "ConsumeQueue flush interval.",
			field: func(c *Broker) any { return &c.FlushIntervalConsumeQueue },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.FlushIntervalConsumeQueue = c.FlushIntervalConsumeQueue.Duration()
			}},
		brokerKey{name: "flushConsumeQueueLeastPages", def: "2",
			doc:   "Pages needed for a ConsumeQueue flush.",
			field: func(c *Broker) any { return &c.FlushConsumeQueueLeastPages },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.FlushConsumeQueueLeastPages = c.FlushConsumeQueueLeastPages
			}},
		brokerKey{name: "flushConsumeQueueThoroughInterval", def: "60000", check: positive,
			doc:   "ConsumeQueue flush regardless of pages; also how often the checkpoint is written.",
			field: func(c *Broker) any { return &c.FlushConsumeQueueThoroughInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.FlushConsumeQueueThoroughInterval = c.FlushConsumeQueueThoroughInterval.Duration()
			}},
		brokerKey{name: "syncFlushTimeout", def: "5000", check: positive,
			doc:   "SYNC_FLUSH: answer FLUSH_DISK_TIMEOUT after this long.",
			field: func(c *Broker) any { return &c.SyncFlushTimeout },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.SyncFlushTimeout = c.SyncFlushTimeout.Duration() }},
		brokerKey{name: "maxMappedConsumeQueueFiles", origin: ours, def: "0",
			doc: "Most ConsumeQueue files open and mapped at once (a descriptor and a mapping each); idle ones " +
				"are closed and mapped again when used. 0: a quarter of the open file limit, 256-16,384.",
			field: func(c *Broker) any { return &c.MaxMappedConsumeQueueFiles },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.MaxMappedConsumeQueueFiles = c.MaxMappedConsumeQueueFiles
			}},
		brokerKey{name: "consumeQueueSyncFSMin", origin: ours, def: "16",
			doc:   "When more ConsumeQueues than this have entries to flush at once, one syncfs makes them durable instead of an msync each.",
			field: func(c *Broker) any { return &c.ConsumeQueueSyncFSMin },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.ConsumeQueueSyncFSMin = c.ConsumeQueueSyncFSMin }},
	)
}

func cleanupKeys() []brokerKey {
	return section("Cleanup",
		brokerKey{name: "deleteWhen", def: "04",
			doc:   "Hours (`;`-separated, 00-23) at which expired files are deleted.",
			field: func(c *Broker) any { return &c.DeleteWhen },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.DeleteWhen, _ = c.DeleteHours() // checked by Validate
			}},
		brokerKey{name: "fileReservedTime", def: "72",
			doc:   "Hours a CommitLog file is kept after its last write; 0 expires files at once, as in Java.",
			field: func(c *Broker) any { return &c.FileReservedTime },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.FileReservedTime = time.Duration(c.FileReservedTime) * time.Hour
				if c.FileReservedTime == 0 {
					o.Broker.Store.FileReservedTime = time.Nanosecond
				}
			}},
		brokerKey{name: "diskMaxUsedSpaceRatio", def: "75", check: percent,
			doc:   "Disk use (%) above which expired files go at once. Clamped to 10-95 like Java.",
			field: func(c *Broker) any { return &c.DiskMaxUsedSpaceRatio },
			to:    func(c *Broker, o *BrokerOptions) { o.Broker.Store.DiskMaxUsedSpaceRatio = c.DiskMaxUsedSpaceRatio }},
		brokerKey{name: "diskSpaceCleanForciblyRatio", def: "85", check: percent,
			doc: "Disk use (%) above which files are deleted even if not expired. Clamped to 30-85 like " +
				"RocketMQ 5.",
			field: func(c *Broker) any { return &c.DiskSpaceCleanForciblyRatio },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.DiskSpaceCleanForciblyRatio = c.DiskSpaceCleanForciblyRatio
			}},
		brokerKey{name: "diskSpaceWarningLevelRatio", def: "90", check: percent,
			doc:   "Disk use (%) above which writes are refused (code 14). Clamped to 35-90 like RocketMQ 5.",
			field: func(c *Broker) any { return &c.DiskSpaceWarningLevelRatio },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.DiskSpaceWarningLevelRatio = c.DiskSpaceWarningLevelRatio
			}},
		brokerKey{name: "cleanResourceInterval", def: "10000", check: positive,
			doc:   "How often cleanup runs.",
			field: func(c *Broker) any { return &c.CleanResourceInterval },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.CleanResourceInterval = c.CleanResourceInterval.Duration()
			}},
		brokerKey{name: "deleteCommitLogFilesInterval", def: "100",
			doc:   "Pause between two CommitLog file deletions.",
			field: func(c *Broker) any { return &c.DeleteCommitLogFilesInterval }},
		brokerKey{name: "deleteConsumeQueueFilesInterval", def: "100",
			doc:   "Pause between two ConsumeQueue file deletions.",
			field: func(c *Broker) any { return &c.DeleteConsumeQueueFilesInterval }},
		brokerKey{name: "destroyMapedFileIntervalForcibly", def: "120000",
			doc:   "Delete a still-referenced file after this long.",
			field: func(c *Broker) any { return &c.DestroyMapedFileIntervalForcibly },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.DestroyMapedFileIntervalForcibly = c.DestroyMapedFileIntervalForcibly.Duration()
			}},
		brokerKey{name: "redeleteHangedFileInterval", def: "120000", check: positive,
			doc:   "Retry a file whose deletion hung after this long.",
			field: func(c *Broker) any { return &c.RedeleteHangedFileInterval }},
		brokerKey{name: "cleanFileForciblyEnable", def: "true",
			doc:   "Allow deletion of unexpired files when the disk is full.",
			field: func(c *Broker) any { return &c.CleanFileForciblyEnable },
			to: func(c *Broker, o *BrokerOptions) {
				o.Broker.Store.CleanFileForciblyEnable = c.CleanFileForciblyEnable
			}},
	)
}

// storeRole is the store's name for r.
func (r BrokerRole) storeRole() store.Role {
	switch r {
	case SyncMaster:
		return store.RoleSyncMaster
	case Slave:
		return store.RoleSlave
	}
	return store.RoleAsyncMaster
}

// storeFlushType is the store's name for f.
func (f FlushDiskType) storeFlushType() store.FlushType {
	if f == SyncFlush {
		return store.SyncFlush
	}
	return store.AsyncFlush
}
