package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/query"
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

// Sender stores what producers send (send.Service).
type Sender interface {
	Send(r send.Request) (send.Result, error)
	// SendAsync is Send that may leave a SYNC_FLUSH send pending: reply is told its outcome.
	SendAsync(r send.Request, reply send.Reply) (send.Result, bool, error)
	SendBatch(r send.Request) (send.Result, error)
}

// SendBacker re-sends what consumers failed (sendback.Service).
type SendBacker interface {
	SendBack(r sendback.Request) error
}

// Puller serves pulls (pull.Service); wake answers a held pull. ConnClosed drops the pulls a
// closed connection (Request.Owner) still has held.
type Puller interface {
	Pull(r pull.Request, wake func(pull.Result, error)) (res pull.Result, held bool, err error)
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
}

// GroupAdmin administers consumer groups (groupadmin.Service).
type GroupAdmin interface {
	Writable() error
	Update(cfg body.SubscriptionGroupConfig, from string) error
	Delete(group string, removeOffsets bool, from string) error
	All() body.SubscriptionGroupWrapper
}

// Stats answers state questions (stats.Service).
type Stats interface {
	RuntimeInfo() map[string]string
	TopicStats(topic string) (body.TopicStatsTable, error)
	ConsumeStats(group, only string) body.ConsumeStats
	Connections(group string) (body.ConsumerConnection, error)
	ConsumedBy(topic string) []string
	TimeSpans(topic, group string) ([]stats.QueueTimeSpan, error)
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

// Services are the protocol-neutral operations the handlers adapt to remoting.
type Services struct {
	Send         Sender
	SendBack     SendBacker
	Pull         Puller
	Offsets      Offsets
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
	Timers       Timers
}
