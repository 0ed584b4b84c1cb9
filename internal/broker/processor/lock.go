package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// lockBatch serves LOCK_BATCH_MQ: it locks queues for an orderly consumer and answers the ones
// it got.
func (p *Processor) lockBatch(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	b, err := body.DecodeLockBatchRequest(req.Body)
	if err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad lock body: %v", err)
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
	p.svc.Locks.UnlockBatch(b.ConsumerGroup, b.MQSet, b.ClientID)
	return success(req), nil
}
