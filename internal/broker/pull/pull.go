// Package pull serves consumers' pulls: Java's checks (broker and topic permission, group, queue),
// the subscription to filter by (the pull's own, or for Go push consumers, which send none, the
// group's last heartbeat's), tag and SQL92 filters, long polling (a pull that finds nothing new is
// held until a matching message arrives or its timeout) and the commit of the consumer's offset
// that rides on a pull. It knows nothing of frames: a held pull completes through the callback the
// protocol adapter supplies.
package pull

import (
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/longpoll"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Store reads messages.
type Store interface {
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter store.MessageFilter) *store.GetResult
}

// Groups finds (or auto-creates, for the connection owner) the pulling group; refused is a
// creation beyond what the connection may create.
type Groups interface {
	FindOrCreateFor(owner uint64, group string) (cfg body.SubscriptionGroupConfig, ok bool, refused error)
}

// Topics looks topics up.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
}

// Consumers knows the groups' members and their heartbeat subscriptions.
type Consumers interface {
	HasGroup(group string) bool
	Subscription(group, topic string) (*client.Subscription, bool)
	BuildSubscription(d body.SubscriptionData) *client.Subscription
}

// Holds parks pulls until their queue has something for them (at most so many, in total and per
// connection), and drops a closed connection's.
type Holds interface {
	Hold(r *longpoll.Request) error
	Release(owner uint64) int
}

// Offsets commits consumer offsets.
type Offsets interface {
	Commit(group, topic string, queueID int32, offset int64)
}

// Metrics counts what was delivered and where each group's pulls got to (for the lag gauges).
type Metrics interface {
	MessagesOut(topic, group string, n, bytes int)
	Pulled(group, topic string, queueID int32, next int64)
}

// Options are the broker settings a pull depends on.
type Options struct {
	BrokerName       string
	BrokerPermission int
	// Replica is the broker's role and slaveReadEnable.
	Replica policy.Replica
	// LongPollingEnable holds pulls for their suspend timeout, at most MaxSuspendTimeout;
	// otherwise for ShortPollingTime.
	LongPollingEnable bool
	ShortPollingTime  time.Duration
	// MaxSuspendTimeout caps the suspend timeout a pull asks for (longPollingMaxSuspendMillis);
	// 0 is DefaultMaxSuspendTimeout.
	MaxSuspendTimeout time.Duration
	// EnablePropertyFilter allows SQL92 subscriptions.
	EnablePropertyFilter bool
}

// Deps are what the service works with; Metrics may be nil.
type Deps struct {
	Store     Store
	Groups    Groups
	Topics    Topics
	Consumers Consumers
	Holds     Holds
	Offsets   Offsets
	Metrics   Metrics
}

// Service serves pulls.
type Service struct {
	opts Options
	Deps
	now func() time.Time
}

// DefaultMaxSuspendTimeout is longPollingMaxSuspendMillis's default: above the clients' own
// suspend times (15 s for Java's push consumer, 20 s for its lite pull consumer and the Go
// client), below their 30 s call timeout.
const DefaultMaxSuspendTimeout = 30 * time.Second

// New returns a Service.
func New(opts Options, deps Deps) *Service {
	if opts.ShortPollingTime <= 0 {
		opts.ShortPollingTime = time.Second
	}
	if opts.MaxSuspendTimeout <= 0 {
		opts.MaxSuspendTimeout = DefaultMaxSuspendTimeout
	}
	return &Service{opts: opts, Deps: deps, now: time.Now}
}

// Request is one pull.
type Request struct {
	Group       string
	Topic       string
	QueueID     int32
	QueueOffset int64
	MaxMsgNums  int32
	// Commit asks to commit CommitOffset for the group along with the pull.
	Commit       bool
	CommitOffset int64
	// Suspend lets the broker hold the pull for SuspendTimeout (at most MaxSuspendTimeout) when
	// the queue has nothing new.
	Suspend        bool
	SuspendTimeout time.Duration
	// Owner names the connection the pull came on, whose held pulls are counted and dropped
	// together (ConnClosed); Done is closed when it ends (a held pull is then not run again).
	// Zero and nil for a pull without a connection.
	Owner uint64
	Done  <-chan struct{}
	// OwnSubscription says the pull carries its subscription (Subscription, ExpressionType,
	// SubVersion); otherwise the group's heartbeat subscription applies, at least SubVersion.
	OwnSubscription bool
	Subscription    string
	ExpressionType  string
	SubVersion      int64
}

// Result is a pull's answer. Status is OK with Records, or PullNotFound, PullRetryImmediately,
// PullOffsetMoved (or SystemError for a status the store should not give); Remark is the store's
// status name. Release must be called once Records have been written; it is nil without Records.
type Result struct {
	Status          outcome.Kind
	Remark          string
	SuggestBrokerID int64
	NextBeginOffset int64
	MinOffset       int64
	MaxOffset       int64
	Records         [][]byte
	Release         func()
}

