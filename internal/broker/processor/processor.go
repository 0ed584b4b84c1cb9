package processor

import (
	"context"
	"maps"
	"slices"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Options are the broker settings only the remoting answers carry.
type Options struct {
	// RegionID and TraceOn are returned with every send (MSG_REGION, TRACE_ON).
	RegionID string
	TraceOn  bool
	// Access, when ACL is on, checks reads by offset or id on the topic of the record read.
	Access Access
	// InlineSends serves sends on the connection's reader (remoting.Server.HandleInline): for a
	// store whose puts do not block (any role but SYNC_MASTER, which waits for its slave).
	InlineSends bool
}

// Processor serves the broker's remoting requests on its services.
type Processor struct {
	svc  Services
	opts Options
}

// New returns a Processor.
func New(opts Options, svc Services) *Processor { return &Processor{svc: svc, opts: opts} }

// handleFunc is a handler: a response, or an error that respond maps to a response code.
type handleFunc func(ctx context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error)

// Registrar is where Register installs the handlers: the remoting server, or a wrapper of it.
type Registrar interface {
	Handle(code protocol.RequestCode, h remoting.Handler)
	// HandleInline registers h to run on the connection's reader (remoting.Server.HandleInline).
	HandleInline(code protocol.RequestCode, h remoting.Handler)
}

// Register installs every handler on srv.
func (p *Processor) Register(srv Registrar) {
	for code, h := range p.allHandlers() {
		if p.opts.InlineSends && isSend(code) {
			srv.HandleInline(code, wrap(h))
			continue
		}
		srv.Handle(code, wrap(h))
	}
}

func isSend(code protocol.RequestCode) bool {
	return code == protocol.SendMessage || code == protocol.SendMessageV2 || code == protocol.SendBatchMessage
}

// Codes lists the request codes the processor serves, in order (every one needs an ACL rule).
func Codes() []protocol.RequestCode {
	return slices.Sorted(maps.Keys((&Processor{}).allHandlers()))
}

// allHandlers is every handler the processor registers.
func (p *Processor) allHandlers() map[protocol.RequestCode]handleFunc {
	all := p.handlers()
	maps.Copy(all, p.toolHandlers())
	return all
}

func (p *Processor) handlers() map[protocol.RequestCode]handleFunc {
	return map[protocol.RequestCode]handleFunc{
		// send.go, sendback.go, pull.go, endtx.go
		protocol.SendMessage:         p.sendMessage,
		protocol.SendMessageV2:       p.sendMessage,
		protocol.SendBatchMessage:    p.sendMessage,
		protocol.SendReplyMessage:    p.sendReplyMessage,
		protocol.SendReplyMessageV2:  p.sendReplyMessage,
		protocol.ConsumerSendMsgBack: p.consumerSendMsgBack,
		protocol.PullMessage:         p.pullMessage,
		protocol.LitePullMessage:     p.pullMessage,
		protocol.EndTransaction:      p.endTransaction,
		// client.go, lock.go
		protocol.HeartBeat:              p.heartbeat,
		protocol.UnregisterClient:       p.unregisterClient,
		protocol.GetConsumerListByGroup: p.consumerList,
		protocol.CheckClientConfig:      p.checkClientConfig,
		protocol.LockBatchMQ:            p.lockBatch,
		protocol.UnlockBatchMQ:          p.unlockBatch,
		// offset.go
		protocol.QueryConsumerOffset:     p.queryConsumerOffset,
		protocol.UpdateConsumerOffset:    p.updateConsumerOffset,
		protocol.GetMaxOffset:            p.getMaxOffset,
		protocol.GetMinOffset:            p.getMinOffset,
		protocol.GetEarliestMsgStoreTime: p.getEarliestMsgStoreTime,
		protocol.SearchOffsetByTimestamp: p.searchOffsetByTimestamp,
		protocol.GetAllConsumerOffset:    p.getAllConsumerOffset,
		// query.go
		protocol.QueryMessage:    p.queryMessage,
		protocol.ViewMessageByID: p.viewMessageByID,
		// admin.go, admin_group.go, admin_stats.go, admin_config.go
		protocol.UpdateAndCreateTopic:             p.updateAndCreateTopic,
		protocol.DeleteTopicInBroker:              p.deleteTopic,
		protocol.GetAllTopicConfig:                p.getAllTopicConfig,
		protocol.GetSystemTopicListFromBroker:     p.getSystemTopicListFromBroker,
		protocol.GetAllDelayOffset:                p.getAllDelayOffset,
		protocol.UpdateAndCreateSubscriptionGroup: p.updateAndCreateSubscriptionGroup,
		protocol.DeleteSubscriptionGroup:          p.deleteSubscriptionGroup,
		protocol.GetAllSubscriptionGroupConfig:    p.getAllSubscriptionGroupConfig,
		protocol.GetBrokerRuntimeInfo:             p.getBrokerRuntimeInfo,
		protocol.GetTopicStatsInfo:                p.getTopicStatsInfo,
		protocol.GetConsumeStats:                  p.getConsumeStats,
		protocol.GetConsumerConnectionList:        p.getConsumerConnectionList,
		protocol.QueryTopicConsumeByWho:           p.queryTopicConsumeByWho,
		protocol.QueryConsumeTimeSpan:             p.queryConsumeTimeSpan,
		protocol.GetBrokerConfig:                  p.getBrokerConfig,
		protocol.UpdateBrokerConfig:               p.updateBrokerConfig,
		// relay.go
		protocol.GetConsumerRunningInfo:          p.getConsumerRunningInfo,
		protocol.ConsumeMessageDirectly:          p.consumeMessageDirectly,
		protocol.InvokeBrokerToResetOffset:       p.invokeBrokerToResetOffset,
		protocol.InvokeBrokerToGetConsumerStatus: p.invokeBrokerToGetConsumerStatus,
		// pop.go, assign.go
		protocol.PopMessage:                 p.popMessage,
		protocol.AckMessage:                 p.ackMessage,
		protocol.BatchAckMessage:            p.batchAckMessage,
		protocol.ChangeMessageInvisibleTime: p.changeInvisibleTime,
		protocol.PeekMessage:                p.peekMessage,
		protocol.Notification:               p.notification,
		protocol.PollingInfo:                p.pollingInfo,
		protocol.QueryAssignment:            p.queryAssignment,
		protocol.SetMessageRequestMode:      p.setMessageRequestMode,
		protocol.GetAllMessageRequestMode:   p.getAllMessageRequestMode,
		// timer.go
		protocol.GetTimerCheckPoint: p.getTimerCheckPoint,
		protocol.GetTimerMetrics:    p.getTimerMetrics,
		protocol.RecallMessage:      p.recallMessage,
		// admin_ha.go
		protocol.GetBrokerHAStatus: p.getBrokerHAStatus,
	}
}

func wrap(h handleFunc) remoting.Handler {
	return remoting.HandlerFunc(func(ctx context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
		resp, err := h(ctx, c, req)
		return respond(req, resp, err)
	})
}

// ConnClosed ends the memberships of a closed connection and drops the pulls, pops and
// notifications it has held.
func (p *Processor) ConnClosed(c *remoting.Conn) {
	p.svc.Pull.ConnClosed(c.ID())
	p.svc.Members.ConnClosed(c.ID())
	if p.svc.Pop != nil {
		p.svc.Pop.ConnClosed(c.ID())
	}
}
