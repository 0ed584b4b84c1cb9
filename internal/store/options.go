package store

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/consumequeue"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

// FlushType selects how puts are made durable (Java flushDiskType).
type FlushType = commitlog.FlushType

// Flush types.
const (
	AsyncFlush = commitlog.AsyncFlush
	SyncFlush  = commitlog.SyncFlush
)

// DefaultDelayLevels is Java's messageDelayLevel.
const DefaultDelayLevels = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"

// Options configure a Store. Names follow Java's MessageStoreConfig. Start from
// DefaultOptions: zero sizes and durations are replaced by the defaults at
// Open, but booleans are taken as given.
type Options struct {
	RootDir      string // storePathRootDir
	CommitLogDir string // storePathCommitLog; "" means RootDir/commitlog

	CommitLogSegmentSize int64 // mappedFileSizeCommitLog, 1 GiB
	CQEntriesPerFile     int   // mappedFileSizeConsumeQueue / 20, 300,000
	MaxMessageSize       int   // maxMessageSize, 4 MiB

	FlushType                         FlushType     // flushDiskType
	FlushIntervalCommitLog            time.Duration // 500 ms
	FlushCommitLogLeastPages          int           // 4
	FlushCommitLogThoroughInterval    time.Duration // 10 s
	SyncFlushTimeout                  time.Duration // 5 s
	FlushIntervalConsumeQueue         time.Duration // 1 s
	FlushConsumeQueueLeastPages       int           // 2
	FlushConsumeQueueThoroughInterval time.Duration // 60 s; also how often the checkpoint is written

	// MaxMappedConsumeQueueFiles caps the ConsumeQueue files open and mapped
	// at once (one descriptor and one mapping each): queues not used lately
	// are closed and mapped again when read or written. 0 means a quarter of
	// the process's open file limit, between 256 and 16,384, which keeps a
	// broker with any number of queues under the kernel's default
	// vm.max_map_count (65,530). Not a Java option.
	MaxMappedConsumeQueueFiles int
	// ConsumeQueueSyncFSMin: when more ConsumeQueues than this have entries to
	// flush at once, they are made durable with one syncfs of their file system
	// instead of one msync each (default 16). Not a Java option.
	ConsumeQueueSyncFSMin int

	CheckCRCOnRecover bool // checkCRCOnRecover (default true)
	// Preallocate creates the next CommitLog segment in the background
	// (Java's AllocateMappedFileService; default true).
	Preallocate bool

	// Role is the replication role (brokerRole; replica.go, docs/ha.md).
	Role Role

	// StoreHost is brokerIP1:listenPort, written into every record.
	StoreHost netip.AddrPort
	// DelayLevels is messageDelayLevel parsed (ParseDelayLevels): level n
	// delays by DelayLevels[n-1]. SCHEDULE_TOPIC_XXXX entries get storeTimestamp
	// + delay as their tagsCode.
	DelayLevels []time.Duration

	// Pull batch limits (Java defaults 256 KiB/32 in memory, 64 KiB/8 on disk).
	MaxTransferBytesOnMessageInMemory int
	MaxTransferCountOnMessageInMemory int
	MaxTransferBytesOnMessageInDisk   int
	MaxTransferCountOnMessageInDisk   int
	// AccessMessageInMemoryMaxRatio: data more than this percentage of RAM
	// behind the log's end counts as on disk (40).
	AccessMessageInMemoryMaxRatio int
	// TotalMemory overrides the RAM size used with that ratio (0: the machine's).
	TotalMemory int64
	// OSPageCacheBusyTimeout: a put lock held longer than this makes new puts
	// fail with OSPageCacheBusy (osPageCacheBusyTimeOutMills, 1 s).
	OSPageCacheBusyTimeout time.Duration

	// MessageIndexEnable builds the IndexFile (messageIndexEnable, default true).
	MessageIndexEnable bool
	MaxHashSlotNum     int // maxHashSlotNum, 5,000,000
	MaxIndexNum        int // maxIndexNum, 20,000,000
	MaxMsgsNumBatch    int // maxMsgsNumBatch, 64: cap on QueryMessage results
	// Indexer, when set, replaces the built-in IndexFile service (whatever
	// MessageIndexEnable says). The store closes it.
	Indexer Indexer

	// OnDispatch is called by the dispatcher for every record it puts in a
	// ConsumeQueue (long polling wakes held pulls with it). It runs on the
	// dispatcher goroutine and must be quick; DispatchInfo.Properties is only
	// valid during the call.
	OnDispatch func(DispatchInfo)

	// Cleanup and disk guard (Java CleanCommitLogService and
	// CleanConsumeQueueService; see clean.go).
	DeleteWhen                  []int         // deleteWhen: hours of the day expired segments go, [4]
	FileReservedTime            time.Duration // fileReservedTime: age at which a segment expires, 72 h
	DiskMaxUsedSpaceRatio       int           // diskMaxUsedSpaceRatio: over it expired segments go at once, 75 (%)
	DiskSpaceCleanForciblyRatio int           // diskSpaceCleanForciblyRatio: over it segments go whatever their age, 85
	DiskSpaceWarningLevelRatio  int           // diskSpaceWarningLevelRatio: over it puts are refused, 90
	CleanResourceInterval       time.Duration // cleanResourceInterval: how often the clean service runs, 10 s
	// DestroyMapedFileIntervalForcibly: a deleted segment still mapped by
	// readers this long after its deletion is reported (120 s). Its mapping is
	// never pulled from under a reader.
	DestroyMapedFileIntervalForcibly time.Duration
	// CleanFileForciblyEnable allows deleting segments regardless of age over
	// DiskSpaceCleanForciblyRatio (cleanFileForciblyEnable, default true).
	CleanFileForciblyEnable bool
	// OnCleaned is called by the clean service after it deleted files, with
	// what went; the broker moves consumer offsets that fell below a queue's new
	// minimum up to it. It runs on the clean goroutine.
	OnCleaned func(CleanResult)

	// FS is the file system every file of the store is created, read, mapped,
	// synced and removed through, and whose DiskUsage (statfs, as df counts)
	// the disk guard reads; nil means vfs.Default (the os package). Tests pass
	// a vfstest.FS to trace, fail or drop operations, or fake the disk usage.
	FS vfs.FS
	// Now is the clock for store timestamps and file expiry; nil means time.Now.
	Now func() time.Time
}

