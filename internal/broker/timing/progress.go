package timing

import (
	"maps"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/timer"
)

// cleanEvery is how many checkpoints pass between removals of log segments no slot needs.
const cleanEvery = 10

// progress makes the log and the wheel durable every FlushInterval and takes a checkpoint of
// them; it writes the checkpoint once the CommitLog is flushed past every message delivered
// before it was taken, so that the checkpoint never claims a delivery a power loss could undo.
func (s *Service) progress(now int64) error {
	if err := s.commitCandidate(); err != nil {
		return err
	}
	if s.loop.cand != nil || now < s.loop.nextSnap {
		return nil
	}
	if err := s.syncFiles(); err != nil {
		return err
	}
	c := s.snapshot(now)
	s.loop.cand, s.loop.nextSnap = &c, now+s.opts.FlushInterval.Milliseconds()
	if s.loop.snaps++; s.loop.snaps%cleanEvery == 0 {
		s.dropUnneededLog()
	}
	return s.commitCandidate()
}

func (s *Service) syncFiles() error {
	if err := s.log.Sync(); err != nil {
		return err
	}
	return s.wheel.Sync()
}

// commitCandidate writes the pending checkpoint if the CommitLog is flushed past its DedupFrom.
func (s *Service) commitCandidate() error {
	c := s.loop.cand
	if c == nil || s.st.CommitLogFlushedOffset() < c.DedupFrom {
		return nil
	}
	if err := timer.SaveCheckpoint(s.opts.FS, s.checkpointPath(), c); err != nil {
		return err
	}
	s.mu.Lock()
	s.saved = *c
	s.mu.Unlock()
	s.loop.cand = nil
	return nil
}

// snapshot is a checkpoint of the loop's state, taken right after the log and the wheel were
// made durable. A slave records its master's delivery progress instead of its own.
func (s *Service) snapshot(now int64) timer.Checkpoint {
	c := timer.Checkpoint{
		PrecisionMs: s.opts.PrecisionMs,
		Slots:       s.slots(),
		ReadMs:      s.loop.readMs,
		ReadDone:    s.loop.readDone,
		DedupFrom:   s.st.CommitLogMaxOffset(),
		QueueOffset: s.loop.q,
		LogEnd:      s.log.End(),
		StoreMs:     s.loop.storeMs,
	}
	if d := s.loop.dedup; d != nil {
		c.DedupFrom = d.pos // still matching: what lies after pos may be matched after another crash
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.Slave {
		c.Flags = timer.FromSlave
		if s.master != nil {
			c.ReadMs, c.ReadDone, c.DedupFrom = s.master.ReadMs, s.master.ReadDone, s.master.DedupFrom
		}
	}
	s.version++
	c.VersionTimestamp, c.VersionCounter = now, s.version
	c.Pending = maps.Clone(s.pending)
	return c
}

// dropUnneededLog removes the log segments below every record still to process (from the last
// written checkpoint's slot on: after a crash processing resumes there) and below the checkpoint's
// log end (replay starts there).
func (s *Service) dropUnneededLog() {
	s.mu.Lock()
	from, logEnd := s.saved.ReadMs, s.saved.LogEnd
	s.mu.Unlock()
	need := logEnd
	s.wheel.Each(from, func(sl timer.Slot) { need = min(need, sl.First) })
	n, err := s.log.DropBelow(need)
	if err != nil {
		s.lg.Warn("removing old timer log segments failed", zap.Error(err))
	}
	if n > 0 {
		s.lg.Info("removed timer log segments no pending timer needs", zap.Int("segments", n), zap.Int64("below", need))
	}
}

// finalCheckpoint makes the files durable and writes a checkpoint at Close, when the CommitLog
// allows (the broker closes the service after the store, which flushes it).
func (s *Service) finalCheckpoint() error {
	if s.log == nil || s.wheel == nil {
		return nil
	}
	if err := s.syncFiles(); err != nil {
		return err
	}
	c := s.snapshot(time.Now().UnixMilli())
	s.loop.cand = &c
	return s.commitCandidate()
}

// countPending adds n to topic's pending messages.
func (s *Service) countPending(topic string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.pending[topic] + n; v > 0 {
		s.pending[topic] = v
	} else {
		delete(s.pending, topic)
	}
}

// Pending returns the messages still to deliver, per real topic.
func (s *Service) Pending() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.pending)
}

// Checkpoint returns the last checkpoint written.
func (s *Service) Checkpoint() timer.Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.saved
	c.Pending = maps.Clone(c.Pending)
	return c
}
