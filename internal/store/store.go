package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/consumequeue"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

// ErrClosed reports use of a closed store.
var ErrClosed = errors.New("store: closed")

// Store is the message store. Its methods are safe for concurrent use.
type Store struct {
	opts Options
	lg   *zap.Logger
	lock io.Closer // flock on RootDir/lock

	cl      *commitlog.CommitLog
	cqs     *queueTable
	idx     Indexer // nil when MessageIndexEnable is off
	disp    *dispatcher
	clean   *cleaner
	deleted *tombstones // deleted topics whose records stay in the CommitLog

	recovery RecoveryStats // what Open's recovery did
	cpMu     sync.Mutex    // serialises checkpoint writes
	cpLast   Checkpoint    // the checkpoint last written
	// logicsFailed: a ConsumeQueue or index flush failed; the checkpoint's
	// dispatched offset stays put until restart.
	logicsFailed atomic.Bool

	stats   *stats
	metrics *metrics

	replicator atomic.Pointer[replicatorBox] // a master's replication service (replica.go)

	closed    atomic.Bool
	bootTime  time.Time
	loop      lifecycle.Group // ConsumeQueue flush, statistics, clean service
	startOnce sync.Once
	closeOnce sync.Once
	closeErr  error
}

// Open opens (or creates) the store under opts.RootDir and recovers it: see
// the package comment. It starts no goroutine; call Start before serving.
// Metrics are registered with reg when it is not nil.
func Open(opts Options, lg *zap.Logger, reg prometheus.Registerer) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	lg = lg.With(zap.String("store", o.RootDir))
	if err := vfs.MkdirAll(o.FS, o.RootDir); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	lock, err := o.FS.Lock(o.lockPath())
	if err != nil {
		return nil, fmt.Errorf("store: lock %s (is another broker using this store?): %w", o.lockPath(), err)
	}
	s := &Store{opts: o, lg: lg, lock: lock, bootTime: time.Now()}
	s.stats = newStats()
	if err := s.open(); err != nil {
		s.release()
		return nil, err
	}
	m, err := newMetrics(s, reg)
	if err != nil {
		s.release()
		return nil, err
	}
	s.metrics = m
	if err := s.createAbortFile(); err != nil {
		s.metrics.unregister()
		s.release()
		return nil, err
	}
	return s, nil
}

// open loads and recovers every part.
func (s *Store) open() error {
	o := &s.opts
	_, err := o.FS.Stat(o.abortPath())
	clean := errors.Is(err, fs.ErrNotExist)
	cp, err := readCheckpoint(o.FS, o.checkpointPath())
	if err != nil {
		s.lg.Warn("ignoring the checkpoint: recovery reads the whole log", zap.Error(err))
	}
	s.lg.Info("opening message store", zap.Bool("lastExitOK", clean), zap.String("flushDiskType", o.FlushType.String()),
		zap.Int64("checkpointFlushedOffset", cp.FlushedOffset), zap.Int64("checkpointDispatchedOffset", cp.DispatchedOffset))
	if s.deleted, err = loadTombstones(o.FS, o.tombstonePath()); err != nil {
		return err
	}
	clOpts := o.commitLogOptions()
	clOpts.OnFlush = s.observeFlush
	clOpts.OnReadable = s.notifyReadable
	if s.cl, err = commitlog.Open(clOpts, s.lg.Named("commitlog")); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	s.cqs = newQueueTable(o.consumeQueueDir(), consumequeue.Options{
		EntriesPerFile: o.CQEntriesPerFile, FS: o.FS, Logger: s.lg.Named("consumequeue"),
		Residency:    consumequeue.NewResidency(o.MaxMappedConsumeQueueFiles),
		WriteThrough: o.FlushType == commitlog.SyncFlush,
	}, s.lg)
	if err := s.cqs.load(clean, s.cl.MinOffset()); err != nil {
		return err
	}
	switch {
	case o.Indexer != nil:
		s.idx = o.Indexer
	case o.MessageIndexEnable:
		if s.idx, err = openIndex(o, clean, cp, s.cl, s.lg.Named("index")); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	s.disp = newDispatcher(s)
	s.clean = newCleaner(s)
	return s.recover(clean, cp)
}

// createAbortFile marks the store open: finding the file at Open means the
// last run did not close cleanly.
func (s *Store) createAbortFile() error {
	f, err := s.opts.FS.Create(s.opts.abortPath())
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		return fmt.Errorf("store: create abort file: %w", err)
	}
	return s.opts.FS.SyncDir(s.opts.RootDir)
}