// DefaultOptions returns Java's defaults with root as the store directory.
func DefaultOptions(root string) Options {
	levels, _ := ParseDelayLevels(DefaultDelayLevels)
	return Options{
		RootDir:                           root,
		CommitLogSegmentSize:              commitlog.DefaultSegmentSize,
		CQEntriesPerFile:                  consumequeue.DefaultEntriesPerFile,
		MaxMessageSize:                    commitlog.DefaultMaxMessageSize,
		FlushType:                         AsyncFlush,
		FlushIntervalCommitLog:            commitlog.DefaultFlushInterval,
		FlushCommitLogLeastPages:          commitlog.DefaultFlushLeastPages,
		FlushCommitLogThoroughInterval:    commitlog.DefaultFlushThoroughInterval,
		SyncFlushTimeout:                  commitlog.DefaultSyncFlushTimeout,
		FlushIntervalConsumeQueue:         time.Second,
		FlushConsumeQueueLeastPages:       2,
		FlushConsumeQueueThoroughInterval: time.Minute,
		ConsumeQueueSyncFSMin:             16,
		CheckCRCOnRecover:                 true,
		Preallocate:                       true,
		DelayLevels:                       levels,
		MaxTransferBytesOnMessageInMemory: 256 << 10,
		MaxTransferCountOnMessageInMemory: 32,
		MaxTransferBytesOnMessageInDisk:   64 << 10,
		MaxTransferCountOnMessageInDisk:   8,
		AccessMessageInMemoryMaxRatio:     40,
		OSPageCacheBusyTimeout:            time.Second,
		MessageIndexEnable:                true,
		MaxHashSlotNum:                    5_000_000,
		MaxIndexNum:                       20_000_000,
		MaxMsgsNumBatch:                   64,
		DeleteWhen:                        []int{4},
		FileReservedTime:                  72 * time.Hour,
		DiskMaxUsedSpaceRatio:             75,
		DiskSpaceCleanForciblyRatio:       85,
		DiskSpaceWarningLevelRatio:        90,
		CleanResourceInterval:             10 * time.Second,
		DestroyMapedFileIntervalForcibly:  120 * time.Second,
		CleanFileForciblyEnable:           true,
	}
}

// ParseDelayLevels parses messageDelayLevel: space-separated durations with a
// unit s, m, h or d ("1s 5s 10s 30s 1m ... 2h").
func ParseDelayLevels(s string) ([]time.Duration, error) {
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}
	var out []time.Duration
	for _, f := range strings.Fields(s) {
		unit, ok := units[f[len(f)-1]]
		n, err := strconv.ParseInt(f[:len(f)-1], 10, 64)
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("store: bad delay level %q in %q", f, s)
		}
		out = append(out, time.Duration(n)*unit)
	}
	return out, nil
}

