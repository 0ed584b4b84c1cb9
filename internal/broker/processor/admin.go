package processor

import (
	"context"
	"errors"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// updateAndCreateTopic serves UPDATE_AND_CREATE_TOPIC.
func (p *Processor) updateAndCreateTopic(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	h, err := decodeCreateTopic(req.ExtFields)
	if err != nil {
		return nil, err
	}
	tc := body.NewTopicConfig(h.Topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = int(h.ReadQueueNums), int(h.WriteQueueNums), int(h.Perm)
	tc.TopicFilterType = h.TopicFilterType.Or(body.SingleTag)
	tc.TopicSysFlag = int(h.TopicSysFlag.Or(0))
	tc.Order = h.Order.Or(false)
	if err := p.svc.Topics.Update(tc); err != nil {
		return nil, err
	}
	return success(req), nil
}

// decodeCreateTopic decodes UPDATE_AND_CREATE_TOPIC's header. The header declares defaultTopic
// required, as Java does; this broker, which does not use it, has always taken the request
// without it, and still does.
func decodeCreateTopic(ext protocol.Ext) (protocol.CreateTopicRequestHeader, error) {
	var h protocol.CreateTopicRequestHeader
	err := h.Decode(ext)
	var fe *protocol.FieldError
	if errors.As(err, &fe) && fe.Missing && fe.Field == "defaultTopic" {
		ext = ext.Clone()
		ext.Set(fe.Field, "")
		err = h.Decode(ext)
	}
	return h, err
}

// deleteTopic serves DELETE_TOPIC_IN_BROKER.
func (p *Processor) deleteTopic(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.DeleteTopicRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	if err := p.svc.Topics.Delete(h.Topic); err != nil {
		return nil, err
	}
	return success(req), nil
}

// getAllTopicConfig serves GET_ALL_TOPIC_CONFIG.
func (p *Processor) getAllTopicConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.svc.Topics.All())
}

// getSystemTopicListFromBroker serves GET_SYSTEM_TOPIC_LIST_FROM_BROKER.
func (p *Processor) getSystemTopicListFromBroker(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, body.TopicList{TopicList: p.svc.Topics.SystemTopics()})
}

// getAllDelayOffset serves GET_ALL_DELAY_OFFSET: delayOffset.json's content (slaves copy it).
func (p *Processor) getAllDelayOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	data, err := p.svc.DelayOffsets.Encode()
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}
