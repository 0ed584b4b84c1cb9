// Package send stores what producers send: one message or a batch, after Java's checks (broker and
// topic permission, topic name, queue id, size), creating a new topic from its default topic
// when auto-creation allows, moving a message sent to a retry topic that has been reconsumed too
// often to the group's dead-letter topic, preparing transaction halves and deferring delayed
// messages. It adds a UNIQ_KEY to messages that carry none. It knows nothing of frames: a protocol
// adapter fills a Request and maps the Result or error.
package send

import (
	"math/rand/v2"
	"net/netip"
	"os"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Store puts messages.
type Store interface {
	PutMessage(m *store.Message) store.PutResult
	PutMessages(b *store.Batch) store.PutResult
}

// Topics looks topics up and creates them on first send, for the connection owner; refused is a
// creation beyond what the connection may create.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
	CreateTopicInSendMessageFor(owner uint64, topic, defaultTopic string, clientQueueNums, sysFlag int) (tc body.TopicConfig, ok bool, refused error)
	CreateTopicInSendMessageBack(topic string, queueNums, perm, sysFlag int) body.TopicConfig
}

// Groups finds (or auto-creates, for the connection owner) the consumer group of a retry topic.
type Groups interface {
	FindOrCreateFor(owner uint64, group string) (cfg body.SubscriptionGroupConfig, ok bool, refused error)
}

// Transactions stores the first half of a transaction.
type Transactions interface {
	Prepare(m *store.Message) error
}

// Timers turns a message that asks for a delivery time into a timer message (timing.Service);
// RecallHandle is the handle that withdraws a stored one.
type Timers interface {
	Divert(m *store.Message) (bool, error)
	RecallHandle(m *store.Message) string
}

// Metrics counts what was stored, dead letters and transactions' halves.
type Metrics interface {
	MessagesIn(topic string, typ metrics.MessageType, n, bytes int)
	SentToDLQ(group, topic string)
	HalfPrepared(realTopic string)
}

// Options are the broker settings a send depends on.
type Options struct {
	BrokerName       string
	BrokerPermission int
	MaxMessageSize   int
	// StoreHost is brokerIP1:listenPort: UNIQ_KEYs are made from its address.
	StoreHost netip.AddrPort
	// MaxDelayLevel is the number of messageDelayLevel entries.
	MaxDelayLevel int
	// ClusterName, RegionID and TraceOn are written on every stored message (CLUSTER, MSG_REGION,
	// TRACE_ON).
	ClusterName string
	RegionID    string
	TraceOn     bool
	// StoreReplyMessageEnable stores request-reply answers besides pushing them to the requester.
	StoreReplyMessageEnable bool
}

// Deps are what the service works with; Timers and Metrics may be nil, and so may Requesters
// (replies then reach nobody).
type Deps struct {
	Store        Store
	Topics       Topics
	Groups       Groups
	Transactions Transactions
	Timers       Timers
	Metrics      Metrics
	Requesters   Requesters
}

// Service serves sends.
type Service struct {
	opts atomic.Pointer[Options] // replaced whole by Reconfigure
	Deps
	uniq *message.UniqIDGenerator
	// suffix is the broker's properties, appended to every stored message (stamp.go).
	suffix string
	// async is Store when it can put without blocking for the group commit, else nil.
	async AsyncStore
	// pick chooses a queue in [0, n) for a send that names none.
	pick func(n int32) int32
}

