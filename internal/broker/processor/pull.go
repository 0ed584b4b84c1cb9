package processor

import (
	"context"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Pull sysFlag bits (Java PullSysFlag).
const (
	pullCommitOffset = 1 << 0
	pullSuspend      = 1 << 1
	pullSubscription = 1 << 2
)

// pullMessage serves PULL_MESSAGE. A held pull is answered later, on the connection it came on.
func (p *Processor) pullMessage(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.PullMessageRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	pr := pullRequest(&h)
	pr.Owner, pr.Done = c.ID(), c.Context().Done()
	res, held, err := p.svc.Pull.Pull(pr, func(res pull.Result, err error) {
		_ = c.WriteResponse(pullAnswer(req, &res, err))
	})
	if err != nil || held {
		return nil, err
	}
	return pullResponse(req, &res), nil
}

// pullRequest is the pull a header describes.
func pullRequest(h *protocol.PullMessageRequestHeader) pull.Request {
	return pull.Request{
		Group:           h.ConsumerGroup,
		Topic:           h.Topic,
		QueueID:         h.QueueID,
		QueueOffset:     h.QueueOffset,
		MaxMsgNums:      h.MaxMsgNums,
		Commit:          h.SysFlag&pullCommitOffset != 0,
		CommitOffset:    h.CommitOffset,
		Suspend:         h.SysFlag&pullSuspend != 0,
		SuspendTimeout:  time.Duration(h.SuspendTimeoutMillis) * time.Millisecond,
		OwnSubscription: h.SysFlag&pullSubscription != 0,
		Subscription:    h.Subscription.Or(""),
		ExpressionType:  h.ExpressionType.Or(body.ExpressionTag),
		SubVersion:      h.SubVersion,
	}
}

// pullAnswer is the answer to a held pull once it has run again.
func pullAnswer(req *protocol.Command, res *pull.Result, err error) *protocol.Command {
	if err != nil {
		return failure(req, err)
	}
	return pullResponse(req, res)
}

// pullResponse answers a pull: the status's code and the store's status name, the offsets, and
// the records as body parts written without copying.
func pullResponse(req *protocol.Command, res *pull.Result) *protocol.Command {
	resp := protocol.NewResponse(req, responseCode(res.Status), res.Remark)
	protocol.PullMessageResponseHeader{
		SuggestWhichBrokerID: res.SuggestBrokerID,
		NextBeginOffset:      res.NextBeginOffset,
		MinOffset:            res.MinOffset,
		MaxOffset:            res.MaxOffset,
	}.Encode(&resp.ExtFields)
	resp.BodyParts, resp.Release = res.Records, res.Release
	return resp
}
