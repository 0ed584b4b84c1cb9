package commitlog

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// ErrClosed reports use of a closed CommitLog.
var ErrClosed = errors.New("commitlog: closed")

// QueueKey names one topic queue.
type QueueKey struct {
	Topic   string
	QueueID int32
}

// CommitLog is the message log. Append and AppendBatch may be called
// concurrently; they serialize on one lock.
type CommitLog struct {
	opts Options
	lg   *zap.Logger
	q    *mmapfile.Queue

	mu struct {
		sync.Mutex
		queueOffsets map[QueueKey]int64 // next queue offset per topic queue
		lastStoreTS  int64              // keeps store timestamps monotonic
		w            recordWriter       // encodes and writes every put
	}
	lockBegin atomic.Int64 // UnixNano when the put lock was taken, 0 when free
	// pendEnd is the end of the log counting records a SYNC_FLUSH put left pending for the
	// next sync (recordWriter), 0 when nothing is pending.
	pendEnd atomic.Int64

	flushedTS atomic.Int64 // store time of the newest durable record (checkpoint)
	poison    atomic.Pointer[error]
	closed    atomic.Bool
	flusher   flusher
	readable  chan struct{} // signalled when ReadableOffset may have advanced

	shutdownOnce sync.Once
	shutdownErr  error
}

// flusher is the SyncFlush group commit or the AsyncFlush loop.
type flusher interface {
	start()
	close()
	// wait blocks until end is durable (SyncFlush) or only wakes the flusher.
	wait(end int64, wait bool) PutStatus
	// waitAsync is wait(end, true) that does not block: pending, done is told the outcome
	// later; otherwise st is the outcome and done is not called.
	waitAsync(end int64, done Completion) (st PutStatus, pending bool)
}

// Completion is told, once, the flush outcome of an append left pending by AppendAsync:
// PutOK once it is durable, FlushDiskTimeout when it was not within SyncFlushTimeout,
// ServiceNotAvailable when the sync failed or the log closed. FlushDone runs on the group
// commit's goroutine (or a timer's): it must not block.
type Completion interface {
	FlushDone(st PutStatus)
}

// Open maps the segments in opts.Dir. Before Append, run Recover to find the
// end of the valid data (loaded segments start out full).
func Open(opts Options, lg *zap.Logger) (*CommitLog, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	q, err := mmapfile.OpenQueue(o.Dir, o.SegmentSize, mmapfile.QueueOptions{
		Preallocate: o.Preallocate, FS: o.FS, Logger: lg,
	})
	if err != nil {
		return nil, fmt.Errorf("commitlog: open %s: %w", o.Dir, err)
	}
	c := &CommitLog{opts: o, lg: lg, q: q, readable: make(chan struct{}, 1)}
	c.mu.queueOffsets = make(map[QueueKey]int64)
	c.mu.w.viaFile = o.FlushType == SyncFlush
	if o.FlushType == SyncFlush {
		c.flusher = newGroupCommit(c)
	} else {
		c.flusher = newAsyncFlush(c)
	}
	return c, nil
}

// Start starts the flush goroutine and segment preallocation (each owned by a
// lifecycle.Group; starting twice does nothing).
func (c *CommitLog) Start() {
	c.q.Start()
	c.flusher.start()
}

// Shutdown stops accepting puts, completes the puts waiting for a flush,
// stops the flush goroutine and flushes everything written. The segments stay
// mapped for readers (the dispatcher's last pass) until Close. Idempotent.
func (c *CommitLog) Shutdown() error {
	var err error
	c.shutdownOnce.Do(func() {
		c.mu.Lock()
		c.closed.Store(true)
		if c.poison.Load() == nil {
			err = c.drainLocked() // puts left pending for a sync that no longer comes
		}
		c.mu.Unlock()
		c.flusher.close()
		if c.poison.Load() == nil {
			if _, ferr := c.q.Flush(0); ferr != nil {
				err = fmt.Errorf("commitlog: final flush: %w", ferr)
			}
		}
		c.shutdownErr = err
	})
	return c.shutdownErr
}

