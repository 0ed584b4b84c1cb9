package send

import (
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// topicSysFlagUnit is TopicSysFlag's UNIT bit, set on topics created by unit-mode producers.
const topicSysFlagUnit = 1

// check validates the target topic and queue (Java msgCheck), creating the topic from its
// default topic when it is new and auto-creation allows it.
func (s *Service) check(r *Request) (target, error) {
	if s.opts.BrokerPermission&body.PermWrite == 0 {
		return target{}, outcome.Errorf(outcome.NoPermission, "the broker[%s] sending message is forbidden", s.opts.BrokerName)
	}
	if err := topic.ValidateTopic(r.Topic); err != nil {
		return target{}, outcome.Errorf(outcome.MessageIllegal, "%s topic: %q", err.Error(), r.Topic)
	}
	if systopic.IsNotAllowedSend(r.Topic) {
		return target{}, outcome.Errorf(outcome.NoPermission, "Sending message to topic[%s] is forbidden.", r.Topic)
	}
	cfg, err := s.topicConfig(r)
	if err != nil {
		return target{}, err
	}
	if cfg.Perm&body.PermWrite == 0 {
		return target{}, outcome.Errorf(outcome.NoPermission, "the topic[%s] sending message is forbidden", r.Topic)
	}
	qid, ok := policy.SendQueue(r.QueueID, cfg.ReadQueueNums, cfg.WriteQueueNums, s.pick)
	if !ok {
		return target{}, outcome.Errorf(outcome.SystemError, "request queueId[%d] is illegal, topic %s has %d queues, producer: %s",
			r.QueueID, r.Topic, max(cfg.ReadQueueNums, cfg.WriteQueueNums), r.ProducerGroup)
	}
	return target{topic: r.Topic, queueID: qid, cfg: cfg}, nil
}

// topicConfig is the send's topic, created when it is new: a retry topic with one queue, any
// other from its default topic if auto-creation allows.
func (s *Service) topicConfig(r *Request) (body.TopicConfig, error) {
	if cfg, ok := s.Topics.Get(r.Topic); ok {
		return cfg, nil
	}
	sysFlag := 0
	if r.UnitMode {
		sysFlag = topicSysFlagUnit
	}
	if group, ok := systopic.RetryGroup(r.Topic); ok {
		// A new retry topic comes with its group: the group first, so that a group the
		// connection may not create leaves no topic behind.
		if _, err := s.group(r.Owner, group); err != nil {
			return body.TopicConfig{}, err
		}
		return s.Topics.CreateTopicInSendMessageBack(r.Topic, 1, body.PermRead|body.PermWrite, sysFlag), nil
	}
	cfg, ok, refused := s.Topics.CreateTopicInSendMessageFor(r.Owner, r.Topic, r.DefaultTopic, int(r.DefaultTopicQueueNums), sysFlag)
	if refused != nil {
		return cfg, outcome.Errorf(outcome.SystemError, "topic[%s] cannot be created: %v", r.Topic, refused)
	}
	if !ok {
		return cfg, outcome.Errorf(outcome.TopicNotExist, "topic[%s] not exist, apply first please!", r.Topic)
	}
	return cfg, nil
}

// retryOrDLQ moves a message sent to a %RETRY% topic that has been reconsumed too often to the
// group's dead-letter topic (Java handleRetryAndDLQ); dlq reports that it did.
func (s *Service) retryOrDLQ(r *Request, t target) (_ target, dlq bool, _ error) {
	group, ok := systopic.RetryGroup(t.topic)
	if !ok {
		return t, false, nil
	}
	gc, err := s.group(r.Owner, group)
	if err != nil {
		return t, false, err
	}
	next := policy.RetryOrDLQ(policy.Failure{ReconsumeTimes: r.ReconsumeTimes, RequestMax: r.MaxReconsumeTimes,
		GroupMax: gc.RetryMaxTimes})
	if !next.DLQ {
		return t, false, nil
	}
	name := systopic.DLQ(group)
	cfg := s.Topics.CreateTopicInSendMessageBack(name, 1, body.PermRead|body.PermWrite, 0)
	return target{topic: name, queueID: 0, cfg: cfg}, true, nil
}

// group finds or creates the consumer group of a retry topic for the connection owner.
func (s *Service) group(owner uint64, group string) (body.SubscriptionGroupConfig, error) {
	gc, ok, refused := s.Groups.FindOrCreateFor(owner, group)
	if refused != nil {
		return gc, outcome.Errorf(outcome.SystemError, "subscription group %s cannot be created: %v", group, refused)
	}
	if !ok {
		return gc, outcome.Errorf(outcome.GroupNotExist, "subscription group not exist, %s", group)
	}
	return gc, nil
}

// MessageType classifies a send for the metrics, as RocketMQ 5 does.
func MessageType(props string, cfg body.TopicConfig) metrics.MessageType {
	if v, ok := message.LookupPropertyString(props, message.PropertyTransactionPrepared); ok && strings.EqualFold(v, "true") {
		return metrics.Transaction
	}
	if v, ok := message.LookupPropertyString(props, message.PropertyDelayTimeLevel); ok && v != "0" {
		return metrics.Delay
	}
	if _, ok := message.LookupPropertyString(props, message.PropertyTimerDeliverMS); ok {
		return metrics.Delay
	}
	if cfg.Order {
		return metrics.FIFO
	}
	return metrics.Normal
}
