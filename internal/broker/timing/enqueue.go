package timing

import (
	"strconv"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/timer"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// timerGroup is the consumer group name the service reads rmq_sys_wheel_timer as.
const timerGroup = "CID_RMQ_SYS_TIMER"

// enqueueBatch is how many queue entries one read takes; enqueueMax how many one step takes
// before it records progress.
const (
	enqueueBatch = 256
	enqueueMax   = 64 * 1024
)

// incoming is a rmq_sys_wheel_timer message as the log needs it.
type incoming struct {
	rec       timer.Record
	outMs     int64
	realTopic string
}

// readOutcome is what one read of rmq_sys_wheel_timer came to.
type readOutcome uint8

const (
	readMore    readOutcome = iota // there may be more to take
	readDrained                    // the queue has nothing more
	readBlocked                    // a message must wait (a slave behind its master, or stop)
)

// enqueue takes the new rmq_sys_wheel_timer messages into the log and the wheel, processing the
// slots their store times show complete before each (a master). It reports whether it took
// every message there is.
func (s *Service) enqueue(limit int64, stop <-chan struct{}) (bool, error) {
	for taken := 0; taken < enqueueMax; {
		if s.st.MaxOffsetInQueue(systopic.Timer, 0) <= s.loop.q {
			return true, nil // nothing new: no read (an idle broker counts no get-miss)
		}
		r := s.st.GetMessage(timerGroup, systopic.Timer, 0, s.loop.q, enqueueBatch, nil)
		if r == nil {
			return false, nil // the store is closed
		}
		n, res, err := s.takeResult(r, limit, stop)
		r.Release()
		s.queueOffset.Store(s.loop.q)
		if err != nil || res != readMore {
			return res == readDrained, err
		}
		taken += n
	}
	return false, nil
}

// takeResult takes the messages of one read.
func (s *Service) takeResult(r *store.GetResult, limit int64, stop <-chan struct{}) (int, readOutcome, error) {
	switch r.Status {
	case store.Found:
	case store.OffsetTooSmall, store.OffsetFoundNull, store.MessageWasRemoving:
		s.lg.Error("timer messages expired from the CommitLog before they were taken in",
			zap.Int64("from", s.loop.q), zap.Int64("to", r.NextBeginOffset))
		s.loop.q = r.NextBeginOffset
		return 0, readMore, nil
	case store.OffsetOverflowBadly:
		// The queue reads shorter than what was taken already. Going back would take the same
		// messages into the log twice, so the loop waits; a queue that really shrank (a slave's
		// truncated store) is clamped at the next start.
		return 0, readDrained, nil
	default:
		return 0, readDrained, nil
	}
	for i, raw := range r.Records {
		in, ok := s.parse(raw, r.QueueOffsets[i])
		if !ok {
			s.loop.q = r.QueueOffsets[i] + 1
			continue
		}
		if !s.admit(&in, limit, stop) {
			s.loop.q = r.QueueOffsets[i]
			return i, readBlocked, nil
		}
		if err := s.add(&in); err != nil {
			s.loop.q = r.QueueOffsets[i]
			return i, readBlocked, err
		}
		s.loop.q = r.QueueOffsets[i] + 1
	}
	s.loop.q = r.NextBeginOffset
	return len(r.Records), readMore, nil
}

// parse reads what the log needs of a rmq_sys_wheel_timer record.
func (s *Service) parse(raw []byte, queueOffset int64) (incoming, bool) {
	v, err := message.Parse(raw)
	if err != nil {
		s.lg.Error("skipping an unreadable timer message", zap.Int64("queueOffset", queueOffset), zap.Error(err))
		return incoming{}, false
	}
	out, _ := v.Property(message.PropertyTimerOutMS)
	outMs, err := strconv.ParseInt(string(out), 10, 64)
	real, _ := v.Property(message.PropertyRealTopic)
	if err != nil || len(real) == 0 {
		s.lg.Error("skipping a timer message without TIMER_OUT_MS or REAL_TOPIC", zap.Int64("queueOffset", queueOffset))
		return incoming{}, false
	}
	in := incoming{outMs: outMs, realTopic: string(real), rec: timer.Record{Flags: timer.FlagDeliver,
		PhyOffset: v.PhysicalOffset(), Size: v.TotalSize(), QueueOffset: queueOffset,
		StoreMs: max(v.StoreTimestamp(), s.loop.storeMs)}}
	if _, ok := v.Property(message.PropertyTimerDelUniqKey); ok {
		in.rec.Flags = timer.FlagRecall
	}
	return in, true
}

// admit places in and makes room for it: a master first processes every slot that ended before
// in's store time (nothing still to come can belong to it); a slave waits until its master's
// progress leaves the slot in the wheel's window. It reports false when in must wait.
func (s *Service) admit(in *incoming, limit int64, stop <-chan struct{}) bool {
	s.place(in)
	if !s.opts.Slave {
		return s.processDue(min(in.rec.StoreMs, limit), stop)
	}
	return in.rec.SlotMs < s.loop.readMs+s.slots()*s.opts.PrecisionMs
}

// place chooses in's slot: the slot of its time, or of its store time when it was stored after
// its time; beyond the roll window, the window's last slot, from which it is written again.
func (s *Service) place(in *incoming) {
	p := s.opts.PrecisionMs
	base := s.floor(in.rec.StoreMs)
	slot := max(s.floor(in.outMs), base)
	if last := base + (s.opts.RollWindowSlots-1)*p; slot > last {
		slot = last
		in.rec.Flags |= timer.FlagRoll
	}
	in.rec.SlotMs = slot
}

// add appends in to the log and links it into its slot. A master whose slot was processed
// already (only after a clock step back, or a put slower than frontierMargin) puts it in the
// next slot to process instead, or the one after when that one is being processed (its records
// are counted from its newest: a newer one would shift them).
func (s *Service) add(in *incoming) error {
	if s.late(in.rec.SlotMs) {
		next := s.loop.readMs
		if s.loop.readDone > 0 {
			next += s.opts.PrecisionMs
		}
		s.lg.Warn("timer message arrived after its slot was processed; delivering it with the next",
			zap.Int64("slotMs", in.rec.SlotMs), zap.Int64("nextSlotMs", next))
		in.rec.SlotMs = next
	}
	in.rec.Prev = s.wheel.Get(in.rec.SlotMs).Last
	pos, err := s.log.Append(&in.rec)
	if err != nil {
		return err
	}
	s.wheel.Add(in.rec.SlotMs, pos)
	s.loop.storeMs = in.rec.StoreMs
	if in.rec.Flags&timer.FlagRecall == 0 {
		s.countPending(in.realTopic, 1)
		if s.metrics != nil {
			s.metrics.TimerEnqueued(in.realTopic)
		}
	}
	return nil
}

// late reports whether a master can no longer deliver a record in slot slotMs: processed, or
// being processed.
func (s *Service) late(slotMs int64) bool {
	if s.opts.Slave {
		return false
	}
	return slotMs < s.loop.readMs || slotMs == s.loop.readMs && s.loop.readDone > 0
}
