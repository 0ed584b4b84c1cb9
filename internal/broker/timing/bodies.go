package timing

import (
	"fmt"
	"maps"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/timer"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// CheckpointBody is GET_TIMER_CHECK_POINT's answer: the last checkpoint written, in Java's
// layout with this broker's extension.
func (s *Service) CheckpointBody() []byte {
	c := s.Checkpoint()
	b := body.TimerCheckpoint{
		LastReadTimeMs:         c.ReadMs,
		LastTimerLogFlushPos:   c.LogEnd,
		LastTimerQueueOffset:   c.QueueOffset,
		MasterTimerQueueOffset: c.QueueOffset,
		StateVersion:           c.StateVersion,
		Timestamp:              c.VersionTimestamp,
		Counter:                c.VersionCounter,
		Ext:                    true,
		ReadDone:               c.ReadDone,
		DedupFrom:              c.DedupFrom,
		PrecisionMs:            c.PrecisionMs,
		Slots:                  c.Slots,
	}
	return b.Encode()
}

// Metrics is GET_TIMER_METRICS's answer: the pending messages per real topic.
func (s *Service) Metrics() body.TimerMetrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	m := body.TimerMetrics{DataVersion: body.DataVersion{Counter: s.version, Timestamp: now},
		TimingCount: make(map[string]body.TimerMetric, len(s.pending))}
	for t, n := range s.pending {
		m.TimingCount[t] = body.TimerMetric{Count: n, TimeStamp: now}
	}
	return m
}

// SetMasterProgress takes a slave's master's GET_TIMER_CHECK_POINT answer: the slave's wheel
// follows the master's delivery, and its checkpoint records it, so that it resumes there if it
// is ever started as the master. A checkpoint that counts deliveries the slave's CommitLog does
// not hold yet is ignored (a later one will do).
func (s *Service) SetMasterProgress(b []byte) error {
	c, err := body.DecodeTimerCheckpoint(b)
	if err != nil {
		return err
	}
	if !c.Ext {
		return fmt.Errorf("timing: the master's timer checkpoint has no delivery position (not this broker's)")
	}
	if c.PrecisionMs != s.opts.PrecisionMs || c.Slots != s.slots() {
		return fmt.Errorf("timing: the master's wheel has %d slots of %d ms, this broker %d of %d ms",
			c.Slots, c.PrecisionMs, s.slots(), s.opts.PrecisionMs)
	}
	if c.DedupFrom > s.st.CommitLogMaxOffset() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.master != nil && s.master.ReadMs > c.LastReadTimeMs {
		return nil
	}
	s.master = &timer.Checkpoint{ReadMs: c.LastReadTimeMs, ReadDone: c.ReadDone, DedupFrom: c.DedupFrom}
	return nil
}

// SetMasterMetrics takes a slave's master's GET_TIMER_METRICS answer as the pending counts.
func (s *Service) SetMasterMetrics(m body.TimerMetrics) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = make(map[string]int64, len(m.TimingCount))
	for t, v := range m.TimingCount {
		if v.Count > 0 {
			s.pending[t] = v.Count
		}
	}
}

// followMaster moves a slave's window to its master's progress.
func (s *Service) followMaster() {
	s.mu.Lock()
	m := s.master
	s.mu.Unlock()
	if m != nil && m.ReadMs > s.loop.readMs {
		s.loop.readMs, s.loop.readDone = m.ReadMs, m.ReadDone
		s.readMs.Store(m.ReadMs)
	}
}

// recount rebuilds the pending counts from the wheel (a former slave starting as the master: its
// counts were its master's): every record of every slot still to process, from the first one not
// processed.
func (s *Service) recount() {
	counts := map[string]int64{}
	s.wheel.Each(s.loop.readMs, func(sl timer.Slot) {
		i := int64(0)
		for pos := sl.Last; pos != timer.NoPos; i++ {
			r, err := s.log.Read(pos)
			if err != nil {
				return
			}
			if r.Flags&timer.FlagRecall == 0 && (sl.TimeMs != s.loop.readMs || i >= s.loop.readDone) {
				counts[s.realTopicAt(r.PhyOffset)]++
			}
			pos = r.Prev
		}
	})
	s.mu.Lock()
	s.pending = counts
	s.mu.Unlock()
	s.lg.Info("pending timer messages counted", zap.Any("perTopic", maps.Clone(counts)))
}
