package store

import (
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// runLogicsFlush flushes the ConsumeQueues every FlushIntervalConsumeQueue
// when at least FlushConsumeQueueLeastPages pages are dirty, and everything
// (with the index) every FlushConsumeQueueThoroughInterval, or as soon as the
// dispatcher has been idle for an interval while the checkpoint lags behind
// it; each flush may advance the checkpoint (see flushLogics).
func (s *Store) runLogicsFlush(stop <-chan struct{}) {
	t := time.NewTicker(s.opts.FlushIntervalConsumeQueue)
	defer t.Stop()
	last, lastDispatched := time.Now(), int64(-1)
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		least := s.opts.FlushConsumeQueueLeastPages
		dispatched := s.disp.offset.Load()
		idle := dispatched == lastDispatched && s.checkpointBehind(dispatched)
		if idle || time.Since(last) >= s.opts.FlushConsumeQueueThoroughInterval {
			least, last = 0, time.Now()
		}
		lastDispatched = dispatched
		if err := s.flushLogics(least); err != nil {
			s.lg.Error("flushing consume queues", zap.Error(err))
		}
	}
}

// checkpointBehind reports whether the checkpoint's dispatched offset is short
// of dispatched.
func (s *Store) checkpointBehind(dispatched int64) bool {
	s.cpMu.Lock()
	defer s.cpMu.Unlock()
	return s.cpLast.DispatchedOffset < dispatched && !s.logicsFailed.Load()
}

// flushLogics flushes the ConsumeQueues (those with at least least dirty
// pages; 0 = all, and the index too) and then writes the checkpoint when it
// advanced. Its dispatchedOffset is the largest offset below which every
// record's ConsumeQueue entry is durable: the dispatcher's position captured
// before the flush, lowered to the first entry some queue still has unflushed.
// After a crash, recovery re-dispatches only from there. A failed ConsumeQueue
// or index flush freezes that offset until restart (a failed sync is never
// trusted again), so the next start rebuilds what may have been lost.
func (s *Store) flushLogics(least int) error {
	dispatched, logicsTS := s.disp.offset.Load(), s.disp.lastTS.Load()
	flushed, physTS := s.cl.FlushedOffset(), s.cl.FlushedStoreTimestamp()
	qs := s.cqs.all()
	errs := s.flushQueues(qs, least)
	durable := dispatched
	for _, q := range qs {
		durable = min(durable, q.DurableBelow(dispatched))
	}
	if least == 0 && s.idx != nil {
		if err := s.idx.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("store: flush index: %w", err))
		}
	}
	if len(errs) > 0 {
		s.logicsFailed.Store(true)
	}
	cpErr := s.advanceCheckpoint(least == 0, durable, dispatched, logicsTS, flushed, physTS)
	return errors.Join(append(errs, cpErr)...)
}

// flushQueues syncs the ConsumeQueues worth it (leastPages): each on its own
// (msync of its entries, fsync of its new files and their directories) when
// at most ConsumeQueueSyncFSMin need it, else all of them with one SyncFS of
// their file system. Every msync and fsync is a device flush, so tens of
// thousands of queues each with a new entry sync at the cost of one instead
// of one each (or four, for a new queue). A queue closed with unflushed
// entries can only be made durable by a SyncFS, so one makes the flush a
// SyncFS.
func (s *Store) flushQueues(qs []*cq, least int) []error {
	var worth []*cq
	syncFS := false
	for _, q := range qs {
		st := q.FlushState()
		if !st.Dirty() {
			continue
		}
		syncFS = syncFS || st.NeedsSyncFS()
		if st.WorthFlushing(least, q.FileSize()) {
			worth = append(worth, q)
		}
	}
	if syncFS || len(worth) > s.opts.ConsumeQueueSyncFSMin {
		if err := s.cqs.syncAll(qs); err != nil {
			return []error{err}
		}
		return nil
	}
	var errs []error
	for _, q := range worth {
		if err := q.Flush(least); err != nil && !errors.Is(err, mmapfile.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errs
}

// advanceCheckpoint writes the checkpoint when an offset moved (always on a
// full flush). The offsets never go back.
func (s *Store) advanceCheckpoint(full bool, durable, dispatched, logicsTS, flushed, physTS int64) error {
	s.cpMu.Lock()
	defer s.cpMu.Unlock()
	c := s.cpLast
	c.HasOffsets = true
	if flushed > c.FlushedOffset {
		c.FlushedOffset, c.PhysicMsgTimestamp = flushed, max(physTS, c.PhysicMsgTimestamp)
	}
	if !s.logicsFailed.Load() && durable > c.DispatchedOffset {
		c.DispatchedOffset = durable
		if durable == dispatched {
			c.LogicsMsgTimestamp = max(logicsTS, c.LogicsMsgTimestamp)
		}
	}
	if s.idx != nil {
		c.IndexMsgTimestamp = s.idx.FlushedTimestamp()
	}
	if !full && c == s.cpLast {
		return nil
	}
	if err := writeCheckpoint(s.opts.FS, s.opts.checkpointPath(), c); err != nil {
		return err
	}
	s.cpLast = c
	return nil
}
