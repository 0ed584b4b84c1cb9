package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// lockBatch locks queues for an orderly consumer (LOCK_BATCH_MQ) and answers the ones it got.
func (p *Processor) lockBatch(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	b, err := body.DecodeLockBatchRequest(req.Body)
	if err != nil {
		return nil, fail(protocol.SystemError, "bad lock body: %v", err)
	}
	locked := p.Locks.TryLockBatch(b.ConsumerGroup, b.MQSet, b.ClientID)
	return withJSONBody(req, body.LockBatchResponseBody{LockOKMQSet: locked})
}

// unlockBatch releases an orderly consumer's queues (UNLOCK_BATCH_MQ).
func (p *Processor) unlockBatch(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	b, err := body.DecodeLockBatchRequest(req.Body)
	if err != nil {
		return nil, fail(protocol.SystemError, "bad unlock body: %v", err)
	}
	p.Locks.UnlockBatch(b.ConsumerGroup, b.MQSet, b.ClientID)
	return success(req), nil
}
