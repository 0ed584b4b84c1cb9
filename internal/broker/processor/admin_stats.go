package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/stats"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// getBrokerRuntimeInfo serves GET_BROKER_RUNTIME_INFO.
func (p *Processor) getBrokerRuntimeInfo(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, body.KVTable{Table: p.svc.Stats.RuntimeInfo()})
}

// getTopicStatsInfo serves GET_TOPIC_STATS_INFO.
func (p *Processor) getTopicStatsInfo(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetTopicStatsInfoRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	t, err := p.svc.Stats.TopicStats(h.Topic)
	if err != nil {
		return nil, err
	}
	data, err := t.Encode()
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}

// getConsumeStats serves GET_CONSUME_STATS.
func (p *Processor) getConsumeStats(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumeStatsRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	cs := p.svc.Stats.ConsumeStats(h.ConsumerGroup, h.Topic.Or(""))
	data, err := cs.Encode()
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}

// getConsumerConnectionList serves GET_CONSUMER_CONNECTION_LIST.
func (p *Processor) getConsumerConnectionList(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerConnectionListRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	cc, err := p.svc.Stats.Connections(h.ConsumerGroup)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, cc)
}

// queryTopicConsumeByWho serves QUERY_TOPIC_CONSUME_BY_WHO.
func (p *Processor) queryTopicConsumeByWho(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryTopicConsumeByWhoRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	return withJSONBody(req, body.GroupList{GroupList: p.svc.Stats.ConsumedBy(h.Topic)})
}

// queryConsumeTimeSpan serves QUERY_CONSUME_TIME_SPAN.
func (p *Processor) queryConsumeTimeSpan(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryConsumeTimeSpanRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	spans, err := p.svc.Stats.TimeSpans(h.Topic, h.Group)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, struct {
		ConsumeTimeSpanSet []stats.QueueTimeSpan `json:"consumeTimeSpanSet"`
	}{spans})
}
