// Package pop serves RocketMQ 5's POP consumption (Java PopMessageProcessor, AckMessageProcessor,
// ChangeInvisibleTimeProcessor, PeekMessageProcessor, NotificationProcessor, PollingInfoProcessor
// and PopReviveService): the broker hands a consumer messages with an invisible time and takes
// acknowledgements per message; what is not acknowledged in time is put into the group's POP
// retry topic (%RETRY%group_topic) with one more reconsume, and into the group's DLQ once the
// group's retryMaxTimes is reached.
//
// Its state lives in the revive topic (rmq_sys_REVIVE_LOG_<cluster>) as records of the CommitLog:
// a checkpoint per pop of one queue, and ack and revived records that settle its messages
// (record.go). A checkpoint is written, and the group's pop offset committed past the messages,
// before the messages are handed out; an ack is written before it is answered. The outstanding
// checkpoints are also kept in memory (table.go), and the revive offset committed for each
// revive queue (the consumer offset of CID_RMQ_SYS_REVIVE_GROUP) stays below every record not
// yet settled. So after a restart or a crash the service rebuilds its table by reading each
// revive queue from its committed offset (recover.go), and a slave, whose CommitLog and consumer
// offsets are copies of its master's, has all it needs to serve POP when started as master.
// Orderly pops keep Java's order info instead, in consumerOrderInfo.json (order.go).
//
// The service knows nothing of frames: a POP or NOTIFICATION held for its poll time completes
// through the callback the protocol adapter supplies (poll.go).
package pop

import (
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Store reads messages and appends records.
type Store interface {
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter store.MessageFilter) *store.GetResult
	PutMessage(m *store.Message) store.PutResult
	MaxOffsetInQueue(topic string, queueID int32) int64
	MinOffsetInQueue(topic string, queueID int32) int64
}

// Topics looks topics up and creates the revive, retry and dead-letter topics.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
	CreateTopicIfAbsent(tc body.TopicConfig) (got body.TopicConfig, created bool)
}

// Groups finds (or auto-creates) consumer groups; FindOrCreateFor counts a group it creates
// against the connection owner (refused beyond what owner may create).
type Groups interface {
	FindOrCreate(group string) (body.SubscriptionGroupConfig, bool)
	FindOrCreateFor(owner uint64, group string) (cfg body.SubscriptionGroupConfig, ok bool, refused error)
}

// Offsets holds the groups' pop offsets (their consumer offsets) and the revive offsets.
type Offsets interface {
	Query(group, topic string, queueID int32) (int64, bool)
	Commit(group, topic string, queueID int32, offset int64)
}

// Subscriptions builds the filter of a POP's expression.
type Subscriptions interface {
	BuildSubscription(d body.SubscriptionData) *client.Subscription
}

// Metrics counts what was delivered.
type Metrics interface {
	MessagesOut(topic, group string, n, bytes int)
}

// Options are the broker settings POP depends on; zero values take Java 5.3's defaults.
type Options struct {
	ClusterName      string
	BrokerName       string
	BrokerPermission int
	// Slave brokers do not pop: the checkpoints are the master's to write.
	Slave bool
	// StoreHost is written into the records the service appends.
	StoreHost netip.AddrPort
	// StorePathRootDir holds config/consumerOrderInfo.json.
	StorePathRootDir string
	// ReviveQueueNum is the revive topic's queue count (reviveQueueNum, 8).
	ReviveQueueNum int
	// ReviveInterval is how often due checkpoints are revived (reviveInterval, 1 s).
	ReviveInterval time.Duration
	// PopFromRetryProbability is the % of pops that read the retry topic first (20).
	PopFromRetryProbability int
	// PollingSize bounds the POPs held per group, topic and queue (popPollingSize, 1024);
	// MaxPollingSize all of them (maxPopPollingSize, 100000).
	PollingSize    int
	MaxPollingSize int
	// MaxPollingPerConnection bounds the POPs and NOTIFICATIONs one connection has held
	// (longPollingMaxHeldPerConnection, 10000), counted apart from its held pulls; MaxPollTime is
	// the longest one is held, whatever its pollTime (longPollingMaxSuspendMillis, 30 s).
	MaxPollingPerConnection int
	MaxPollTime             time.Duration
	// FlushInterval is how often consumerOrderInfo.json is written (5 s).
	FlushInterval time.Duration
	// MaxOutstanding bounds the checkpoints not yet settled (1,000,000, about 200 MB): beyond it
	// POP and CHANGE_MESSAGE_INVISIBLETIME answer SYSTEM_BUSY until acks or revives settle some.
	MaxOutstanding int
}

func (o *Options) setDefaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.ReviveQueueNum, 8)
	def(&o.PollingSize, 1024)
	def(&o.MaxPollingSize, 100000)
	def(&o.MaxPollingPerConnection, 10000)
	if o.MaxPollTime <= 0 {
		o.MaxPollTime = 30 * time.Second
	}
	def(&o.MaxOutstanding, 1_000_000)
	if o.PopFromRetryProbability < 0 {
		o.PopFromRetryProbability = 20
	}
	if o.ReviveInterval <= 0 {
		o.ReviveInterval = time.Second
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = 5 * time.Second
	}
}

