package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// queryConsumerOffset serves QUERY_CONSUMER_OFFSET.
func (p *Processor) queryConsumerOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryConsumerOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	off, err := p.svc.Offsets.Committed(h.ConsumerGroup, h.Topic, h.QueueID)
	if err != nil {
		return nil, err
	}
	return withHeader(req, protocol.QueryConsumerOffsetResponseHeader{Offset: off}), nil
}

// updateConsumerOffset serves UPDATE_CONSUMER_OFFSET.
func (p *Processor) updateConsumerOffset(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.UpdateConsumerOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	if err := p.svc.Offsets.Commit(c.ID(), h.ConsumerGroup, h.Topic, h.QueueID, h.CommitOffset); err != nil {
		return nil, err
	}
	return success(req), nil
}

// getMaxOffset serves GET_MAX_OFFSET.
func (p *Processor) getMaxOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetMaxOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	return withHeader(req, protocol.GetMaxOffsetResponseHeader{Offset: p.svc.Offsets.MaxOffset(h.Topic, h.QueueID)}), nil
}

// getMinOffset serves GET_MIN_OFFSET.
func (p *Processor) getMinOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetMinOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	return withHeader(req, protocol.GetMinOffsetResponseHeader{Offset: p.svc.Offsets.MinOffset(h.Topic, h.QueueID)}), nil
}

// getEarliestMsgStoreTime serves GET_EARLIEST_MSG_STORETIME.
func (p *Processor) getEarliestMsgStoreTime(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.GetEarliestMsgStoretimeRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	ts := p.svc.Offsets.EarliestTime(h.Topic, h.QueueID)
	return withHeader(req, protocol.GetEarliestMsgStoretimeResponseHeader{Timestamp: ts}), nil
}

// searchOffsetByTimestamp serves SEARCH_OFFSET_BY_TIMESTAMP.
func (p *Processor) searchOffsetByTimestamp(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.SearchOffsetRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	off := p.svc.Offsets.OffsetByTime(h.Topic, h.QueueID, h.Timestamp)
	return withHeader(req, protocol.SearchOffsetResponseHeader{Offset: off}), nil
}

// getAllConsumerOffset serves GET_ALL_CONSUMER_OFFSET.
func (p *Processor) getAllConsumerOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.svc.Offsets.All())
}

// headerEncoder is a response header (the protocol's typed headers encode by value).
type headerEncoder interface{ Encode(ext *protocol.Ext) }

// withHeader answers SUCCESS with h's ext fields.
func withHeader(req *protocol.Command, h headerEncoder) *protocol.Command {
	resp := success(req)
	h.Encode(&resp.ExtFields)
	return resp
}
