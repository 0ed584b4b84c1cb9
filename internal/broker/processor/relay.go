package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// getConsumerRunningInfo serves GET_CONSUMER_RUNNING_INFO: admin tools ask the broker, the
// broker asks the client and answers with the client's answer.
func (p *Processor) getConsumerRunningInfo(ctx context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerRunningInfoRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	a, err := p.svc.Relay.RunningInfo(ctx, relay.RunningInfoQuery{Group: h.ConsumerGroup, ClientID: h.ClientID,
		Jstack: h.JstackEnable.Or(false)})
	if err != nil {
		return nil, err
	}
	return relayed(req, a), nil
}

// consumeMessageDirectly serves CONSUME_MESSAGE_DIRECTLY: the broker loads the message by its
// offset msgId and asks the named client to consume it now.
func (p *Processor) consumeMessageDirectly(ctx context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ConsumeMessageDirectlyResultRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	a, err := p.svc.Relay.ConsumeDirectly(ctx, h.ConsumerGroup, h.ClientID.Or(""), h.MsgID.Or(""), p.mayRead(c, req))
	if err != nil {
		return nil, err
	}
	return relayed(req, a), nil
}

// relayed answers req with a client's answer as it came: its code, remark and body.
func relayed(req *protocol.Command, a relay.Answer) *protocol.Command {
	resp := protocol.NewResponse(req, protocol.ResponseCode(a.Code), a.Remark)
	resp.Body = a.Body
	return resp
}

// invokeBrokerToResetOffset serves INVOKE_BROKER_TO_RESET_OFFSET and answers the new offsets as
// a ResetOffsetBody.
func (p *Processor) invokeBrokerToResetOffset(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ResetOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	table, err := p.svc.Relay.ResetOffset(relay.ResetRequest{Topic: h.Topic, Group: h.Group, Timestamp: h.Timestamp,
		Force: h.IsForce, Language: req.Language, From: remoteAddr(c)})
	if err != nil {
		return nil, err
	}
	data, err := resetOffsetBody(table, false)
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}

// invokeBrokerToGetConsumerStatus serves INVOKE_BROKER_TO_GET_CONSUMER_STATUS: the offsets the
// group's members hold of a topic, as GetConsumerStatusBody. A non-empty clientAddr picks the
// member with that client id.
func (p *Processor) invokeBrokerToGetConsumerStatus(ctx context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerStatusRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	tables, err := p.svc.Relay.ConsumerStatus(ctx, h.Topic, h.Group, h.ClientAddr.Or(""))
	if err != nil {
		return nil, err
	}
	data, err := encodeConsumerStatusBody(tables)
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}