// withDefaults fills zero fields and derives directories.
func (o Options) withDefaults() (Options, error) {
	if o.RootDir == "" {
		return o, fmt.Errorf("store: no root directory")
	}
	d := DefaultOptions(o.RootDir)
	if o.CommitLogDir == "" {
		o.CommitLogDir = filepath.Join(o.RootDir, "commitlog")
	}
	setInt64(&o.CommitLogSegmentSize, d.CommitLogSegmentSize)
	setInt(&o.CQEntriesPerFile, d.CQEntriesPerFile)
	setInt(&o.MaxMessageSize, d.MaxMessageSize)
	setDur(&o.FlushIntervalCommitLog, d.FlushIntervalCommitLog)
	setInt(&o.FlushCommitLogLeastPages, d.FlushCommitLogLeastPages)
	setDur(&o.FlushCommitLogThoroughInterval, d.FlushCommitLogThoroughInterval)
	setDur(&o.SyncFlushTimeout, d.SyncFlushTimeout)
	setDur(&o.FlushIntervalConsumeQueue, d.FlushIntervalConsumeQueue)
	setInt(&o.FlushConsumeQueueLeastPages, d.FlushConsumeQueueLeastPages)
	setDur(&o.FlushConsumeQueueThoroughInterval, d.FlushConsumeQueueThoroughInterval)
	setInt(&o.ConsumeQueueSyncFSMin, d.ConsumeQueueSyncFSMin)
	setInt(&o.MaxMappedConsumeQueueFiles, mmapfile.DefaultMappedFiles())
	setInt(&o.MaxTransferBytesOnMessageInMemory, d.MaxTransferBytesOnMessageInMemory)
	setInt(&o.MaxTransferCountOnMessageInMemory, d.MaxTransferCountOnMessageInMemory)
	setInt(&o.MaxTransferBytesOnMessageInDisk, d.MaxTransferBytesOnMessageInDisk)
	setInt(&o.MaxTransferCountOnMessageInDisk, d.MaxTransferCountOnMessageInDisk)
	setInt(&o.AccessMessageInMemoryMaxRatio, d.AccessMessageInMemoryMaxRatio)
	setDur(&o.OSPageCacheBusyTimeout, d.OSPageCacheBusyTimeout)
	setInt(&o.MaxHashSlotNum, d.MaxHashSlotNum)
	setInt(&o.MaxIndexNum, d.MaxIndexNum)
	setInt(&o.MaxMsgsNumBatch, d.MaxMsgsNumBatch)
	if o.DelayLevels == nil {
		o.DelayLevels = d.DelayLevels
	}
	if err := o.cleanupDefaults(d); err != nil {
		return o, err
	}
	if o.TotalMemory <= 0 {
		o.TotalMemory = mmapfile.TotalMemory()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// cleanupDefaults fills and checks the cleanup options.
func (o *Options) cleanupDefaults(d Options) error {
	if o.DeleteWhen == nil {
		o.DeleteWhen = d.DeleteWhen
	}
	for _, h := range o.DeleteWhen {
		if h < 0 || h > 23 {
			return fmt.Errorf("store: deleteWhen hour %d is not 0-23", h)
		}
	}
	setDur(&o.FileReservedTime, d.FileReservedTime)
	setInt(&o.DiskMaxUsedSpaceRatio, d.DiskMaxUsedSpaceRatio)
	setInt(&o.DiskSpaceCleanForciblyRatio, d.DiskSpaceCleanForciblyRatio)
	setInt(&o.DiskSpaceWarningLevelRatio, d.DiskSpaceWarningLevelRatio)
	setDur(&o.CleanResourceInterval, d.CleanResourceInterval)
	setDur(&o.DestroyMapedFileIntervalForcibly, d.DestroyMapedFileIntervalForcibly)
	if o.FS == nil {
		o.FS = vfs.Default
	}
	return nil
}

func setInt(p *int, d int) {
	if *p <= 0 {
		*p = d
	}
}

func setInt64(p *int64, d int64) {
	if *p <= 0 {
		*p = d
	}
}

func setDur(p *time.Duration, d time.Duration) {
	if *p <= 0 {
		*p = d
	}
}

func (o *Options) commitLogOptions() commitlog.Options {
	return commitlog.Options{
		Dir:                   o.CommitLogDir,
		SegmentSize:           o.CommitLogSegmentSize,
		MaxMessageSize:        o.MaxMessageSize,
		FlushType:             o.FlushType,
		FlushInterval:         o.FlushIntervalCommitLog,
		FlushLeastPages:       o.FlushCommitLogLeastPages,
		FlushThoroughInterval: o.FlushCommitLogThoroughInterval,
		SyncFlushTimeout:      o.SyncFlushTimeout,
		CheckCRCOnRecover:     o.CheckCRCOnRecover,
		StoreHost:             o.StoreHost,
		Preallocate:           o.Preallocate,
		FS:                    o.FS,
		Now:                   o.Now,
	}
}

// Paths under RootDir.
func (o *Options) consumeQueueDir() string { return filepath.Join(o.RootDir, "consumequeue") }
func (o *Options) indexDir() string        { return filepath.Join(o.RootDir, "index") }
func (o *Options) checkpointPath() string  { return filepath.Join(o.RootDir, "checkpoint") }
func (o *Options) abortPath() string       { return filepath.Join(o.RootDir, "abort") }
func (o *Options) tombstonePath() string   { return filepath.Join(o.RootDir, "deletedTopics.json") }
func (o *Options) lockPath() string        { return filepath.Join(o.RootDir, "lock") }
