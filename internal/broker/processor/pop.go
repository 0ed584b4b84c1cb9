package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/pop"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// popMessage serves POP_MESSAGE. A held pop is answered later, on the connection it came on.
func (p *Processor) popMessage(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.PopMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	res, held, err := p.svc.Pop.Pop(popRequest(&h, c.ID()), func(res pop.Result, err error) {
		_ = c.WriteResponse(respond(req, popResponse(req, &res), err))
	})
	if err != nil || held {
		return nil, err
	}
	return popResponse(req, &res), nil
}

func popRequest(h *protocol.PopMessageRequestHeader, connID uint64) pop.Request {
	return pop.Request{
		Group: h.ConsumerGroup, Topic: h.Topic, QueueID: h.QueueID, MaxMsgNums: h.MaxMsgNums,
		InvisibleTime: h.InvisibleTime, PollTime: h.PollTime, BornTime: h.BornTime.Or(0), InitMode: h.InitMode,
		ExpType: h.ExpType.Or(""), Exp: h.Exp.Or(""), Order: h.Order.Or(false), AttemptID: h.AttemptID.Or(""),
		ConnID: connID,
	}
}

// popResponse answers a pop (or a peek): the status's code and the store's status name, the pop
// header, and the records as body parts written without copying.
func popResponse(req *protocol.Command, res *pop.Result) *protocol.Command {
	resp := protocol.NewResponse(req, responseCode(res.Status), res.Remark)
	h := protocol.PopMessageResponseHeader{PopTime: res.PopTime, InvisibleTime: res.InvisibleTime,
		ReviveQid: res.ReviveQid, RestNum: res.RestNum}
	if res.StartOffsetInfo != "" {
		h.StartOffsetInfo = protocol.Some(res.StartOffsetInfo)
		h.MsgOffsetInfo = protocol.Some(res.MsgOffsetInfo)
	}
	if res.OrderCountInfo != "" {
		h.OrderCountInfo = protocol.Some(res.OrderCountInfo)
	}
	h.Encode(&resp.ExtFields)
	resp.BodyParts, resp.Release = res.Records, res.Release
	return resp
}

// ackMessage serves ACK_MESSAGE.
func (p *Processor) ackMessage(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.AckMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	err := p.svc.Pop.Ack(pop.AckRequest{Group: h.ConsumerGroup, Topic: h.Topic, QueueID: h.QueueID,
		ExtraInfo: h.ExtraInfo, Offset: h.Offset})
	if err != nil {
		return nil, err
	}
	return success(req), nil
}

// batchAckMessage serves BATCH_ACK_MESSAGE, whose acks are its JSON body.
func (p *Processor) batchAckMessage(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var acks []body.BatchAck
	if len(req.Body) > 0 {
		b, err := body.DecodeBatchAckMessageRequestBody(req.Body)
		if err != nil {
			return nil, outcome.Errorf(outcome.SystemError, "%v", err)
		}
		acks = b.Acks
	}
	if err := p.svc.Pop.BatchAck(acks); err != nil {
		return nil, err
	}
	return success(req), nil
}

// changeInvisibleTime serves CHANGE_MESSAGE_INVISIBLETIME.
func (p *Processor) changeInvisibleTime(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ChangeInvisibleTimeRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	res, err := p.svc.Pop.ChangeInvisibleTime(pop.ChangeRequest{
		AckRequest: pop.AckRequest{Group: h.ConsumerGroup, Topic: h.Topic, QueueID: h.QueueID, ExtraInfo: h.ExtraInfo, Offset: h.Offset,
			ConnID: c.ID()},
		InvisibleTime: h.InvisibleTime,
	})
	if err != nil {
		return nil, err
	}
	return withHeader(req, protocol.ChangeInvisibleTimeResponseHeader{PopTime: res.PopTime,
		InvisibleTime: res.InvisibleTime, ReviveQid: res.ReviveQid}), nil
}

// peekMessage serves PEEK_MESSAGE.
func (p *Processor) peekMessage(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.PeekMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	res, err := p.svc.Pop.Peek(pop.PeekRequest{Group: h.ConsumerGroup, Topic: h.Topic, QueueID: h.QueueID, MaxMsgNums: h.MaxMsgNums,
		ConnID: c.ID()})
	if err != nil {
		return nil, err
	}
	resp := protocol.NewResponse(req, responseCode(res.Status), res.Remark)
	protocol.PopMessageResponseHeader{RestNum: res.RestNum, ReviveQid: res.ReviveQid}.Encode(&resp.ExtFields)
	resp.BodyParts, resp.Release = res.Records, res.Release
	return resp, nil
}

// notification serves NOTIFICATION. A held notification is answered later.
func (p *Processor) notification(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.NotificationRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	r := pop.NotifyRequest{Group: h.ConsumerGroup, Topic: h.Topic, QueueID: h.QueueID, PollTime: h.PollTime,
		BornTime: h.BornTime.Or(0), Order: h.Order.Or(false), AttemptID: h.AttemptID.Or(""), ConnID: c.ID()}
	res, held, err := p.svc.Pop.Notification(r, func(res pop.NotifyResult) {
		_ = c.WriteResponse(notificationResponse(req, res))
	})
	if err != nil || held {
		return nil, err
	}
	return notificationResponse(req, res), nil
}

func notificationResponse(req *protocol.Command, res pop.NotifyResult) *protocol.Command {
	return withHeader(req, protocol.NotificationResponseHeader{HasMsg: res.HasMsg, PollingFull: protocol.Some(res.PollingFull)})
}

// pollingInfo serves POLLING_INFO.
func (p *Processor) pollingInfo(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.PollingInfoRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	n, err := p.svc.Pop.PollingInfo(h.ConsumerGroup, h.Topic, h.QueueID, c.ID())
	if err != nil {
		return nil, err
	}
	return withHeader(req, protocol.PollingInfoResponseHeader{PollingNum: int32(n)}), nil
}
