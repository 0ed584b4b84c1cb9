package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// queueRef is the topic and queue most offset requests name.
func queueRef(f *protocol.FieldReader) (string, int32) {
	return f.String("topic"), f.Int32("queueId")
}

// answerOffset answers SUCCESS with one ext field.
func answerOffset(req *protocol.Command, key string, v int64) *protocol.Command {
	resp := success(req)
	resp.SetExt(key, itoa64(v))
	return resp
}

// queryConsumerOffset answers a group's committed offset (QUERY_CONSUMER_OFFSET). A group with
// none starts at 0 while the queue still begins at 0, as in Java; otherwise QUERY_NOT_FOUND lets
// the client apply its consumeFromWhere.
func (p *Processor) queryConsumerOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	group := f.String("consumerGroup")
	topic, qid := queueRef(&f)
	if err := f.Err(); err != nil {
		return nil, err
	}
	if off, ok := p.Offsets.Query(group, topic, qid); ok && off >= 0 {
		return answerOffset(req, "offset", off), nil
	}
	if p.Store.MinOffsetInQueue(topic, qid) <= 0 {
		return answerOffset(req, "offset", 0), nil
	}
	return nil, fail(protocol.QueryNotFound, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first")
}

// updateConsumerOffset commits a group's offset (UPDATE_CONSUMER_OFFSET).
func (p *Processor) updateConsumerOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	group := f.String("consumerGroup")
	topic, qid := queueRef(&f)
	off := f.Int64("commitOffset")
	if err := f.Err(); err != nil {
		return nil, err
	}
	p.Offsets.Commit(group, topic, qid, off)
	return success(req), nil
}

func (p *Processor) getMaxOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	topic, qid := queueRef(&f)
	if err := f.Err(); err != nil {
		return nil, err
	}
	return answerOffset(req, "offset", p.Store.MaxOffsetInQueue(topic, qid)), nil
}

func (p *Processor) getMinOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	topic, qid := queueRef(&f)
	if err := f.Err(); err != nil {
		return nil, err
	}
	return answerOffset(req, "offset", p.Store.MinOffsetInQueue(topic, qid)), nil
}

func (p *Processor) getEarliestMsgStoreTime(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	topic, qid := queueRef(&f)
	if err := f.Err(); err != nil {
		return nil, err
	}
	return answerOffset(req, "timestamp", p.Store.EarliestMessageTime(topic, qid)), nil
}

func (p *Processor) searchOffsetByTimestamp(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	topic, qid := queueRef(&f)
	ts := f.Int64("timestamp")
	if err := f.Err(); err != nil {
		return nil, err
	}
	return answerOffset(req, "offset", p.Store.OffsetInQueueByTime(topic, qid, ts)), nil
}
