package timing

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/timer"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

func (s *Service) checkpointPath() string { return filepath.Join(s.dir, checkpointName) }

// recover restores the loop's state from the checkpoint, replays the log records written after
// it into the wheel and the pending counts, and arms the deduplication of what was delivered
// after it.
func (s *Service) recover() error {
	cp, found, err := timer.LoadCheckpoint(s.opts.FS, s.checkpointPath())
	if err != nil {
		return err
	}
	if !found {
		cp = s.freshCheckpoint()
	}
	if cp.PrecisionMs != s.opts.PrecisionMs || cp.Slots != s.slots() {
		return fmt.Errorf("the checkpoint was written for %d slots of %d ms, configured %d of %d ms",
			cp.Slots, cp.PrecisionMs, s.slots(), s.opts.PrecisionMs)
	}
	s.restore(cp)
	rep, err := s.replay(cp.LogEnd)
	if err != nil {
		return err
	}
	if !found {
		if err := s.saveFirstCheckpoint(&cp, rep); err != nil {
			return err
		}
	}
	s.dropDanglingSlots()
	s.clampQueueOffset()
	if end := s.st.CommitLogMaxOffset(); cp.DedupFrom < end && !s.opts.Slave {
		s.loop.dedup = &dedup{st: s.st, pos: cp.DedupFrom, end: end}
	}
	if cp.Flags&timer.FromSlave != 0 && !s.opts.Slave {
		s.recount() // a former slave: its counts were its master's
	}
	s.lg.Info("timer recovered", zap.Bool("checkpoint", found), zap.Int64("readMs", cp.ReadMs),
		zap.Int64("readDone", cp.ReadDone), zap.Int64("queueOffset", s.loop.q), zap.Int("replayed", rep.n),
		zap.Int64("logEnd", s.log.End()), zap.Int64("dedupFrom", cp.DedupFrom))
	return nil
}

// freshCheckpoint is where a broker without timer files starts: delivery from now, the timer
// queue from its start, nothing delivered yet.
func (s *Service) freshCheckpoint() timer.Checkpoint {
	var flags int64
	if s.opts.Slave {
		flags = timer.FromSlave
	}
	return timer.Checkpoint{
		Flags:       flags,
		PrecisionMs: s.opts.PrecisionMs,
		Slots:       s.slots(),
		ReadMs:      s.floor(s.now()),
		DedupFrom:   s.st.CommitLogMaxOffset(),
		QueueOffset: s.st.MinOffsetInQueue(systopic.Timer, 0),
		Pending:     map[string]int64{},
	}
}

// saveFirstCheckpoint writes the checkpoint a broker without one starts from, before anything is
// delivered, so that a crash before the first periodic checkpoint resumes from it. A log without
// a checkpoint (the checkpoint file was removed) is processed from its earliest slot, and what
// may have been delivered is looked for from its earliest message on.
func (s *Service) saveFirstCheckpoint(cp *timer.Checkpoint, rep replayed) error {
	if rep.n > 0 {
		s.lg.Warn("timer log without a checkpoint: processing it from its first slot", zap.Int("records", rep.n))
		cp.ReadMs, cp.DedupFrom = min(cp.ReadMs, rep.minSlot), min(cp.DedupFrom, rep.minPhy)
		s.loop.readMs = cp.ReadMs
		s.readMs.Store(cp.ReadMs)
	}
	cp.QueueOffset, cp.LogEnd, cp.StoreMs = s.loop.q, s.log.End(), s.loop.storeMs
	if err := s.syncFiles(); err != nil {
		return err
	}
	s.mu.Lock()
	cp.Pending = maps.Clone(s.pending)
	s.mu.Unlock()
	if err := timer.SaveCheckpoint(s.opts.FS, s.checkpointPath(), cp); err != nil {
		return err
	}
	s.mu.Lock()
	s.saved = *cp
	s.mu.Unlock()
	return nil
}

