package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// lockBatch serves LOCK_BATCH_MQ: it locks queues for an orderly consumer and answers the ones
// it got.
func (p *Processor) lockBatch(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	b, err := body.DecodeLockBatchRequest(req.Body)
	if err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad lock body: %v", err)
	}
	if err := checkLockNames(b); err != nil {
		return nil, err
	}
	locked := p.svc.Locks.TryLockBatch(b.ConsumerGroup, b.MQSet, b.ClientID)
	return withJSONBody(req, body.LockBatchResponseBody{LockOKMQSet: locked})
}

// unlockBatch serves UNLOCK_BATCH_MQ.
func (p *Processor) unlockBatch(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	b, err := body.DecodeLockBatchRequest(req.Body)
	if err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad unlock body: %v", err)
	}
	if err := checkLockNames(b); err != nil {
		return nil, err
	}
	p.svc.Locks.UnlockBatch(b.ConsumerGroup, b.MQSet, b.ClientID)
	return success(req), nil
}

// checkLockNames refuses a lock body whose group, client id or topics are not valid names, before
// they reach the lock table.
func checkLockNames(b *body.LockBatchRequestBody) error {
	if err := names.Group(b.ConsumerGroup); err != nil {
		return outcome.Errorf(outcome.SystemError, "bad lock body: consumer group: %v", err)
	}
	if err := names.ClientID(b.ClientID); err != nil {
		return outcome.Errorf(outcome.SystemError, "bad lock body: %v", err)
	}
	for _, mq := range b.MQSet {
		if err := names.Topic(mq.Topic); err != nil {
			return outcome.Errorf(outcome.SystemError, "bad lock body: topic %s: %v", names.Quote(mq.Topic), err)
		}
	}
	return nil
}
