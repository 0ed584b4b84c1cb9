package processor

import (
	"context"
	"slices"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// staticSystemTopicNames are Java TopicValidator's SYSTEM_TOPIC_SET entries that do not depend on
// the broker's names.
var staticSystemTopicNames = []string{
	systopic.AutoCreate, systopic.Schedule, systopic.Benchmark, systopic.TransHalf,
	systopic.Trace, systopic.TransOpHalf, systopic.TransCheckMaxTime, systopic.SelfTest,
	systopic.OffsetMovedEvent,
}

// getSystemTopicListFromBroker lists the system topics (GET_SYSTEM_TOPIC_LIST_FROM_BROKER): Java's
// fixed set plus this broker's built-in topics (cluster and broker name, trace topic, rmq_sys_*).
func (p *Processor) getSystemTopicListFromBroker(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	names := slices.Clone(staticSystemTopicNames)
	for _, name := range p.Topics.Topics() {
		if p.Topics.IsSystemTopic(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return withJSONBody(req, body.TopicList{TopicList: slices.Compact(names)})
}

// queueTimeSpan is one queue's entry of QueryConsumeTimeSpanBody (Java QueueTimeSpan).
type queueTimeSpan struct {
	ConsumeTimeStamp int64             `json:"consumeTimeStamp"`
	DelayTime        int64             `json:"delayTime"`
	MaxTimeStamp     int64             `json:"maxTimeStamp"`
	MessageQueue     body.MessageQueue `json:"messageQueue"`
	MinTimeStamp     int64             `json:"minTimeStamp"`
}

// queryConsumeTimeSpan answers, per queue of a topic, the store times of its first and last
// message, of the group's last consumed message, and how far behind the group is
// (QUERY_CONSUME_TIME_SPAN, Java AdminBrokerProcessor.queryConsumeTimeSpan).
func (p *Processor) queryConsumeTimeSpan(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	name := f.String("topic")
	group := f.String("group")
	if err := f.Err(); err != nil {
		return nil, err
	}
	tc, ok := p.Topics.Get(name)
	if !ok {
		return nil, fail(protocol.TopicNotExist, "topic[%s] not exist", name)
	}
	spans := make([]queueTimeSpan, 0, tc.WriteQueueNums)
	now := time.Now().UnixMilli()
	for q := int32(0); q < int32(tc.WriteQueueNums); q++ {
		s := queueTimeSpan{MessageQueue: body.MessageQueue{Topic: name, BrokerName: p.opts.BrokerName, QueueID: q}}
		s.MinTimeStamp = p.Store.EarliestMessageTime(name, q)
		maxOff := p.Store.MaxOffsetInQueue(name, q)
		s.MaxTimeStamp = p.Store.MessageStoreTime(name, q, maxOff-1)
		consumed, ok := p.Offsets.Query(group, name, q)
		if !ok {
			consumed = -1
		}
		s.ConsumeTimeStamp = s.MinTimeStamp
		if consumed > 0 {
			s.ConsumeTimeStamp = p.Store.MessageStoreTime(name, q, consumed-1)
		}
		if consumed < maxOff {
			s.DelayTime = now - p.Store.MessageStoreTime(name, q, max(consumed, 0))
		}
		spans = append(spans, s)
	}
	return withJSONBody(req, struct {
		ConsumeTimeSpanSet []queueTimeSpan `json:"consumeTimeSpanSet"`
	}{spans})
}