func (s *Service) restore(cp timer.Checkpoint) {
	s.loop.q, s.loop.storeMs = cp.QueueOffset, cp.StoreMs
	s.loop.readMs, s.loop.readDone = cp.ReadMs, cp.ReadDone
	s.readMs.Store(cp.ReadMs)
	s.queueOffset.Store(cp.QueueOffset)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.saved = cp
	s.version = cp.VersionCounter
	for t, n := range cp.Pending {
		s.pending[t] = n
	}
}

// replay reads the log from the checkpoint's end: each record goes into the wheel (unless the
// wheel file already has it) and the pending counts. It stops at a record whose message the
// CommitLog does not hold (a power loss took the CommitLog's tail but not the log's): the log
// ends there.
func (s *Service) replay(from int64) (replayed, error) {
	rep := replayed{minSlot: math.MaxInt64, minPhy: math.MaxInt64}
	maxPhy := s.st.CommitLogMaxOffset()
	_, err := s.log.Recover(from, func(pos int64, r timer.Record) error {
		if r.PhyOffset+int64(r.Size) > maxPhy {
			s.lg.Warn("the timer log is ahead of the CommitLog; cut", zap.Int64("pos", pos), zap.Int64("phyOffset", r.PhyOffset))
			return timer.ErrEndHere
		}
		s.wheel.Replay(r.SlotMs, pos)
		if r.Flags&timer.FlagRecall == 0 {
			s.countPending(s.realTopicAt(r.PhyOffset), 1)
		}
		s.loop.q, s.loop.storeMs = r.QueueOffset+1, r.StoreMs
		rep.n++
		rep.minSlot, rep.minPhy = min(rep.minSlot, r.SlotMs), min(rep.minPhy, r.PhyOffset)
		return nil
	})
	return rep, err
}

// replayed is what replay found: how many records, the earliest slot and CommitLog offset.
type replayed struct {
	n               int
	minSlot, minPhy int64
}

// realTopicAt is the REAL_TOPIC of the timer message at a CommitLog offset ("" when unreadable).
func (s *Service) realTopicAt(phy int64) string {
	m := s.st.LookMessageByOffset(phy)
	if m == nil {
		return ""
	}
	return m.Props[message.PropertyRealTopic]
}

// dropDanglingSlots empties slots that point past the log's end: only a damaged log (a record
// before the durable end unreadable) leaves them; their records are lost and logged.
func (s *Service) dropDanglingSlots() {
	end := s.log.End()
	var bad []timer.Slot
	s.wheel.Each(s.loop.readMs, func(sl timer.Slot) {
		if sl.Last >= end || sl.First >= end {
			bad = append(bad, sl)
		}
	})
	for _, sl := range bad {
		s.lg.Error("timer slot points past the timer log's end; its records are lost", zap.Int64("slotMs", sl.TimeMs),
			zap.Int64("last", sl.Last), zap.Int64("logEnd", end), zap.Int32("records", sl.Num))
		s.wheel.Reset(sl.TimeMs)
	}
}

// clampQueueOffset keeps the next offset to take inside rmq_sys_wheel_timer's queue.
func (s *Service) clampQueueOffset() {
	lo, hi := s.st.MinOffsetInQueue(systopic.Timer, 0), s.st.MaxOffsetInQueue(systopic.Timer, 0)
	switch {
	case s.loop.q < lo:
		s.lg.Error("timer messages expired from the CommitLog before they were taken in", zap.Int64("from", s.loop.q),
			zap.Int64("to", lo))
		s.loop.q = lo
	case s.loop.q > hi && hi > 0:
		s.lg.Warn("rmq_sys_wheel_timer is shorter than the timer's checkpoint", zap.Int64("checkpoint", s.loop.q),
			zap.Int64("queueMax", hi))
		s.loop.q = hi
	}
	s.queueOffset.Store(s.loop.q)
}

// floor is t rounded down to the precision.
func (s *Service) floor(t int64) int64 { return t / s.opts.PrecisionMs * s.opts.PrecisionMs }