// New returns a Service.
func New(opts Options, deps Deps) *Service {
	ip := opts.StoreHost.Addr()
	if !ip.IsValid() {
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	s := &Service{Deps: deps, pick: rand.Int32N, suffix: stampSuffix(opts),
		uniq: message.NewUniqIDGenerator(ip, os.Getpid(), int32(time.Now().UnixNano()), nil)}
	s.opts.Store(&opts)
	s.async, _ = deps.Store.(AsyncStore)
	return s
}

// Reconfigure changes the options while the service runs (UPDATE_BROKER_CONFIG: brokerPermission,
// storeReplyMessageEnable): edit gets a copy of the current ones; sends that start afterwards see
// the result. The broker's stamped properties stay those it started with.
func (s *Service) Reconfigure(edit func(*Options)) {
	o := *s.options()
	edit(&o)
	s.opts.Store(&o)
}

func (s *Service) options() *Options { return s.opts.Load() }

// Request is one send: a message, or with SendBatch a batch body of messages for one queue.
type Request struct {
	ProducerGroup         string
	Topic                 string
	DefaultTopic          string
	DefaultTopicQueueNums int32
	// QueueID is the queue the producer picked; negative lets the broker pick.
	QueueID        int32
	SysFlag        int32
	BornTimestamp  int64
	BornHost       netip.AddrPort
	Flag           int32
	Properties     string
	ReconsumeTimes int32
	UnitMode       bool
	// MaxReconsumeTimes is the producer's limit for a message sent to a retry topic; negative
	// when it sent none.
	MaxReconsumeTimes int32
	Body              []byte
	// Owner is the connection the send came on, whose topic and group creations are counted.
	Owner uint64
}

// Result is a stored send. Status is OK, or FlushDiskTimeout, FlushSlaveTimeout or
// SlaveNotAvailable for a message stored but not yet flushed or replicated, with its remark.
type Result struct {
	Status  outcome.Kind
	Remark  string
	QueueID int32
	// Put is the store's result: offsets and message ids.
	Put store.PutResult
	// RecallHandle is set for a message stored as a timer message.
	RecallHandle string
}

// target is where a checked send goes.
type target struct {
	topic   string
	queueID int32
	cfg     body.TopicConfig
}

// Send stores one message.
func (s *Service) Send(req Request) (Result, error) {
	res, _, err := s.send(&req, nil)
	return res, err
}

// countSend counts a stored send to topic (as sent, with props) that went to a dead-letter
// topic, or that is a transaction's half.
func (s *Service) countSend(topic, props string, t target, stored string, dlq bool) {
	if group, ok := systopic.RetryGroup(topic); ok && dlq {
		s.Metrics.SentToDLQ(group, consumedFrom(props, topic))
	}
	if stored == systopic.TransHalf {
		s.Metrics.HalfPrepared(t.topic)
	}
}

// tooLarge is the refusal of a body of n bytes over maxMessageSize.
func (s *Service) tooLarge(n int) error {
	return outcome.Errorf(outcome.MessageIllegal, "the message body size %d exceeds maxMessageSize %d",
		n, s.options().MaxMessageSize)
}

func (s *Service) message(r *Request, t target) store.Message {
	return store.Message{
		Topic:          t.topic,
		QueueID:        t.queueID,
		Flag:           r.Flag,
		SysFlag:        r.SysFlag,
		BornTimestamp:  r.BornTimestamp,
		BornHost:       r.BornHost,
		ReconsumeTimes: r.ReconsumeTimes,
		Body:           r.Body,
		Properties:     s.stamp(r.Properties),
	}
}

// prepareOrDefer stores the first half of a transaction invisible until END_TRANSACTION commits
// it, or turns a message that asks for a delivery time into a timer message (timer reports it),
// or a message with a delay level into its delayed form (neither when it goes to a DLQ).
func (s *Service) prepareOrDefer(m *store.Message, r *Request, dlq bool) (timer bool, _ error) {
	if transaction.IsHalfSend(r.Properties, r.ReconsumeTimes) {
		if err := s.Transactions.Prepare(m); err != nil {
			return false, outcome.Errorf(outcome.NoPermission, "the broker[%s] sending transaction message is forbidden",
				s.options().StoreHost.Addr())
		}
		return false, nil
	}
	if dlq {
		return false, nil
	}
	if s.Timers != nil {
		if ok, err := s.Timers.Divert(m); ok || err != nil {
			return ok, err
		}
	}
	if level := policy.DelayLevel(schedule.DelayLevel(m.Properties), s.options().MaxDelayLevel); level > 0 {
		schedule.Defer(m, level, s.options().MaxDelayLevel)
	}
	return false, nil
}

// consumedFrom is the topic a retried message was first consumed from: its RETRY_TOPIC, else topic.
func consumedFrom(props, topic string) string {
	if t, ok := message.LookupPropertyString(props, message.PropertyRetryTopic); ok && t != "" {
		return t
	}
	return topic
}

// result turns a put into the send's outcome and counts n messages stored in topic stored (the
// delay or half topic for a delayed or transaction message, as RocketMQ 5 counts them).
func (s *Service) result(res *store.PutResult, t target, stored, props string, n int) (Result, error) {
	if err := policy.PutFailure(res); err != nil {
		return Result{}, err
	}
	if s.Metrics != nil {
		s.Metrics.MessagesIn(stored, MessageType(props, t.cfg), n, int(res.WroteBytes))
	}
	k, remark := policy.PutOutcome(res.Status, res.Remark)
	return Result{Status: k, Remark: remark, QueueID: t.queueID, Put: *res}, nil
}

// withUniqKey returns a batch entry's props with a UNIQ_KEY added when it has none (batches of the
// Go client send none); props that have one pass through untouched, without copying.
func (s *Service) withUniqKey(props string) string {
	if _, ok := message.LookupPropertyString(props, message.PropertyUniqClientMessageID); ok {
		return props
	}
	buf := make([]byte, 0, len(props)+64)
	buf = append(buf, props...)
	if len(buf) > 0 && buf[len(buf)-1] != message.PropertySeparator {
		buf = append(buf, message.PropertySeparator)
	}
	buf = append(buf, message.PropertyUniqClientMessageID...)
	buf = append(buf, message.NameValueSeparator)
	buf = s.uniq.Append(buf)
	buf = append(buf, message.PropertySeparator)
	return string(buf)
}