// Close shuts the log down (see Shutdown) and closes the segments; mappings
// still held by readers are unmapped when released. Idempotent.
func (c *CommitLog) Close() error {
	err := c.Shutdown()
	c.q.Close() // idempotent
	return err
}

// Options returns the effective options.
func (c *CommitLog) Options() Options { return c.opts }

// Queue is the underlying segment queue.
func (c *CommitLog) Queue() *mmapfile.Queue { return c.q }

// MinOffset is the first offset still in the log.
func (c *CommitLog) MinOffset() int64 { return c.q.MinOffset() }

// MaxOffset is the end of the data put so far, under SYNC_FLUSH counting the records pending
// for the next sync (which no reader sees before they are durable).
func (c *CommitLog) MaxOffset() int64 {
	pending := c.pendEnd.Load() // before the file's end: a drain publishes there, then clears it
	return max(pending, c.q.MaxOffset())
}

// FlushedOffset is the end of the durable data.
func (c *CommitLog) FlushedOffset() int64 { return c.q.FlushedWhere() }

// FlushedStoreTimestamp is the store time of the newest durable record, for the
// checkpoint's physicMsgTimestamp.
func (c *CommitLog) FlushedStoreTimestamp() int64 { return c.flushedTS.Load() }

// ReadableOffset is how far readers (the dispatcher) may go: the flushed
// offset under SyncFlush, so that nothing is served before it is durable, and
// the written offset under AsyncFlush.
func (c *CommitLog) ReadableOffset() int64 {
	if c.opts.FlushType == SyncFlush {
		return c.FlushedOffset()
	}
	return c.MaxOffset()
}

// Readable is signalled (capacity 1) when ReadableOffset may have advanced.
// It has a single consumer, the dispatcher.
func (c *CommitLog) Readable() <-chan struct{} { return c.readable }

func (c *CommitLog) signalReadable() {
	select {
	case c.readable <- struct{}{}:
	default:
	}
	if c.opts.OnReadable != nil {
		c.opts.OnReadable()
	}
}

// NextFileStart is the start of the segment after the one holding off.
func (c *CommitLog) NextFileStart(off int64) int64 { return c.q.NextFileStart(off) }

// Err is the sync error that poisoned the log, nil while it is healthy.
func (c *CommitLog) Err() error {
	if p := c.poison.Load(); p != nil {
		return *p
	}
	return nil
}

// IsWritable reports whether puts are accepted.
func (c *CommitLog) IsWritable() bool { return c.poison.Load() == nil && !c.closed.Load() }

// poisonWith makes the log read-only after a failed sync or a fault.
func (c *CommitLog) poisonWith(err error) {
	if c.poison.CompareAndSwap(nil, &err) {
		c.lg.Error("commit log is read-only until restart", zap.Error(err))
	}
}

// LockHeldFor is how long the current put has held the put lock, 0 if none.
// The store reports OSPageCacheBusy when it exceeds a threshold.
func (c *CommitLog) LockHeldFor() time.Duration {
	b := c.lockBegin.Load()
	if b == 0 {
		return 0
	}
	return time.Duration(c.opts.Now().UnixNano() - b)
}

// QueueOffset is the next queue offset of a topic queue (0 if unknown).
func (c *CommitLog) QueueOffset(topic string, queueID int32) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.queueOffsets[QueueKey{topic, queueID}]
}

// SetQueueOffsets replaces the topic-queue offset table (after recovery, from
// the ConsumeQueues' max offsets).
func (c *CommitLog) SetQueueOffsets(table map[QueueKey]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mu.queueOffsets = make(map[QueueKey]int64, len(table))
	for k, v := range table {
		c.mu.queueOffsets[k] = v
	}
}

// RemoveTopic forgets the queue offsets of a deleted topic.
func (c *CommitLog) RemoveTopic(topic string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.mu.queueOffsets {
		if k.Topic == topic {
			delete(c.mu.queueOffsets, k)
		}
	}
}
