package transaction

import (
	"errors"
	"net/netip"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Store is what the service needs of the message store.
type Store interface {
	PutMessage(m *store.Message) store.PutResult
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter store.MessageFilter) *store.GetResult
	LookMessageByOffset(phyOffset int64) *message.MessageExt
	MinOffsetInQueue(topic string, queueID int32) int64
	MaxOffsetInQueue(topic string, queueID int32) int64
}

// Offsets keeps the check-back loop's progress: the check group's offsets of the half and op
// topics in the consumer offset table, as Java keeps them.
type Offsets interface {
	Query(group, topic string, queueID int32) (int64, bool)
	Commit(group, topic string, queueID int32, offset int64)
}

// Producers finds the connections of a producer group.
type Producers interface {
	Channels(group string) []client.ClientChannel
}

// Topics reads topic configs (the half topic's queue count).
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
}

// Options configure a Service; zero values take Java 4.9's defaults.
type Options struct {
	BrokerName string
	// StoreHost is brokerIP1:listenPort: op messages are born there.
	StoreHost netip.AddrPort
	// CheckInterval is the time between check-back passes (transactionCheckInterval, 60 s).
	CheckInterval time.Duration
	// Timeout is how old a half message must be before its producer is asked about it
	// (transactionTimeOut, 6 s).
	Timeout time.Duration
	// CheckMax is how many times a half message is checked before it is discarded
	// (transactionCheckMax, 15).
	CheckMax int
	// RejectTransactionMessage refuses half messages (rejectTransactionMessage).
	RejectTransactionMessage bool
	// FileReservedTime: half messages born longer ago are discarded unchecked, their CommitLog
	// files being due for deletion (fileReservedTime, 72 h).
	FileReservedTime time.Duration
	// MaxDelayLevel is the number of delay levels: a committed message with a DELAY property goes
	// through the delay queues.
	MaxDelayLevel int
	// Timers, when set, turns a committed message that asks for a delivery time into a timer
	// message (timing.Service), as Java's commit goes through the same hook as a send.
	Timers Diverter
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Metrics, if set, counts ended and discarded transactions.
	Metrics Metrics
}

// Metrics counts how transactions end.
type Metrics interface {
	TransactionEnded(realTopic string, commit bool, bornMillis int64)
	HalfDiscarded(realTopic string)
}

// Diverter turns a message that asks for a delivery time into a timer message.
type Diverter interface {
	Divert(m *store.Message) (bool, error)
}

func (o *Options) setDefaults() {
	def := func(p *time.Duration, d time.Duration) {
		if *p <= 0 {
			*p = d
		}
	}
	def(&o.CheckInterval, 60*time.Second)
	def(&o.Timeout, 6*time.Second)
	def(&o.FileReservedTime, 72*time.Hour)
	if o.CheckMax <= 0 {
		o.CheckMax = 15
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// ErrRejected is Prepare's answer when the broker refuses transactional messages.
var ErrRejected = errors.New("transaction: the broker refuses transactional messages (rejectTransactionMessage=true)")

// Service prepares and ends transactions and owns the check-back goroutine.
type Service struct {
	opts      Options
	st        Store
	offsets   Offsets
	producers Producers
	topics    Topics
	lg        *zap.Logger
	uniq      *message.UniqIDGenerator

	checkMu sync.Mutex      // one check pass at a time
	loop    lifecycle.Group // the check-back loop
	start   sync.Once
}

// New returns a Service; nothing runs until Start.
func New(opts Options, st Store, offsets Offsets, producers Producers, topics Topics, lg *zap.Logger) *Service {
	if lg == nil {
		lg = zap.NewNop()
	}
	opts.setDefaults()
	ip := opts.StoreHost.Addr()
	if !ip.IsValid() {
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	return &Service{opts: opts, st: st, offsets: offsets, producers: producers, topics: topics, lg: lg,
		uniq: message.NewUniqIDGenerator(ip, os.Getpid(), int32(time.Now().UnixNano()>>7), nil)}
}

// Prepare turns m, a send IsHalfSend picked out, into its half message, to be stored as is; it
// returns ErrRejected when the broker refuses transactional messages.
func (s *Service) Prepare(m *store.Message) error {
	if s.opts.RejectTransactionMessage {
		return ErrRejected
	}
	toHalf(m)
	return nil
}

// Start runs the check-back loop: a pass every CheckInterval (the first one interval after Start).
// Only a master runs it.
func (s *Service) Start() {
	s.start.Do(func() { s.loop.Go(s.run) })
}

func (s *Service) run(stop <-chan struct{}) {
	t := time.NewTicker(s.opts.CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.Check()
		}
	}
}

// Close stops the loop, interrupting a pass between two half messages. The offsets it reached
// are in the offset table, which its owner persists.
func (s *Service) Close() error {
	s.loop.Stop()
	return nil
}

func (s *Service) stopping() bool { return s.loop.Stopped() }

func (s *Service) nowMillis() int64 { return s.opts.Now().UnixMilli() }

// put stores m; false (logged) when the store refused it.
func (s *Service) put(m *store.Message, what string) (store.PutResult, bool) {
	res := s.st.PutMessage(m)
	if !res.Status.Stored() {
		s.lg.Error("storing a transaction message failed", zap.String("what", what), zap.String("topic", m.Topic),
			zap.Stringer("status", res.Status), zap.String("remark", res.Remark))
		return res, false
	}
	return res, true
}
