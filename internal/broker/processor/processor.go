package processor

import (
	"context"
	"net/netip"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/longpoll"
	"github.com/rocketgo/rocketgo/internal/broker/offset"
	"github.com/rocketgo/rocketgo/internal/broker/rebalance"
	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Options are the broker settings the handlers consult.
type Options struct {
	ClusterName      string
	BrokerName       string
	BrokerID         int64
	Slave            bool
	BrokerPermission int
	MaxMessageSize   int
	// StoreHost is brokerIP1:listenPort; offset message ids are built from it.
	StoreHost netip.AddrPort
	// RegionID and TraceOn are returned with every send (MSG_REGION, TRACE_ON).
	RegionID string
	TraceOn  bool
	// LongPollingEnable holds pulls for their suspend timeout; otherwise for ShortPollingTime.
	LongPollingEnable bool
	ShortPollingTime  time.Duration
	SlaveReadEnable   bool
	// EnablePropertyFilter lets consumers subscribe with SQL92 expressions (enablePropertyFilter).
	EnablePropertyFilter bool
	// DefaultQueryMaxNum caps QUERY_MESSAGE by unique key (defaultQueryMaxNum, 32).
	DefaultQueryMaxNum int
	// MaxDelayLevel is the number of messageDelayLevel entries (18 by default).
	MaxDelayLevel int
	// BootTime is when the broker started (GET_BROKER_RUNTIME_INFO).
	BootTime time.Time
	// ConfigText returns the effective configuration as Java-properties text, key=value lines
	// (GET_BROKER_CONFIG); nil lists the keys these options hold.
	ConfigText func() string
}

// Deps are the components the handlers work with.
type Deps struct {
	Store     *store.Store
	Topics    *topic.Manager
	Groups    *subscription.Manager
	Offsets   *offset.Manager
	Consumers *client.ConsumerManager
	Producers *client.ProducerManager
	Holds     *longpoll.Service
	Locks     *rebalance.LockManager
	Schedule  *schedule.Service
	Metrics   *metrics.Broker // nil when metrics are off
	// Transactions prepares half messages and ends transactions.
	Transactions *transaction.Service
}

// Processor serves the broker's requests.
type Processor struct {
	Deps
	svc  Services
	opts Options
	lg   *zap.Logger
	uniq *message.UniqIDGenerator
}

// New returns a Processor.
func New(opts Options, deps Deps, svc Services, lg *zap.Logger) *Processor {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.DefaultQueryMaxNum <= 0 {
		opts.DefaultQueryMaxNum = 32
	}
	if opts.ShortPollingTime <= 0 {
		opts.ShortPollingTime = time.Second
	}
	if opts.BootTime.IsZero() {
		opts.BootTime = time.Now()
	}
	ip := opts.StoreHost.Addr()
	if !ip.IsValid() {
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	return &Processor{Deps: deps, svc: svc, opts: opts, lg: lg,
		uniq: message.NewUniqIDGenerator(ip, os.Getpid(), int32(time.Now().UnixNano()), nil)}
}

// handleFunc is a handler whose errors respond maps to response codes.
type handleFunc func(ctx context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error)

// Register installs every handler on srv.
func (p *Processor) Register(srv *remoting.Server) {
	for code, h := range p.handlers() {
		srv.Handle(code, wrap(h))
	}
}

func (p *Processor) handlers() map[protocol.RequestCode]handleFunc {
	return map[protocol.RequestCode]handleFunc{
		protocol.SendMessage:                   p.sendMessage,
		protocol.SendMessageV2:                 p.sendMessage,
		protocol.SendBatchMessage:              p.sendMessage,
		protocol.PullMessage:                   p.pullMessage,
		protocol.HeartBeat:                     p.heartbeat,
		protocol.UnregisterClient:              p.unregisterClient,
		protocol.GetConsumerListByGroup:        p.consumerList,
		protocol.QueryConsumerOffset:           p.queryConsumerOffset,
		protocol.UpdateConsumerOffset:          p.updateConsumerOffset,
		protocol.GetMaxOffset:                  p.getMaxOffset,
		protocol.GetMinOffset:                  p.getMinOffset,
		protocol.GetEarliestMsgStoreTime:       p.getEarliestMsgStoreTime,
		protocol.SearchOffsetByTimestamp:       p.searchOffsetByTimestamp,
		protocol.UpdateAndCreateTopic:          p.updateAndCreateTopic,
		protocol.DeleteTopicInBroker:           p.deleteTopic,
		protocol.GetAllTopicConfig:             p.getAllTopicConfig,
		protocol.GetAllSubscriptionGroupConfig: p.getAllSubscriptionGroupConfig,
		protocol.GetAllConsumerOffset:          p.getAllConsumerOffset,
		protocol.GetBrokerRuntimeInfo:          p.getBrokerRuntimeInfo,
		protocol.GetTopicStatsInfo:             p.getTopicStatsInfo,
		protocol.GetConsumeStats:               p.getConsumeStats,
		protocol.GetConsumerConnectionList:     p.getConsumerConnectionList,
		protocol.QueryTopicConsumeByWho:        p.queryTopicConsumeByWho,
		protocol.QueryMessage:                  p.queryMessage,
		protocol.ViewMessageByID:               p.viewMessageByID,
		protocol.LockBatchMQ:                   p.lockBatch,
		protocol.ConsumerSendMsgBack:           p.consumerSendMsgBack,
		protocol.GetAllDelayOffset:             p.getAllDelayOffset,
		protocol.GetConsumerRunningInfo:        p.getConsumerRunningInfo,
		protocol.ConsumeMessageDirectly:        p.consumeMessageDirectly,
		protocol.UnlockBatchMQ:                 p.unlockBatch,
		protocol.EndTransaction:                p.endTransaction,
		// admin_group.go, admin_reset.go, admin_config.go, admin_topicinfo.go
		protocol.UpdateAndCreateSubscriptionGroup: p.updateAndCreateSubscriptionGroup,
		protocol.DeleteSubscriptionGroup:          p.deleteSubscriptionGroup,
		protocol.InvokeBrokerToResetOffset:        p.invokeBrokerToResetOffset,
		protocol.InvokeBrokerToGetConsumerStatus:  p.invokeBrokerToGetConsumerStatus,
		protocol.GetBrokerConfig:                  p.getBrokerConfig,
		protocol.UpdateBrokerConfig:               p.updateBrokerConfig,
		protocol.GetSystemTopicListFromBroker:     p.getSystemTopicListFromBroker,
		protocol.QueryConsumeTimeSpan:             p.queryConsumeTimeSpan,
	}
}

func wrap(h handleFunc) remoting.Handler {
	return remoting.HandlerFunc(func(ctx context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
		resp, err := h(ctx, c, req)
		return respond(req, resp, err)
	})
}

// ConnClosed ends the memberships of a closed connection.
func (p *Processor) ConnClosed(c *remoting.Conn) { p.svc.Members.ConnClosed(c.ID()) }