// Deps are what the service works with; Metrics may be nil.
type Deps struct {
	Store         Store
	Topics        Topics
	Groups        Groups
	Offsets       Offsets
	Subscriptions Subscriptions
	Metrics       Metrics
}

// Service serves POP and its acknowledgements. Start recovers its state and starts the revive
// service; Stop answers what it holds and stops.
type Service struct {
	opts        Options
	Deps        Deps
	lg          *zap.Logger
	reviveTopic string

	cks    *table
	locks  queueLocks
	orders *orderInfos
	polls  *polls
	nextQ  atomic.Uint32 // round-robin revive queue
	puts   sync.Pool     // *recordPut

	now   func() time.Time
	rand  func(n int) int
	loops lifecycle.Group
	ready atomic.Bool // recovered; Pop and friends serve
}

// New returns a Service; nothing runs until Start.
func New(opts Options, deps Deps, lg *zap.Logger) (*Service, error) {
	opts.setDefaults()
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Service{opts: opts, Deps: deps, lg: lg, reviveTopic: systopic.Revive(opts.ClusterName),
		cks: newTable(opts.ReviveQueueNum), now: time.Now, rand: rand.IntN}
	s.locks.held = map[lockKey]struct{}{}
	s.loops.OnPanic = func(v any, stack []byte) {
		s.lg.Error("a held POP or NOTIFICATION panicked when run again", zap.Any("panic", v), zap.ByteString("stack", stack))
	}
	s.puts.New = func() any { return &recordPut{body: make([]byte, 0, 256)} }
	orders, err := newOrderInfos(opts.StorePathRootDir, lg)
	if err != nil {
		return nil, err
	}
	s.orders = orders
	s.polls = newPolls(pollLimits{perKey: opts.PollingSize, perConn: opts.MaxPollingPerConnection,
		total: opts.MaxPollingSize, maxWait: opts.MaxPollTime.Milliseconds()}, &s.loops)
	return s, nil
}

// ReviveTopic is the topic the service keeps its records in.
func (s *Service) ReviveTopic() string { return s.reviveTopic }

// Start creates the revive topic, rebuilds the outstanding checkpoints from it and starts the
// revive and order-info loops. A slave starts nothing.
func (s *Service) Start() error {
	if s.opts.Slave {
		return nil
	}
	s.Deps.Topics.CreateTopicIfAbsent(s.reviveTopicConfig())
	if err := s.recover(); err != nil {
		return err
	}
	s.ready.Store(true)
	s.loops.Go(s.reviveLoop)
	s.loops.Go(s.orders.flushLoop(s.opts.FlushInterval))
	return nil
}

func (s *Service) reviveTopicConfig() body.TopicConfig {
	tc := body.NewTopicConfig(s.reviveTopic)
	tc.ReadQueueNums, tc.WriteQueueNums = s.opts.ReviveQueueNum, s.opts.ReviveQueueNum
	tc.Perm = body.PermRead | body.PermWrite
	return tc
}

// Stop answers every held request, stops the loops, commits the revive offsets and writes the
// order info.
func (s *Service) Stop() {
	s.polls.closeAll()
	s.loops.Stop()
	if s.ready.Load() {
		s.commitReviveOffsets()
		if err := s.orders.persist(); err != nil {
			s.lg.Error("persist consumer order info", zap.Error(err))
		}
	}
}

// InFlight counts, for each queue of a group's topic (a POP retry topic for what it popped from
// one), the messages popped and neither acknowledged nor revived; a queue without any is missing.
func (s *Service) InFlight(topic, group string) map[int32]int64 { return s.cks.inflight(topic, group) }

// Outstanding is the number of checkpoints not yet settled (tests, metrics).
func (s *Service) Outstanding() int { return s.cks.size() }

// ConnClosed drops the requests a closed connection left held.
func (s *Service) ConnClosed(connID uint64) { s.polls.dropConn(connID) }

// Notify tells held POP and NOTIFICATION requests that a message was dispatched to a queue; it is
// cheap when nothing is held.
func (s *Service) Notify(topic string, queueID int32) { s.polls.notify(topic, queueID) }

// lockKey names a queue of a group.
type lockKey struct {
	topic, group string
	queueID      int32
}

// queueLocks are Java's QueueLockManager: one pop of a group's queue at a time; another pop skips
// the queue rather than wait.
type queueLocks struct {
	mu   sync.Mutex
	held map[lockKey]struct{}
}

func (l *queueLocks) tryLock(k lockKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[k]; ok {
		return false
	}
	l.held[k] = struct{}{}
	return true
}

// lock waits for the queue (acks of orderly pops, as Java spins).
func (l *queueLocks) lock(k lockKey) {
	for !l.tryLock(k) {
		time.Sleep(time.Millisecond)
	}
}

func (l *queueLocks) unlock(k lockKey) {
	l.mu.Lock()
	delete(l.held, k)
	l.mu.Unlock()
}

func (s *Service) nowMs() int64 { return s.now().UnixMilli() }
