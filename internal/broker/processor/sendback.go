package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// consumerSendMsgBack serves CONSUMER_SEND_MSG_BACK.
func (p *Processor) consumerSendMsgBack(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ConsumerSendMsgBackRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	err := p.svc.SendBack.SendBack(sendback.Request{Offset: h.Offset, Group: h.Group, DelayLevel: h.DelayLevel,
		OriginMsgID: h.OriginMsgID.Or(""), MaxReconsumeTimes: h.MaxReconsumeTimes.Or(-1),
		MayRead: p.mayRead(c, req), Owner: c.ID()})
	if err != nil {
		return nil, err
	}
	return success(req), nil
}
