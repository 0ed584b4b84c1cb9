package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// queryMessage finds messages by key or unique key within a time range (QUERY_MESSAGE); the body
// is the matching records, served from the mapped CommitLog.
func (p *Processor) queryMessage(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	name := f.String("topic")
	key := f.String("key")
	maxNum := f.Int32("maxNum")
	begin := f.Int64("beginTimestamp")
	end := f.Int64("endTimestamp")
	uniq := f.OptBool("_UNIQUE_KEY_QUERY", false)
	if err := f.Err(); err != nil {
		return nil, err
	}
	if uniq {
		maxNum = int32(p.opts.DefaultQueryMaxNum)
	}
	r := p.Store.QueryMessage(name, key, int(maxNum), begin, end)
	if len(r.Records) == 0 {
		r.Release()
		return nil, fail(protocol.QueryNotFound, "can not find message, maybe time range not correct")
	}
	resp := success(req)
	resp.SetExt("indexLastUpdateTimestamp", itoa64(r.IndexLastUpdateTimestamp))
	resp.SetExt("indexLastUpdatePhyoffset", itoa64(r.IndexLastUpdatePhyOffset))
	resp.BodyParts, resp.Release = r.Records, r.Release
	return resp, nil
}

// viewMessageByID answers the record at a CommitLog offset (VIEW_MESSAGE_BY_ID; the offset comes
// from an offset message id).
func (p *Processor) viewMessageByID(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	off := f.Int64("offset")
	if err := f.Err(); err != nil {
		return nil, err
	}
	m := p.Store.LookMessageByOffset(off)
	if m == nil {
		return nil, fail(protocol.SystemError, "can not find message by the offset, %d", off)
	}
	rec := make([]byte, m.EncodedSize())
	if _, err := message.Encode(rec, &m.Message); err != nil {
		return nil, err
	}
	resp := success(req)
	resp.Body = rec
	return resp, nil
}
