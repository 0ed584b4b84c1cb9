package timing

import (
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/timer"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// putRetry is the pause before a refused delivery is tried again.
const putRetry = 100 * time.Millisecond

// processDue processes every slot that ended at or before limit, in time order. It reports false
// when stop interrupted it.
func (s *Service) processDue(limit int64, stop <-chan struct{}) bool {
	p := s.opts.PrecisionMs
	for s.loop.readMs+p <= limit {
		if !s.processSlot(s.loop.readMs, stop) {
			return false
		}
		s.loop.readMs += p
		s.loop.readDone = 0
		s.readMs.Store(s.loop.readMs)
	}
	return true
}

// processSlot delivers the records of one slot, newest first, from the first one not processed
// yet; recalled messages and recall records are left out. It reports false when stop
// interrupted it (the slot is then resumed from the record that was being processed).
func (s *Service) processSlot(slotMs int64, stop <-chan struct{}) bool {
	sl := s.wheel.Get(slotMs)
	if sl.First == timer.NoPos {
		return true
	}
	recalled := s.recalls(sl)
	i := int64(0)
	for pos := sl.Last; pos != timer.NoPos; i++ {
		r, err := s.log.Read(pos)
		if err != nil {
			s.lg.Error("timer slot's chain is broken; the rest of the slot is lost", zap.Int64("slotMs", slotMs),
				zap.Int64("pos", pos), zap.Error(err))
			return true
		}
		if i >= s.loop.readDone {
			if !s.process(&r, recalled, stop) {
				return false
			}
			s.loop.readDone = i + 1
		}
		pos = r.Prev
	}
	return true
}

// recalls collects the keys (topic+UNIQ_KEY) the slot's recall records withdraw.
func (s *Service) recalls(sl timer.Slot) map[string]bool {
	var keys map[string]bool
	for pos := sl.Last; pos != timer.NoPos; {
		r, err := s.log.Read(pos)
		if err != nil {
			return keys
		}
		if r.Flags&timer.FlagRecall != 0 && r.Flags&timer.FlagRoll == 0 {
			if m := s.st.LookMessageByOffset(r.PhyOffset); m != nil {
				if keys == nil {
					keys = map[string]bool{}
				}
				keys[m.Props[message.PropertyTimerDelUniqKey]] = true
			}
		}
		pos = r.Prev
	}
	return keys
}

// DeleteKey names a message for a recall (Java TimerMessageStore.buildDeleteKey).
func DeleteKey(topic, uniqKey string) string { return topic + "+" + uniqKey }

// process handles one record: a recall record is done; a recalled message is dropped; any other
// message is delivered (or rolled) unless it already was before a crash. It reports false when
// stop interrupted it.
func (s *Service) process(r *timer.Record, recalled map[string]bool, stop <-chan struct{}) bool {
	if r.Flags&timer.FlagRecall != 0 && r.Flags&timer.FlagRoll == 0 {
		return true
	}
	m := s.st.LookMessageByOffset(r.PhyOffset)
	if m == nil || m.Topic != systopic.Timer {
		s.lg.Error("timer message lost: the CommitLog no longer holds it", zap.Int64("phyOffset", r.PhyOffset),
			zap.Int64("slotMs", r.SlotMs))
		s.settle(r, "")
		return true
	}
	real := m.Props[message.PropertyRealTopic]
	if r.Flags&timer.FlagRoll == 0 && recalled[DeleteKey(real, m.UniqKey())] {
		s.settle(r, real)
		return true
	}
	out := s.outgoing(m, r)
	if s.deliveredBefore(&out) {
		s.settle(r, real)
		return true
	}
	if !s.put(&out, stop) {
		return false
	}
	s.settle(r, real)
	if s.metrics != nil && r.Flags&timer.FlagRoll == 0 {
		s.metrics.TimerDequeued(real)
	}
	return true
}

// settle counts a processed record out of the pending messages.
func (s *Service) settle(r *timer.Record, topic string) {
	if r.Flags&timer.FlagRecall == 0 {
		s.countPending(topic, -1)
	}
}

// outgoing is what delivering m writes: m in its real topic and queue, or, rolled, m again in
// rmq_sys_wheel_timer, with TIMER_ENQUEUE_MS, TIMER_DEQUEUE_MS (and TIMER_ROLL_TIMES) set and
// WAIT=false (Java TimerMessageStore.convert).
func (s *Service) outgoing(m *message.MessageExt, r *timer.Record) store.Message {
	props := m.Props
	props[message.PropertyTimerEnqueueMS] = strconv.FormatInt(r.StoreMs, 10)
	props[message.PropertyTimerDequeueMS] = strconv.FormatInt(s.now(), 10)
	props[message.PropertyWaitStoreMsgOK] = "false"
	topic, qid := systopic.Timer, int32(0)
	if r.Flags&timer.FlagRoll != 0 {
		n, _ := strconv.Atoi(props[message.PropertyTimerRollTimes])
		props[message.PropertyTimerRollTimes] = strconv.Itoa(n + 1)
	} else {
		topic = props[message.PropertyRealTopic]
		q, _ := strconv.Atoi(props[message.PropertyRealQueueID])
		qid = int32(q)
		delete(props, message.PropertyRealTopic)
		delete(props, message.PropertyRealQueueID)
	}
	return store.Message{
		Topic:          topic,
		QueueID:        qid,
		Flag:           m.Flag,
		SysFlag:        m.SysFlag,
		BornTimestamp:  m.BornTimestamp,
		BornHost:       m.BornHost,
		ReconsumeTimes: m.ReconsumeTimes,
		Body:           m.Body,
		Properties:     message.EncodeProperties(props),
	}
}

// deliveredBefore reports whether out was written before the last crash (see dedup).
func (s *Service) deliveredBefore(out *store.Message) bool {
	d := s.loop.dedup
	if d == nil {
		return false
	}
	id, _ := message.LookupPropertyString(out.Properties, message.PropertyUniqClientMessageID)
	found, err := d.find(out.Topic, id)
	if err != nil {
		s.lg.Error("looking for deliveries before the crash failed; delivering from here on", zap.Error(err))
	}
	if !found || d.pos >= d.end {
		s.lg.Info("timer redelivery check done", zap.Int("deliveredBeforeTheCrash", d.matched),
			zap.Int64("checkedUpTo", d.pos))
		s.loop.dedup = nil
	}
	return found
}

// put stores out, trying again while the store refuses it for a reason that passes (a full
// disk, a slave, a busy page cache). A message the store can never take is dropped with an
// error. It reports false when stop interrupted it.
func (s *Service) put(out *store.Message, stop <-chan struct{}) bool {
	for {
		res := s.st.PutMessage(out)
		switch {
		case res.Status.Stored():
			return true
		case res.Status == store.MessageIllegal || res.Status == store.PropertiesSizeExceeded:
			s.lg.Error("timer message cannot be stored; dropped", zap.String("topic", out.Topic),
				zap.Stringer("status", res.Status), zap.String("remark", res.Remark))
			return true
		}
		s.lg.Warn("delivering a timer message failed; will retry", zap.String("topic", out.Topic),
			zap.Stringer("status", res.Status), zap.String("remark", res.Remark))
		select {
		case <-stop:
			return false
		case <-time.After(putRetry):
		}
	}
}
