package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/queueoffset"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// toolHandlers are the admin calls of Apache's tools (the dashboard, rocketmq-exporter, mqadmin)
// that 4.9's first broker handlers did not cover.
func (p *Processor) toolHandlers() map[protocol.RequestCode]handleFunc {
	return map[protocol.RequestCode]handleFunc{
		protocol.GetProducerConnectionList:            p.getProducerConnectionList,
		protocol.GetAllProducerInfo:                   p.getAllProducerInfo,
		protocol.ViewBrokerStatsData:                  p.viewBrokerStatsData,
		protocol.GetBrokerConsumeStats:                p.getBrokerConsumeStats,
		protocol.GetTopicConfig:                       p.getTopicConfig,
		protocol.GetSubscriptionGroupConfig:           p.getSubscriptionGroupConfig,
		protocol.UpdateAndCreateTopicList:             p.updateAndCreateTopicList,
		protocol.UpdateAndCreateSubscriptionGroupList: p.updateAndCreateSubscriptionGroupList,
		protocol.CloneGroupOffset:                     p.cloneGroupOffset,
		protocol.QueryCorrectionOffset:                p.queryCorrectionOffset,
		protocol.QueryConsumeQueue:                    p.queryConsumeQueue,
	}
}

// getProducerConnectionList serves GET_PRODUCER_CONNECTION_LIST.
func (p *Processor) getProducerConnectionList(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetProducerConnectionListRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	pc, err := p.svc.Stats.ProducerConnections(h.ProducerGroup)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, pc)
}

// getAllProducerInfo serves GET_ALL_PRODUCER_INFO.
func (p *Processor) getAllProducerInfo(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.svc.Stats.AllProducers())
}

// viewBrokerStatsData serves VIEW_BROKER_STATS_DATA.
func (p *Processor) viewBrokerStatsData(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ViewBrokerStatsDataRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	d, err := p.svc.Stats.BrokerStats(h.StatsName, h.StatsKey)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, d)
}

// getBrokerConsumeStats serves GET_BROKER_CONSUME_STATS.
func (p *Processor) getBrokerConsumeStats(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumeStatsInBrokerHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	l := p.svc.Stats.BrokerConsumeStats(h.IsOrder)
	data, err := l.Encode()
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}

// getTopicConfig serves GET_TOPIC_CONFIG: the TopicConfig JSON (Java's TopicConfigAndQueueMapping
// without a static-topic mapping).
func (p *Processor) getTopicConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetTopicConfigRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	tc, err := p.svc.Topics.Config(h.Topic)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, tc)
}

// getSubscriptionGroupConfig serves GET_SUBSCRIPTIONGROUP_CONFIG.
func (p *Processor) getSubscriptionGroupConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetSubscriptionGroupConfigRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	cfg, err := p.svc.Groups.Config(h.Group)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, cfg)
}

// updateAndCreateTopicList serves UPDATE_AND_CREATE_TOPIC_LIST.
func (p *Processor) updateAndCreateTopicList(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var b body.CreateTopicListRequestBody
	if err := body.Unmarshal(req.Body, &b); err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad CreateTopicListRequestBody: %v", err)
	}
	if err := p.svc.Topics.UpdateList(b.TopicConfigList); err != nil {
		return nil, err
	}
	return success(req), nil
}

// updateAndCreateSubscriptionGroupList serves UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST.
func (p *Processor) updateAndCreateSubscriptionGroupList(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	if err := p.svc.Groups.Writable(); err != nil {
		return nil, err
	}
	var b body.SubscriptionGroupList
	if err := body.Unmarshal(req.Body, &b); err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad SubscriptionGroupList: %v", err)
	}
	if err := p.svc.Groups.UpdateList(b.GroupConfigList, remoteAddr(c)); err != nil {
		return nil, err
	}
	return success(req), nil
}

// cloneGroupOffset serves CLONE_GROUP_OFFSET.
func (p *Processor) cloneGroupOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.CloneGroupOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	if err := p.svc.OffsetAdmin.Clone(queueoffset.CloneRequest{SrcGroup: h.SrcGroup, DestGroup: h.DestGroup,
		Topic: h.Topic.Or(""), Offline: h.Offline.Or(false)}); err != nil {
		return nil, err
	}
	return success(req), nil
}

// queryCorrectionOffset serves QUERY_CORRECTION_OFFSET.
func (p *Processor) queryCorrectionOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryCorrectionOffsetHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	offs, err := p.svc.OffsetAdmin.CorrectionOffsets(h.Topic, h.FilterGroups.Or(""), h.CompareGroup)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, body.QueryCorrectionOffsetBody{CorrectionOffsets: offs})
}

// queryConsumeQueue serves QUERY_CONSUME_QUEUE.
func (p *Processor) queryConsumeQueue(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryConsumeQueueRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	res, err := p.svc.OffsetAdmin.ConsumeQueue(queueoffset.QueueQuery{Topic: h.Topic, QueueID: h.QueueID,
		Index: h.Index, Count: h.Count, Group: h.ConsumerGroup.Or("")})
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, res)
}
