package processor

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// refuseOnSlave is Java's validateSlave: a slave's groups and topics are copies of its master's,
// so changing them there is refused.
func (p *Processor) refuseOnSlave() error {
	if p.opts.Slave {
		return fail(protocol.SystemError,
			"Can't modify topic or subscription group from slave broker, please execute it from master broker.")
	}
	return nil
}

// updateAndCreateSubscriptionGroup creates or replaces a consumer group's config from the
// SubscriptionGroupConfig JSON in the body (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP). Fields the body
// leaves out take Java's defaults.
func (p *Processor) updateAndCreateSubscriptionGroup(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	if err := p.refuseOnSlave(); err != nil {
		return nil, err
	}
	if len(req.Body) == 0 {
		return nil, fail(protocol.SystemError, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP needs a SubscriptionGroupConfig JSON body")
	}
	var cfg body.SubscriptionGroupConfig
	if err := body.Unmarshal(req.Body, &cfg); err != nil {
		return nil, fail(protocol.SystemError, "bad SubscriptionGroupConfig body: %v", err)
	}
	if err := p.Groups.Put(cfg); err != nil {
		if errors.Is(err, subscription.ErrEmptyGroupName) {
			return nil, fail(protocol.SystemError, "the SubscriptionGroupConfig body has no groupName")
		}
		return nil, err
	}
	p.lg.Info("subscription group updated by admin", zap.String("group", cfg.GroupName), zap.String("from", remoteAddr(c)))
	return success(req), nil
}

// deleteSubscriptionGroup removes a consumer group's config (DELETE_SUBSCRIPTIONGROUP) and, when
// asked (4.9's removeOffset, 5.x's cleanOffset), the group's committed offsets on every topic.
// Deleting a group that does not exist succeeds, as in Java.
func (p *Processor) deleteSubscriptionGroup(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	if err := p.refuseOnSlave(); err != nil {
		return nil, err
	}
	f := protocol.Fields(req)
	group := f.String("groupName")
	removeOffset := f.OptBool("removeOffset", false) || f.OptBool("cleanOffset", false)
	if err := f.Err(); err != nil {
		return nil, err
	}
	existed, err := p.Groups.Delete(group)
	if err != nil {
		return nil, err
	}
	removed := 0
	if removeOffset {
		removed = p.Offsets.RemoveGroup(group)
	}
	p.lg.Info("subscription group deleted by admin", zap.String("group", group), zap.Bool("existed", existed),
		zap.Int("offsetTopicsRemoved", removed), zap.String("from", remoteAddr(c)))
	return success(req), nil
}

// remoteAddr is the peer of c for logs ("" without a connection, as in unit tests).
func remoteAddr(c *remoting.Conn) string {
	if c == nil {
		return ""
	}
	return c.RemoteAddr()
}
