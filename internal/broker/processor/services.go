package processor

import (
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Sender stores what producers send (send.Service).
type Sender interface {
	Send(r send.Request) (send.Result, error)
	SendBatch(r send.Request) (send.Result, error)
}

// SendBacker re-sends what consumers failed (sendback.Service).
type SendBacker interface {
	SendBack(r sendback.Request) error
}

// Puller serves pulls (pull.Service); wake answers a held pull.
type Puller interface {
	Pull(r pull.Request, wake func(pull.Result, error)) (res pull.Result, held bool, err error)
}

// Offsets answers offset questions (queueoffset.Service).
type Offsets interface {
	Committed(group, topic string, queueID int32) (int64, error)
	Commit(group, topic string, queueID int32, offset int64)
	MaxOffset(topic string, queueID int32) int64
	MinOffset(topic string, queueID int32) int64
	EarliestTime(topic string, queueID int32) int64
	OffsetByTime(topic string, queueID int32, ts int64) int64
	All() body.ConsumerOffsetSerializeWrapper
}

// Members keeps the groups' membership (membership.Service).
type Members interface {
	Heartbeat(ch client.ClientChannel, hb body.HeartbeatData)
	Unregister(chID uint64, producerGroup, consumerGroup string)
	ConsumerIDs(group string) ([]string, error)
	ConnClosed(chID uint64)
}

// Queries finds stored messages (query.Service).
type Queries interface {
	ByKey(q query.KeyQuery) (*store.QueryResult, error)
	Record(phyOffset int64) ([]byte, error)
	RecordByID(msgID string) ([]byte, error)
}

// TransactionEnder ends transactions (endtx.Service).
type TransactionEnder interface {
	End(r transaction.EndRequest) error
}

// Services are the protocol-neutral operations the handlers adapt to remoting.
type Services struct {
	Send     Sender
	SendBack SendBacker
	Pull     Puller
	Offsets  Offsets
	Members  Members
	Query    Queries
	EndTx    TransactionEnder
}
