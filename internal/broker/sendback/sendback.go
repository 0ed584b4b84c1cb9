// Package sendback re-sends a message its consumer failed to process (Java's
// asyncConsumerSendMsgBack): to the group's retry topic, delayed by a level that grows with each
// attempt, or to its dead-letter topic once the group's (or the client's) maximum is reached. The
// decision is policy.RetryOrDLQ, the same one a send to a retry topic makes.
package sendback

import (
	"math/rand/v2"
	"strconv"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Store reads the failed message and puts its next attempt.
type Store interface {
	LookMessageByOffset(phyOffset int64) *message.MessageExt
	PutMessage(m *store.Message) store.PutResult
}

// Topics creates retry and dead-letter topics.
type Topics interface {
	CreateTopicInSendMessageBack(topic string, queueNums, perm, sysFlag int) body.TopicConfig
}

// Groups finds (or auto-creates, for the connection owner) the consumer group; refused is a
// creation beyond what the connection may create.
type Groups interface {
	FindOrCreateFor(owner uint64, group string) (cfg body.SubscriptionGroupConfig, ok bool, refused error)
}

// Metrics counts dead letters.
type Metrics interface {
	SentToDLQ(group, topic string)
}

// Options are the broker settings a send-back depends on.
type Options struct {
	BrokerName       string
	BrokerPermission int
	// MaxDelayLevel is the number of messageDelayLevel entries.
	MaxDelayLevel int
	// Metrics, if set, counts the messages sent to a dead-letter topic.
	Metrics Metrics
}

// Service serves send-backs.
type Service struct {
	opts   Options
	store  Store
	topics Topics
	groups Groups
	// pick chooses a retry queue in [0, n).
	pick func(n int32) int32
}

// New returns a Service.
func New(opts Options, st Store, topics Topics, groups Groups) *Service {
	return &Service{opts: opts, store: st, topics: topics, groups: groups, pick: rand.Int32N}
}

// Request names the failed message by its CommitLog offset.
type Request struct {
	Offset int64
	Group  string
	// DelayLevel is the consumer's choice: 0 leaves it to the broker, negative asks for the DLQ.
	DelayLevel int32
	// OriginMsgID is the message id the consumer saw; "" lets the broker use the offset id.
	OriginMsgID string
	// MaxReconsumeTimes is the consumer's limit; negative when it sent none.
	MaxReconsumeTimes int32
	// MayRead, if set, is asked about the topic of the message found at Offset before anything is
	// copied from it (ACL: the offset is the client's, the message may be another topic's).
	MayRead func(topic string) error
	// Owner is the connection the request came on, whose group creations are counted.
	Owner uint64
}

// SendBack stores the failed message's next attempt: in the retry topic, or in the dead-letter
// topic. A group configured without retry queues drops it, as Java does.
func (s *Service) SendBack(r Request) error {
	if err := names.Group(r.Group); err != nil {
		return outcome.Errorf(outcome.GroupNotExist, "subscription group not exist: %v", err)
	}
	gc, ok, refused := s.groups.FindOrCreateFor(r.Owner, r.Group)
	if refused != nil {
		return outcome.Errorf(outcome.SystemError, "subscription group %s cannot be created: %v", r.Group, refused)
	}
	if !ok {
		return outcome.Errorf(outcome.GroupNotExist, "subscription group not exist, %s", r.Group)
	}
	if s.opts.BrokerPermission&body.PermWrite == 0 {
		return outcome.Errorf(outcome.NoPermission, "the broker[%s] sending message is forbidden", s.opts.BrokerName)
	}
	if gc.RetryQueueNums <= 0 {
		return nil
	}
	orig := s.store.LookMessageByOffset(r.Offset)
	if orig == nil {
		return outcome.Errorf(outcome.SystemError, "look message by offset failed, %d", r.Offset)
	}
	if r.MayRead != nil {
		if err := r.MayRead(orig.Topic); err != nil {
			return err
		}
	}
	next := policy.RetryOrDLQ(policy.Failure{ReconsumeTimes: orig.ReconsumeTimes, RequestMax: r.MaxReconsumeTimes,
		GroupMax: gc.RetryMaxTimes, DelayLevel: int(r.DelayLevel), BrokerDelay: true})
	m := s.nextAttempt(orig, r, gc, next)
	res := s.store.PutMessage(&m)
	err := policy.PutFailure(&res)
	if err == nil && next.DLQ && s.opts.Metrics != nil {
		s.opts.Metrics.SentToDLQ(r.Group, consumedFrom(orig))
	}
	return err
}

// nextAttempt is the message to store for the failed orig: a copy with one more reconsume, the
// properties that trace it back to the original, in the retry topic (delayed) or the DLQ.
func (s *Service) nextAttempt(orig *message.MessageExt, r Request, gc body.SubscriptionGroupConfig, next policy.Redelivery) store.Message {
	props := tracedProps(orig, r.OriginMsgID)
	topic, queueID := s.destination(r.Group, gc, next.DLQ)
	if next.DLQ {
		delete(props, message.PropertyDelayTimeLevel)
	} else {
		props[message.PropertyDelayTimeLevel] = strconv.Itoa(next.DelayLevel)
	}
	props[message.PropertyMaxReconsumeTimes] = strconv.Itoa(int(next.MaxTimes))
	m := store.Message{
		Topic:          topic,
		QueueID:        queueID,
		Flag:           orig.Flag,
		SysFlag:        orig.SysFlag,
		BornTimestamp:  orig.BornTimestamp,
		BornHost:       orig.BornHost,
		ReconsumeTimes: orig.ReconsumeTimes + 1,
		Body:           orig.Body,
		Properties:     message.EncodeProperties(props),
	}
	if !next.DLQ {
		schedule.Defer(&m, policy.DelayLevel(next.DelayLevel, s.opts.MaxDelayLevel), s.opts.MaxDelayLevel)
	}
	return m
}

// destination creates the group's retry topic (always, as Java does) and, for a dead letter, its
// DLQ topic, and returns the topic and queue the attempt goes to.
func (s *Service) destination(group string, gc body.SubscriptionGroupConfig, dlq bool) (string, int32) {
	perm := body.PermRead | body.PermWrite
	retry := systopic.Retry(group)
	s.topics.CreateTopicInSendMessageBack(retry, gc.RetryQueueNums, perm, 0)
	if !dlq {
		return retry, s.pick(int32(gc.RetryQueueNums))
	}
	name := systopic.DLQ(group)
	s.topics.CreateTopicInSendMessageBack(name, 1, perm, 0)
	return name, 0
}

// consumedFrom is the topic the failed message was first consumed from: its RETRY_TOPIC when it
// came from a retry topic, else its own.
func consumedFrom(orig *message.MessageExt) string {
	if t := orig.Props[message.PropertyRetryTopic]; t != "" {
		return t
	}
	return orig.Topic
}

// tracedProps are orig's properties with where it came from: its first topic (RETRY_TOPIC), its
// original message id, and WAIT=false.
func tracedProps(orig *message.MessageExt, originMsgID string) map[string]string {
	props := orig.Props
	if props == nil {
		props = map[string]string{}
	}
	if _, ok := props[message.PropertyRetryTopic]; !ok {
		props[message.PropertyRetryTopic] = orig.Topic
	}
	props[message.PropertyWaitStoreMsgOK] = "false"
	if props[message.PropertyOriginMessageID] == "" {
		if originMsgID == "" {
			originMsgID = orig.OffsetMsgID()
		}
		props[message.PropertyOriginMessageID] = originMsgID
	}
	return props
}