// Pull runs a pull. When the queue has nothing new and the request may be suspended, the pull is
// held: held is true, and wake is called later, exactly once and on another goroutine, with the
// outcome of running the pull again.
func (s *Service) Pull(r Request, wake func(Result, error)) (res Result, held bool, err error) {
	return s.run(&r, wake)
}

// run runs one pull; wake is nil when a held pull runs again (it is then never held).
func (s *Service) run(r *Request, wake func(Result, error)) (Result, bool, error) {
	gc, sub, err := s.check(r)
	if err != nil {
		return Result{}, false, err
	}
	f := messageFilter(sub)
	got := s.Store.GetMessage(r.Group, r.Topic, r.QueueID, r.QueueOffset, r.MaxMsgNums, f)
	if got == nil {
		return Result{}, false, outcome.Errorf(outcome.SystemError, "store getMessage returned nil: the store is closed")
	}
	res := s.result(r, got, gc)
	held, err := s.settle(r, &res, got, f, wake)
	if err != nil {
		return Result{}, false, err
	}
	s.pulled(r, res)
	if wake != nil && r.Commit && !s.opts.Replica.Slave {
		s.Offsets.Commit(r.Group, r.Topic, r.QueueID, r.CommitOffset)
	}
	return res, held, nil
}

// settle hands the records read to res when the pull found some, or releases them, and holds a
// pull that found nothing when it may (wake set and the request allows suspending). A pull the
// broker holds too many of already is SystemBusy.
func (s *Service) settle(r *Request, res *Result, got *store.GetResult, f store.MessageFilter, wake func(Result, error)) (held bool, err error) {
	if res.Status == outcome.OK {
		s.delivered(r, got)
		res.Records, res.Release = got.Records, got.Release
		return false, nil
	}
	got.Release()
	if res.Status == outcome.PullNotFound && wake != nil && r.Suspend {
		if err := s.hold(r, f, wake); err != nil {
			return false, outcome.Errorf(outcome.SystemBusy, "[PULL]the pull cannot be held: %v; try again later", err)
		}
		return true, nil
	}
	return false, nil
}

// result is the answer a read makes, its status routed by the master/slave rules.
func (s *Service) result(r *Request, got *store.GetResult, gc body.SubscriptionGroupConfig) Result {
	k, suggest := policy.PullRoute(policy.PullStatus(got.Status, r.QueueOffset), s.opts.Replica, gc,
		got.SuggestPullingFromSlave)
	return Result{Status: k, Remark: got.Status.String(), SuggestBrokerID: suggest,
		NextBeginOffset: got.NextBeginOffset, MinOffset: got.MinOffset, MaxOffset: got.MaxOffset}
}

// pulled records the offset a pull hands back as the group's position in the queue.
func (s *Service) pulled(r *Request, res Result) {
	if s.Metrics != nil && res.Status != outcome.SystemError {
		s.Metrics.Pulled(r.Group, r.Topic, r.QueueID, res.NextBeginOffset)
	}
}

func (s *Service) delivered(r *Request, got *store.GetResult) {
	if s.Metrics != nil {
		s.Metrics.MessagesOut(r.Topic, r.Group, got.MessageCount(), got.BufferTotalSize)
	}
}

// hold parks a pull that found nothing until a message it wants arrives or its suspend timeout
// (capped), then runs it again and hands the outcome to wake, unless its connection has ended.
func (s *Service) hold(r *Request, f store.MessageFilter, wake func(Result, error)) error {
	wait := min(r.SuspendTimeout, s.opts.MaxSuspendTimeout)
	if !s.opts.LongPollingEnable {
		wait = s.opts.ShortPollingTime
	}
	return s.Holds.Hold(&longpoll.Request{
		Topic:    r.Topic,
		QueueID:  r.QueueID,
		Offset:   r.QueueOffset,
		Deadline: s.now().Add(wait),
		Owner:    r.Owner,
		Match: func(tagsCode int64, props []byte) bool {
			return f.MatchByConsumeQueue(tagsCode) && f.MatchByCommitLog(props)
		},
		Wake: func(bool) { s.rerun(r, wake) },
	})
}

// rerun runs a held pull again and hands the outcome to wake; a pull whose connection has ended
// is not run. A panic while running it is answered SystemError (and re-raised for the holder's
// log), so the client is not left waiting.
func (s *Service) rerun(r *Request, wake func(Result, error)) {
	if ended(r.Done) {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			wake(Result{}, outcome.Errorf(outcome.SystemError, "running the held pull again failed: %v", v))
			panic(v)
		}
	}()
	res, _, err := s.run(r, nil)
	wake(res, err)
}

func ended(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// ConnClosed drops the held pulls of a connection that has ended (Request.Owner).
func (s *Service) ConnClosed(owner uint64) { s.Holds.Release(owner) }
