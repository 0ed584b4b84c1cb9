package processor

import (
	"context"
	"strings"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// sendBatch stores the messages of one SEND_BATCH_MESSAGE in one queue.
func (p *Processor) sendBatch(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	h, err := parseSendHeader(req)
	if err != nil {
		return nil, err
	}
	t, err := p.checkSend(&h, req)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(t.topic, systopic.RetryPrefix) {
		return nil, fail(protocol.MessageIllegal, "batch request does not support retry group %s", t.topic)
	}
	if len(req.Body) > p.opts.MaxMessageSize {
		return nil, fail(protocol.MessageIllegal, "the batch body size %d exceeds maxMessageSize %d", len(req.Body), p.opts.MaxMessageSize)
	}
	batchBody, n, err := p.batchWithUniqKeys(req.Body)
	if err != nil {
		return nil, fail(protocol.MessageIllegal, "bad batch body: %v", err)
	}
	b := store.Batch{
		Topic:          t.topic,
		QueueID:        t.queueID,
		SysFlag:        h.sysFlag,
		BornTimestamp:  h.bornTimestamp,
		BornHost:       bornHost(c),
		ReconsumeTimes: h.reconsumeTimes,
		Body:           batchBody,
	}
	res := p.Store.PutMessages(&b)
	if res.Status.Stored() {
		p.Metrics.MessagesIn(t.topic, messageType(h.properties, t.cfg), n, int(res.WroteBytes))
	}
	return p.sendResponse(req, &res, t.queueID)
}

// batchWithUniqKeys returns the batch body with a UNIQ_KEY on every message (the Go client sends
// batches without them) and the message count. A body whose messages all carry one is returned
// as is.
func (p *Processor) batchWithUniqKeys(body []byte) ([]byte, int, error) {
	n, missing := 0, false
	it := message.NewBatchIterator(body)
	for it.Next() {
		n++
		if _, ok := message.LookupProperty(it.Entry().Properties, message.PropertyUniqClientMessageID); !ok {
			missing = true
		}
	}
	if it.Err() != nil {
		return nil, 0, it.Err()
	}
	if n == 0 {
		return nil, 0, message.ErrBadBatch
	}
	if !missing {
		return body, n, nil
	}
	out := make([]byte, 0, len(body)+n*64)
	it = message.NewBatchIterator(body)
	for it.Next() {
		e := it.Entry()
		out = message.AppendBatchEntry(out, e.Flag, e.Body, p.withUniqKey(string(e.Properties)))
	}
	return out, n, nil
}