// Start starts the background work: CommitLog flush, dispatch, ConsumeQueue
// flush and the checkpoint, statistics, the clean service. The disk is
// measured before Start returns, so a full disk refuses the first put.
func (s *Store) Start() {
	s.startOnce.Do(func() {
		if s.closed.Load() {
			return
		}
		s.cl.Start()
		s.disp.start()
		s.clean.checkDisk()
		s.loop.Go(s.runLogicsFlush)
		s.loop.Go(s.stats.run)
		s.loop.Go(s.clean.run)
		s.lg.Info("message store started")
	})
}

// Close shuts the store down; it is idempotent:
//  1. refuse new puts and pulls;
//  2. shut the CommitLog down: complete waiting puts, stop its flusher, flush it;
//  3. stop the dispatcher after it dispatched everything written;
//  4. stop the ConsumeQueue flush and statistics goroutines;
//  5. flush every ConsumeQueue and the index and write the checkpoint;
//  6. remove the abort file, unless a step failed or the log is poisoned, so
//     that the next Open recovers abnormally;
//  7. unmap everything and release the directory lock.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		var errs []error
		errs = append(errs, s.cl.Shutdown())
		s.disp.stop()
		s.loop.Stop()
		errs = append(errs, s.flushLogics(0))
		if perr := s.cl.Err(); perr != nil {
			errs = append(errs, fmt.Errorf("store: commit log is poisoned: %w", perr))
		}
		err := errors.Join(errs...)
		if err == nil {
			if rerr := vfs.RemoveSynced(s.opts.FS, s.opts.abortPath()); rerr != nil {
				err = fmt.Errorf("store: remove abort file: %w", rerr)
			}
		} else {
			s.lg.Warn("store closed uncleanly; the next open recovers abnormally", zap.Error(err))
		}
		s.metrics.unregister()
		s.release()
		s.closeErr = err
		s.lg.Info("message store closed", zap.Error(err))
	})
	return s.closeErr
}

// release unmaps what is open and drops the lock.
func (s *Store) release() {
	if s.cqs != nil {
		s.cqs.closeAll()
	}
	if s.idx != nil {
		if err := s.idx.Close(); err != nil {
			s.lg.Warn("closing index", zap.Error(err))
		}
	}
	if s.cl != nil {
		_ = s.cl.Close()
	}
	_ = s.lock.Close()
}

// IsWritable reports whether puts are accepted: open, the CommitLog not
// poisoned by a failed flush, and the disk not over DiskSpaceWarningLevelRatio.
func (s *Store) IsWritable() bool {
	return !s.closed.Load() && s.cl.IsWritable() && s.clean.fullRemark() == ""
}

// Recovery describes what Open's recovery did.
func (s *Store) Recovery() RecoveryStats { return s.recovery }

// CommitLogMinOffset is the first CommitLog offset still stored.
func (s *Store) CommitLogMinOffset() int64 { return s.cl.MinOffset() }

// CommitLogMaxOffset is the end of the written CommitLog.
func (s *Store) CommitLogMaxOffset() int64 { return s.cl.MaxOffset() }

// CommitLogFlushedOffset is the end of the durable CommitLog.
func (s *Store) CommitLogFlushedOffset() int64 { return s.cl.FlushedOffset() }

// DispatchBehindBytes is how much of the CommitLog is not in the ConsumeQueues yet.
func (s *Store) DispatchBehindBytes() int64 { return s.disp.behind() }
