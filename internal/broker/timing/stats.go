package timing

import (
	"github.com/rocketgo/rocketgo/internal/timer"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// EnqueueLag is the rmq_sys_wheel_timer messages stored but not taken into the wheel yet.
func (s *Service) EnqueueLag() int64 {
	return max(s.st.MaxOffsetInQueue(systopic.Timer, 0)-s.queueOffset.Load(), 0)
}

// DequeueLatency is how far delivery is behind the clock, in ms: 0 while every slot that ended is
// processed.
func (s *Service) DequeueLatency() int64 {
	return max(s.now()-s.readMs.Load()-s.opts.PrecisionMs, 0)
}

// Snapshot counts the records of the slots due within each bound (seconds from now), each bucket
// holding those after the previous bound (RocketMQ 5's timer distribution). It reads the wheel's
// slot counts, which include recall records.
func (s *Service) Snapshot(boundsSec []int64) []int64 {
	out := make([]int64, len(boundsSec))
	now := s.floor(s.now())
	s.wheel.Each(s.readMs.Load(), func(sl timer.Slot) {
		ahead := (sl.TimeMs - now) / 1000
		for i, b := range boundsSec {
			if ahead < b {
				out[i] += int64(sl.Num)
				return
			}
		}
	})
	return out
}
