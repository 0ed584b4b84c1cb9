package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// heartbeat serves HEART_BEAT.
func (p *Processor) heartbeat(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	hb, err := body.DecodeHeartbeatData(req.Body)
	if err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad heartbeat body: %v", err)
	}
	ch := client.ClientChannel{Channel: c, ClientID: hb.ClientID, Language: req.Language, Version: int32(req.Version)}
	if err := p.svc.Members.Heartbeat(ch, *hb); err != nil {
		return nil, err
	}
	return success(req), nil
}

// unregisterClient serves UNREGISTER_CLIENT (only ali-ons and Java send it).
func (p *Processor) unregisterClient(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.UnregisterClientRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	p.svc.Members.Unregister(c.ID(), h.ProducerGroup.Or(""), h.ConsumerGroup.Or(""))
	return success(req), nil
}

// consumerList serves GET_CONSUMER_LIST_BY_GROUP.
func (p *Processor) consumerList(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetConsumerListByGroupRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	ids, err := p.svc.Members.ConsumerIDs(h.ConsumerGroup)
	if err != nil {
		return nil, err
	}
	return withJSONBody(req, body.ConsumerIDList{ConsumerIDList: ids})
}

// withJSONBody answers SUCCESS with v encoded as the body.
func withJSONBody(req *protocol.Command, v any) (*protocol.Command, error) {
	data, err := body.Marshal(v)
	if err != nil {
		return nil, err
	}
	return withBody(req, data), nil
}

// withBody answers SUCCESS with data as the body.
func withBody(req *protocol.Command, data []byte) *protocol.Command {
	resp := success(req)
	resp.Body = data
	return resp
}
