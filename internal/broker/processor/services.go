package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/assign"
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/pop"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/broker/queueoffset"
	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/internal/broker/stats"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// The interfaces below are what the handlers need of each service; the services' packages say
// what the operations do.

// Sender stores what producers send (send.Service) and takes consumers' replies to requests.
type Sender interface {
	Send(r send.Request) (send.Result, error)
	// SendAsync is Send that may leave a SYNC_FLUSH send pending: reply is told its outcome.
	SendAsync(r send.Request, reply send.Answerer) (send.Result, bool, error)
	SendBatch(r send.Request) (send.Result, error)
	Reply(ctx context.Context, r send.Request) (send.ReplyResult, error)
}

// SendBacker re-sends what consumers failed (sendback.Service).
type SendBacker interface {
	SendBack(r sendback.Request) error
}

// Puller serves pulls (pull.Service); wake answers a held pull. CheckSubscription says whether the
// broker can filter by a subscription. ConnClosed drops the pulls a closed connection
// (Request.Owner) still has held.
type Puller interface {
	Pull(r pull.Request, wake func(pull.Result, error)) (res pull.Result, held bool, err error)
	CheckSubscription(d body.SubscriptionData) error
	ConnClosed(owner uint64)
}

// Offsets answers offset questions (queueoffset.Service).
type Offsets interface {
	Committed(group, topic string, queueID int32) (int64, error)
	Commit(owner uint64, group, topic string, queueID int32, offset int64) error
	MaxOffset(topic string, queueID int32) int64
	MinOffset(topic string, queueID int32) int64
	EarliestTime(topic string, queueID int32) int64
	OffsetByTime(topic string, queueID int32, ts int64) int64
	All() body.ConsumerOffsetSerializeWrapper
}

// Members keeps the groups' membership (membership.Service).
type Members interface {
	Heartbeat(ch client.ClientChannel, hb body.HeartbeatData) error
	Unregister(chID uint64, producerGroup, consumerGroup string)
	ConsumerIDs(group string) ([]string, error)
	ConnClosed(chID uint64)
}

// Queries finds stored messages (query.Service).
type Queries interface {
	ByKey(q query.KeyQuery) (*store.QueryResult, error)
	Record(phyOffset int64, mayRead func(topic string) error) ([]byte, error)
}

// TransactionEnder ends transactions (endtx.Service).
type TransactionEnder interface {
	End(r transaction.EndRequest) error
}

// TopicAdmin administers topics (topicadmin.Service).
type TopicAdmin interface {
	Update(tc body.TopicConfig) error
	Delete(topic string) error
	All() body.TopicConfigSerializeWrapper
	SystemTopics() []string
	Config(topic string) (body.TopicConfig, error)
	UpdateList(list []body.TopicConfig) error
}

// GroupAdmin administers consumer groups (groupadmin.Service).
type GroupAdmin interface {
	Writable() error
	Update(cfg body.SubscriptionGroupConfig, from string) error
	Delete(group string, removeOffsets bool, from string) error
	All() body.SubscriptionGroupWrapper
	Config(group string) (body.SubscriptionGroupConfig, error)
	UpdateList(list []body.SubscriptionGroupConfig, from string) error
}

// Stats answers state questions (stats.Service).
type Stats interface {
	RuntimeInfo() map[string]string
	TopicStats(topic string) (body.TopicStatsTable, error)
	ConsumeStats(group, only string) body.ConsumeStats
	Connections(group string) (body.ConsumerConnection, error)
	ConsumedBy(topic string) []string
	TimeSpans(topic, group string) ([]stats.QueueTimeSpan, error)
	ProducerConnections(group string) (body.ProducerConnection, error)
	AllProducers() body.ProducerTableInfo
	BrokerConsumeStats(onlyOrder bool) body.ConsumeStatsList
	BrokerStats(name, key string) (body.BrokerStatsData, error)
}

// OffsetAdmin serves admin tools' offset operations (queueoffset.Admin).
type OffsetAdmin interface {
	Clone(r queueoffset.CloneRequest) error
	CorrectionOffsets(topic, filterGroups, compareGroup string) (map[int32]int64, error)
	ConsumeQueue(q queueoffset.QueueQuery) (body.QueryConsumeQueueResponseBody, error)
}

// Config shows the broker's configuration (configview.Service).
type Config interface {
	Version() body.DataVersion
	Text() string
	Update(text, from string) error
}

// Relay completes admin requests by calling clients (relay.Service).
type Relay interface {
	RunningInfo(ctx context.Context, q relay.RunningInfoQuery) (relay.Answer, error)
	ConsumeDirectly(ctx context.Context, group, clientID, msgID string, mayRead func(topic string) error) (relay.Answer, error)
	ResetOffset(r relay.ResetRequest) (map[body.MessageQueue]int64, error)
	ConsumerStatus(ctx context.Context, topic, group, only string) (map[string]map[body.MessageQueue]int64, error)
}

// Locks locks queues for orderly consumers (rebalance.LockManager).
type Locks interface {
	TryLockBatch(group string, mqs []body.MessageQueue, clientID string) []body.MessageQueue
	UnlockBatch(group string, mqs []body.MessageQueue, clientID string)
}

// DelayOffsets encodes the delayed delivery's progress (schedule.Service).
type DelayOffsets interface {
	Encode() ([]byte, error)
}

// Popper serves POP consumption (pop.Service); wake answers a held pop or notification.
type Popper interface {
	Pop(r pop.Request, wake func(pop.Result, error)) (res pop.Result, held bool, err error)
	Ack(r pop.AckRequest) error
	BatchAck(acks []body.BatchAck) error
	ChangeInvisibleTime(r pop.ChangeRequest) (pop.ChangeResult, error)
	Peek(r pop.PeekRequest) (pop.Result, error)
	Notification(r pop.NotifyRequest, wake func(pop.NotifyResult)) (res pop.NotifyResult, held bool, err error)
	PollingInfo(group, topic string, queueID int32, connID uint64) (int, error)
	ConnClosed(connID uint64)
}

// Assigner answers server-side assignment and keeps the request modes (assign.Service).
type Assigner interface {
	Assign(q assign.Query) ([]body.MessageQueueAssignment, bool, error)
	SetMode(m body.SetMessageRequestModeRequestBody) error
	All() body.MessageRequestModeSerializeWrapper
}

// Services are the protocol-neutral operations the handlers adapt to remoting.
type Services struct {
	Send         Sender
	SendBack     SendBacker
	Pull         Puller
	Offsets      Offsets
	OffsetAdmin  OffsetAdmin
	Members      Members
	Query        Queries
	EndTx        TransactionEnder
	Topics       TopicAdmin
	Groups       GroupAdmin
	Stats        Stats
	Config       Config
	Relay        Relay
	Locks        Locks
	DelayOffsets DelayOffsets
	Pop          Popper
	Assign       Assigner
	Timers       Timers
	HA           HAStatus
}
