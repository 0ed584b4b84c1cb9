package send

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// SendBatch stores the messages of one batch body (SEND_BATCH_MESSAGE's encoding) in one queue.
func (s *Service) SendBatch(req Request) (Result, error) {
	r := &req
	t, err := s.check(r)
	if err != nil {
		return Result{}, err
	}
	if systopic.IsRetry(t.topic) {
		return Result{}, outcome.Errorf(outcome.MessageIllegal, "batch request does not support retry group %s", t.topic)
	}
	if len(r.Body) > s.opts.MaxMessageSize {
		return Result{}, outcome.Errorf(outcome.MessageIllegal, "the batch body size %d exceeds maxMessageSize %d",
			len(r.Body), s.opts.MaxMessageSize)
	}
	batchBody, n, err := s.batchWithUniqKeys(r.Body)
	if err != nil {
		return Result{}, outcome.Errorf(outcome.MessageIllegal, "bad batch body: %v", err)
	}
	b := store.Batch{
		Topic:          t.topic,
		QueueID:        t.queueID,
		SysFlag:        r.SysFlag,
		BornTimestamp:  r.BornTimestamp,
		BornHost:       r.BornHost,
		ReconsumeTimes: r.ReconsumeTimes,
		Body:           batchBody,
	}
	res := s.Store.PutMessages(&b)
	return s.result(&res, t, t.topic, r.Properties, n)
}

// batchWithUniqKeys returns the batch body with a UNIQ_KEY on every message (the Go client sends
// batches without them) and the message count. A body whose messages all carry one is returned
// as is.
func (s *Service) batchWithUniqKeys(body []byte) ([]byte, int, error) {
	n, missing, err := countBatch(body)
	if err != nil {
		return nil, 0, err
	}
	if !missing {
		return body, n, nil
	}
	out := make([]byte, 0, len(body)+n*64)
	it := message.NewBatchIterator(body)
	for it.Next() {
		e := it.Entry()
		out = message.AppendBatchEntry(out, e.Flag, e.Body, s.withUniqKey(string(e.Properties)))
	}
	return out, n, nil
}

// countBatch counts a batch's messages and reports whether one lacks a UNIQ_KEY.
func countBatch(body []byte) (n int, missing bool, _ error) {
	it := message.NewBatchIterator(body)
	for it.Next() {
		n++
		if _, ok := message.LookupProperty(it.Entry().Properties, message.PropertyUniqClientMessageID); !ok {
			missing = true
		}
	}
	if it.Err() != nil {
		return 0, false, it.Err()
	}
	if n == 0 {
		return 0, false, message.ErrBadBatch
	}
	return n, missing, nil
}
