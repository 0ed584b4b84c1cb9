package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// queryMessage serves QUERY_MESSAGE; the body is the matching records, served from the mapped
// CommitLog.
func (p *Processor) queryMessage(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.QueryMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	r, err := p.svc.Query.ByKey(query.KeyQuery{Topic: h.Topic, Key: h.Key, MaxNum: h.MaxNum,
		Begin: h.BeginTimestamp, End: h.EndTimestamp, Unique: h.UniqueKeyQuery.Or(false),
		MayRead: p.mayRead(c, req)})
	if err != nil {
		return nil, err
	}
	resp := withHeader(req, protocol.QueryMessageResponseHeader{
		IndexLastUpdateTimestamp: r.IndexLastUpdateTimestamp, IndexLastUpdatePhyoffset: r.IndexLastUpdatePhyOffset})
	resp.BodyParts, resp.Release = r.Records, r.Release
	return resp, nil
}

// viewMessageByID serves VIEW_MESSAGE_BY_ID (the offset comes from an offset message id).
func (p *Processor) viewMessageByID(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.ViewMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	rec, err := p.svc.Query.Record(h.Offset, p.mayRead(c, req))
	if err != nil {
		return nil, err
	}
	return withBody(req, rec), nil
}
