package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/timing"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Timers serves the timer's requests (timing.Service).
type Timers interface {
	CheckpointBody() []byte
	Metrics() body.TimerMetrics
	Recall(r timing.RecallRequest) (string, error)
}

// getTimerCheckPoint serves GET_TIMER_CHECK_POINT: the timer's last checkpoint, in Java's 56 bytes
// and this broker's extension (protocol.md §2.9).
func (p *Processor) getTimerCheckPoint(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withBody(req, p.svc.Timers.CheckpointBody()), nil
}

// getTimerMetrics serves GET_TIMER_METRICS: pending timer messages per topic, as JSON.
func (p *Processor) getTimerMetrics(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.svc.Timers.Metrics())
}

// recallMessage serves RECALL_MESSAGE: the message id of the recalled message, with MSG_REGION.
func (p *Processor) recallMessage(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.RecallMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	id, err := p.svc.Timers.Recall(timing.RecallRequest{ProducerGroup: h.ProducerGroup.Or(""), Topic: h.Topic,
		Handle: h.RecallHandle, BornHost: bornHost(c)})
	if err != nil {
		return nil, err
	}
	resp := success(req)
	protocol.RecallMessageResponseHeader{MsgID: id, MsgRegion: protocol.Some(p.opts.RegionID)}.Encode(&resp.ExtFields)
	return resp, nil
}
