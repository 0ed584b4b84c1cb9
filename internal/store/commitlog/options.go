package commitlog

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// FlushType selects how puts are made durable.
type FlushType int

// Flush types (Java FlushDiskType).
const (
	AsyncFlush FlushType = iota // ASYNC_FLUSH
	SyncFlush                   // SYNC_FLUSH
)

func (t FlushType) String() string {
	if t == SyncFlush {
		return "SYNC_FLUSH"
	}
	return "ASYNC_FLUSH"
}

// Options configure a CommitLog. Zero fields take the Java defaults.
type Options struct {
	Dir                   string
	SegmentSize           int64         // mappedFileSizeCommitLog, 1 GiB
	MaxMessageSize        int           // maxMessageSize, 4 MiB (capped to SegmentSize-8)
	FlushType             FlushType     // flushDiskType
	FlushInterval         time.Duration // flushIntervalCommitLog, 500 ms
	FlushLeastPages       int           // flushCommitLogLeastPages, 4
	FlushThoroughInterval time.Duration // flushCommitLogThoroughInterval, 10 s
	SyncFlushTimeout      time.Duration // syncFlushTimeout, 5 s
	CheckCRCOnRecover     bool          // checkCRCOnRecover
	StoreHost             netip.AddrPort
	// Preallocate creates the next segment in the background.
	Preallocate bool
	// FS holds the segments; nil means vfs.Default.
	FS vfs.FS
	// Now is the clock for store timestamps; nil means time.Now.
	Now func() time.Time
	// OnFlush, if set, is called after every sync with its duration and error.
	OnFlush func(d time.Duration, err error)
	// OnReadable, if set, is called whenever ReadableOffset may have advanced
	// (a master's replication wakes its senders with it). It must not block.
	OnReadable func()
}

// Defaults.
const (
	DefaultSegmentSize           = 1 << 30
	DefaultMaxMessageSize        = 4 << 20
	DefaultFlushInterval         = 500 * time.Millisecond
	DefaultFlushLeastPages       = 4
	DefaultFlushThoroughInterval = 10 * time.Second
	DefaultSyncFlushTimeout      = 5 * time.Second
)

func (o *Options) withDefaults() (Options, error) {
	c := *o
	if c.Dir == "" {
		return c, fmt.Errorf("commitlog: no directory")
	}
	if c.SegmentSize == 0 {
		c.SegmentSize = DefaultSegmentSize
	}
	if c.SegmentSize < 4096 {
		return c, fmt.Errorf("commitlog: segment size %d is below 4096", c.SegmentSize)
	}
	if c.MaxMessageSize <= 0 {
		c.MaxMessageSize = DefaultMaxMessageSize
	}
	c.MaxMessageSize = min(c.MaxMessageSize, int(c.SegmentSize)-message.BlankMinLen)
	if c.FlushInterval <= 0 {
		c.FlushInterval = DefaultFlushInterval
	}
	if c.FlushLeastPages <= 0 {
		c.FlushLeastPages = DefaultFlushLeastPages
	}
	if c.FlushThoroughInterval <= 0 {
		c.FlushThoroughInterval = DefaultFlushThoroughInterval
	}
	if c.SyncFlushTimeout <= 0 {
		c.SyncFlushTimeout = DefaultSyncFlushTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}
