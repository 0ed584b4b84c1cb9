package timing

import (
	"math/rand/v2"
	"strconv"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// timerProps are the properties that ask for a delivery time.
var timerProps = [...]string{message.PropertyTimerDeliverMS, message.PropertyTimerDelaySec, message.PropertyTimerDelayMS}

// Divert turns m, about to be stored, into a timer message when it asks for a delivery time
// (Java HookUtils.handleScheduleMessage and transformTimerMessage): its topic and queue move to
// REAL_TOPIC and REAL_QID, TIMER_OUT_MS holds the time rounded down to the precision, and m goes
// to rmq_sys_wheel_timer queue 0. Transaction halves and rollbacks are left alone; so is a
// message with a delay level, whose timer properties are removed (the level wins, as in Java),
// and one whose time has already come. It refuses, as Java does: the wheel disabled
// (SYSTEM_ERROR), a time that is not a number, further than timerMaxDelaySec ahead, or a recall
// whose time has passed (MESSAGE_ILLEGAL), a congested slot (SYSTEM_ERROR). It reports whether m
// became a timer message.
func (s *Service) Divert(m *store.Message) (bool, error) {
	switch message.TransactionType(m.SysFlag) {
	case message.SysFlagTransactionPrep, message.SysFlagTransactionRoll:
		return false, nil
	}
	if m.Topic == systopic.Timer || !hasTimerProps(m.Properties) {
		return false, nil
	}
	props := message.ParseProperties(m.Properties)
	if level, _ := strconv.Atoi(props[message.PropertyDelayTimeLevel]); level > 0 {
		for _, k := range timerProps {
			delete(props, k)
		}
		m.Properties = message.EncodeProperties(props)
		return false, nil
	}
	if _, ok := props[message.PropertyTimerOutMS]; ok {
		return false, nil // already delivered once: sent back or forwarded
	}
	if !s.opts.Enable {
		return false, outcome.Errorf(outcome.SystemError, "accurate timer message is not enabled, timerWheelEnable is false")
	}
	return s.transform(m, props)
}

// hasTimerProps reports whether props holds one of timerProps, without parsing them all.
func hasTimerProps(props string) bool {
	for _, k := range timerProps {
		if _, ok := message.LookupPropertyString(props, k); ok {
			return true
		}
	}
	return false
}

// transform computes the delivery time and rewrites m (Java transformTimerMessage).
func (s *Service) transform(m *store.Message, props map[string]string) (bool, error) {
	now := s.now()
	deliver, ok := deliverTime(props, now)
	if !ok {
		return false, s.illegal()
	}
	if deliver <= now {
		if _, ok := props[message.PropertyTimerDelUniqKey]; ok {
			return false, s.illegal()
		}
		return false, nil
	}
	if deliver-now > s.opts.MaxDelaySec*1000 {
		return false, s.illegal()
	}
	out := s.outTime(deliver)
	if s.congested(out) {
		return false, s.congestion()
	}
	props[message.PropertyTimerOutMS] = strconv.FormatInt(out, 10)
	props[message.PropertyRealTopic] = m.Topic
	props[message.PropertyRealQueueID] = strconv.Itoa(int(m.QueueID))
	m.Properties = message.EncodeProperties(props)
	m.Topic, m.QueueID = systopic.Timer, 0
	return true, nil
}

// deliverTime is the time a message asks for: now plus TIMER_DELAY_SEC seconds, else now plus
// TIMER_DELAY_MS, else TIMER_DELIVER_MS; ok is false when the value is not a number.
func deliverTime(props map[string]string, now int64) (int64, bool) {
	if v, ok := props[message.PropertyTimerDelaySec]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		return now + n*1000, err == nil
	}
	if v, ok := props[message.PropertyTimerDelayMS]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		return now + n, err == nil
	}
	n, err := strconv.ParseInt(props[message.PropertyTimerDeliverMS], 10, 64)
	return n, err == nil
}

// outTime is TIMER_OUT_MS for a delivery time: rounded down to the precision, or one precision
// less when it is a multiple of it (Java's rounding; the message's slot then ends at the time).
func (s *Service) outTime(deliver int64) int64 {
	p := s.opts.PrecisionMs
	if deliver%p == 0 {
		return deliver - p
	}
	return deliver / p * p
}

func (s *Service) illegal() error {
	return outcome.Errorf(outcome.MessageIllegal, "timer message illegal, the delay time should not be bigger than "+
		"the max delay %dms; or if set del msg, the delay time should be bigger than the current time",
		s.opts.MaxDelaySec*1000)
}

func (s *Service) congestion() error {
	n := s.opts.CongestNumEachSlot
	return outcome.Errorf(outcome.SystemError, "timer message is under flow control, max num limit is %d or the "+
		"current value is greater than %d and less than %d, trigger random flow control", n*2, n, n*2)
}

// congested is Java's isReject: the slot of out already holds more than timerCongestNumEachSlot
// records: refuse at random, surely at twice as many.
func (s *Service) congested(out int64) bool {
	limit := s.opts.CongestNumEachSlot
	if limit <= 0 || s.wheel == nil {
		return false
	}
	n := int64(s.wheel.Get(out / s.opts.PrecisionMs * s.opts.PrecisionMs).Num)
	switch {
	case n <= limit:
		return false
	case n >= 2*limit:
		return true
	}
	return float64(rand.IntN(1000)) > 1000*float64(n-limit)/(float64(limit)+0.1)
}

// RecallHandle is the handle a send response carries for a stored timer message (Java
// SendMessageProcessor.attachRecallHandle): none for a message that is not one, or whose real
// topic is a retry topic.
func (s *Service) RecallHandle(m *store.Message) string {
	if m.Topic != systopic.Timer {
		return ""
	}
	out, ok1 := message.LookupPropertyString(m.Properties, message.PropertyTimerOutMS)
	real, ok2 := message.LookupPropertyString(m.Properties, message.PropertyRealTopic)
	id, _ := message.LookupPropertyString(m.Properties, message.PropertyUniqClientMessageID)
	ms, err := strconv.ParseInt(out, 10, 64)
	if !ok1 || !ok2 || err != nil || systopic.IsRetry(real) {
		return ""
	}
	return EncodeHandle(Handle{Topic: real, BrokerName: s.opts.BrokerName, Timestamp: strconv.FormatInt(ms+1, 10), MessageID: id})
}
