package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// updateAndCreateSubscriptionGroup serves UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: the body is the
// SubscriptionGroupConfig JSON; fields it leaves out take Java's defaults.
func (p *Processor) updateAndCreateSubscriptionGroup(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	if err := p.svc.Groups.Writable(); err != nil {
		return nil, err
	}
	if len(req.Body) == 0 {
		return nil, outcome.Errorf(outcome.SystemError, "UPDATE_AND_CREATE_SUBSCRIPTIONGROUP needs a SubscriptionGroupConfig JSON body")
	}
	var cfg body.SubscriptionGroupConfig
	if err := body.Unmarshal(req.Body, &cfg); err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad SubscriptionGroupConfig body: %v", err)
	}
	if err := p.svc.Groups.Update(cfg, remoteAddr(c)); err != nil {
		return nil, err
	}
	return success(req), nil
}

// deleteSubscriptionGroup serves DELETE_SUBSCRIPTIONGROUP; 4.9 asks to remove the group's
// offsets with removeOffset, 5.x with cleanOffset.
func (p *Processor) deleteSubscriptionGroup(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	if err := p.svc.Groups.Writable(); err != nil {
		return nil, err
	}
	var h protocol.DeleteSubscriptionGroupRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	removeOffsets := h.RemoveOffset.Or(false) || h.CleanOffset.Or(false)
	if err := p.svc.Groups.Delete(h.GroupName, removeOffsets, remoteAddr(c)); err != nil {
		return nil, err
	}
	return success(req), nil
}

// getAllSubscriptionGroupConfig serves GET_ALL_SUBSCRIPTIONGROUP_CONFIG.
func (p *Processor) getAllSubscriptionGroupConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.svc.Groups.All())
}

// remoteAddr is the peer of c for logs ("" without a connection, as in unit tests).
func remoteAddr(c *remoting.Conn) string {
	if c == nil {
		return ""
	}
	return c.RemoteAddr()
}
