package stats

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// QueueTimeSpan is one queue's entry of QueryConsumeTimeSpanBody (Java QueueTimeSpan): the store
// times of its first and last message and of the group's last consumed one, and how far behind
// the group is.
type QueueTimeSpan struct {
	ConsumeTimeStamp int64             `json:"consumeTimeStamp"`
	DelayTime        int64             `json:"delayTime"`
	MaxTimeStamp     int64             `json:"maxTimeStamp"`
	MessageQueue     body.MessageQueue `json:"messageQueue"`
	MinTimeStamp     int64             `json:"minTimeStamp"`
}

// TimeSpans is the group's time span on each write queue of a topic (Java
// AdminBrokerProcessor.queryConsumeTimeSpan).
func (s *Service) TimeSpans(name, group string) ([]QueueTimeSpan, error) {
	tc, ok := s.Topics.Get(name)
	if !ok {
		return nil, outcome.Errorf(outcome.TopicNotExist, "topic[%s] not exist", name)
	}
	spans := make([]QueueTimeSpan, 0, tc.WriteQueueNums)
	now := s.now().UnixMilli()
	for q := range int32(tc.WriteQueueNums) {
		spans = append(spans, s.timeSpan(name, group, q, now))
	}
	return spans, nil
}

func (s *Service) timeSpan(name, group string, q int32, now int64) QueueTimeSpan {
	span := QueueTimeSpan{MessageQueue: s.queue(name, q)}
	span.MinTimeStamp = s.Store.EarliestMessageTime(name, q)
	maxOff := s.Store.MaxOffsetInQueue(name, q)
	span.MaxTimeStamp = s.Store.MessageStoreTime(name, q, maxOff-1)
	consumed, ok := s.Offsets.Query(group, name, q)
	if !ok {
		consumed = -1
	}
	span.ConsumeTimeStamp = span.MinTimeStamp
	if consumed > 0 {
		span.ConsumeTimeStamp = s.Store.MessageStoreTime(name, q, consumed-1)
	}
	if consumed < maxOff {
		span.DelayTime = now - s.Store.MessageStoreTime(name, q, max(consumed, 0))
	}
	return span
}
