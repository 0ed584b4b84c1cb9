package store

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// recover brings the CommitLog, the ConsumeQueues and the index into agreement
// after Open (see the package comment), then flushes them and writes a fresh
// checkpoint.
func (s *Store) recover(clean bool, cp Checkpoint) error {
	begin := time.Now()
	from := int64(0) // abnormal without our checkpoint offsets: scan everything
	if cp.HasOffsets {
		from = cp.FlushedOffset
	}
	st, err := s.cl.Recover(clean, from)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	end := st.End
	var dropped int64
	for _, q := range s.cqs.all() {
		n, err := q.TruncateAfter(end)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		dropped += n
	}
	if s.idx != nil {
		if err := s.idx.Truncate(end); err != nil {
			return fmt.Errorf("store: truncate index: %w", err)
		}
	}
	start := s.dispatchStart(clean, cp, st)
	s.disp.offset.Store(start)
	if err := s.disp.dispatchUpTo(end); err != nil {
		return fmt.Errorf("store: re-dispatch from %d: %w", start, err)
	}
	s.restoreQueueOffsets()
	s.lg.Info("store recovered", zap.Bool("clean", clean), zap.Int64("commitLogEnd", end),
		zap.Int("records scanned", st.Records), zap.Int64("cq entries dropped", dropped),
		zap.Int64("re-dispatched from", start), zap.Int64("re-dispatched bytes", end-start),
		zap.Int("queues", s.cqs.count()), zap.Duration("took", time.Since(begin)))
	return s.flushLogics(0)
}

// dispatchStart picks where re-dispatch begins: the checkpointed dispatch
// offset; without one, Java's rule after a clean stop (the largest CommitLog
// end any ConsumeQueue points at) or the scan start after a crash; the log's
// start when there are no ConsumeQueues at all (they were deleted: rebuild).
// After a crash it also reaches back to the index's newest entry: the index
// drops its files written after the checkpoint, older entries included.
func (s *Store) dispatchStart(clean bool, cp Checkpoint, st commitlog.RecoverStats) int64 {
	var start int64
	switch {
	case s.cqs.count() == 0:
		start = 0
	case cp.HasOffsets:
		start = cp.DispatchedOffset
	case clean:
		for _, q := range s.cqs.all() {
			start = max(start, q.MaxPhyOffset())
		}
	default:
		start = st.From
	}
	if !clean && s.idx != nil {
		start = min(start, s.idx.EndPhyOffset())
	}
	return min(max(start, s.cl.MinOffset()), st.End)
}

// restoreQueueOffsets corrects every queue's min offset and rebuilds the
// CommitLog's topic-queue offset table from the queues' max offsets.
func (s *Store) restoreQueueOffsets() {
	minPhy := s.cl.MinOffset()
	table := make(map[commitlog.QueueKey]int64)
	for _, q := range s.cqs.all() {
		q.CorrectMinOffset(minPhy)
		table[commitlog.QueueKey{Topic: q.Topic(), QueueID: q.QueueID()}] = q.MaxOffset()
	}
	s.cl.SetQueueOffsets(table)
}

// runLogicsFlush flushes the ConsumeQueues every FlushIntervalConsumeQueue
// when at least FlushConsumeQueueLeastPages pages are dirty, and everything
// (with the index and the checkpoint) every FlushConsumeQueueThoroughInterval.
func (s *Store) runLogicsFlush() {
	t := time.NewTicker(s.opts.FlushIntervalConsumeQueue)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-s.loop.stopc:
			return
		case <-t.C:
		}
		least := s.opts.FlushConsumeQueueLeastPages
		if time.Since(last) >= s.opts.FlushConsumeQueueThoroughInterval {
			least, last = 0, time.Now()
		}
		if err := s.flushLogics(least); err != nil {
			s.lg.Error("flushing consume queues", zap.Error(err))
		}
	}
}

// flushLogics flushes the ConsumeQueues (those with at least least dirty
// pages). A full flush (least 0) also flushes the index and, when everything
// succeeded, writes the checkpoint: the dispatch offset captured before the
// flush is then known to be durable in every queue and the index.
func (s *Store) flushLogics(least int) error {
	dispatched, logicsTS := s.disp.offset.Load(), s.disp.lastTS.Load()
	flushed, physTS := s.cl.FlushedOffset(), s.cl.FlushedStoreTimestamp()
	var errs []error
	for _, q := range s.cqs.all() {
		if err := q.Flush(least); err != nil && !errors.Is(err, mmapfile.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if least > 0 {
		return errors.Join(errs...)
	}
	var indexTS int64
	if s.idx != nil {
		if err := s.idx.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("store: flush index: %w", err))
		}
		indexTS = s.idx.FlushedTimestamp()
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return writeCheckpoint(s.opts.checkpointPath(), Checkpoint{
		PhysicMsgTimestamp: physTS,
		LogicsMsgTimestamp: logicsTS,
		IndexMsgTimestamp:  indexTS,
		HasOffsets:         true,
		FlushedOffset:      flushed,
		DispatchedOffset:   dispatched,
	})
}
