// Package topicadmin changes and lists the broker's topics for admin tools: create or update a
// topic's config (refusing names that clash with the cluster or a system topic, bad names and
// queue counts out of 1..1024), delete a topic with its queues and consumer offsets (refusing
// bad names, system topics and topics it does not have), list every
// config and the system topics.
package topicadmin

import (
	"slices"
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// maxQueueNums bounds a topic's read and write queue counts.
const maxQueueNums = 1024

// Topics holds the topic configs.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
	Put(tc body.TopicConfig) error
	PutAll(list []body.TopicConfig) error
	Delete(topic string) (bool, error)
	IsSystemTopic(topic string) bool
	Topics() []string
	Wrapper() body.TopicConfigSerializeWrapper
}

// Offsets drops a deleted topic's consumer offsets.
type Offsets interface {
	RemoveTopic(topic string) int
}

// Store drops a deleted topic's queues.
type Store interface {
	DeleteTopic(topic string) error
}

// Options are the broker settings topic admin depends on.
type Options struct {
	ClusterName string
}

// Service administers topics.
type Service struct {
	opts    Options
	topics  Topics
	offsets Offsets
	store   Store
}

// New returns a Service.
func New(opts Options, topics Topics, offsets Offsets, st Store) *Service {
	return &Service{opts: opts, topics: topics, offsets: offsets, store: st}
}

// Update creates or replaces a topic's config.
func (s *Service) Update(tc body.TopicConfig) error {
	if err := s.check(tc); err != nil {
		return err
	}
	return s.topics.Put(tc)
}

// check refuses a config with a bad name or queue counts.
func (s *Service) check(tc body.TopicConfig) error {
	if err := s.checkName(tc.TopicName); err != nil {
		return err
	}
	if tc.ReadQueueNums <= 0 || tc.WriteQueueNums <= 0 || tc.ReadQueueNums > maxQueueNums || tc.WriteQueueNums > maxQueueNums {
		return outcome.Errorf(outcome.SystemError, "the queue numbers of topic[%s] must be in 1..%d: read %d write %d",
			tc.TopicName, maxQueueNums, tc.ReadQueueNums, tc.WriteQueueNums)
	}
	return nil
}

func (s *Service) checkName(name string) error {
	if name == s.opts.ClusterName {
		return outcome.Errorf(outcome.SystemError, "The specified topic[%s] is conflicted with cluster name.", name)
	}
	if err := topic.ValidateTopic(name); err != nil {
		return outcome.Errorf(outcome.SystemError, "%s", err.Error())
	}
	if s.topics.IsSystemTopic(name) {
		return outcome.Errorf(outcome.SystemError, "The topic[%s] is conflict with system topic.", name)
	}
	return nil
}

// Delete removes a topic, its consumer offsets and its queues. It refuses a name that is not a
// valid topic (so that nothing outside the store's own topic directories can be named), a system
// topic (delayed messages, transactions, traces, the template topic: deleting them loses what
// other topics' producers stored) and a topic the broker does not have.
func (s *Service) Delete(name string) error {
	if err := topic.ValidateTopic(name); err != nil {
		return outcome.Errorf(outcome.SystemError, "%s", err.Error())
	}
	if s.undeletable(name) {
		return outcome.Errorf(outcome.SystemError, "The topic[%s] is a system topic: it cannot be deleted.", name)
	}
	existed, err := s.topics.Delete(name)
	if err != nil {
		return err
	}
	if !existed {
		return outcome.Errorf(outcome.TopicNotExist, "The topic[%s] does not exist on this broker.", name)
	}
	s.offsets.RemoveTopic(name)
	return s.store.DeleteTopic(name)
}

// undeletable reports the topics a delete must leave alone: Java's system topics
// (TopicValidator.isSystemTopic, which counts rmq_sys_* with the revive and timer topics), the
// broker's built-in ones (its cluster and broker names, the trace topic), RMQ_SYS_* and
// RocketMQ 5's checkpoint topic.
func (s *Service) undeletable(name string) bool {
	return systopic.IsSystem(name) || s.topics.IsSystemTopic(name) || strings.HasPrefix(name, sysUpperPrefix) ||
		name == systopic.Checkpoint
}

// sysUpperPrefix starts the transaction and trace topics (RMQ_SYS_TRANS_HALF_TOPIC, ...).
const sysUpperPrefix = "RMQ_SYS_"

// All is every topic's config (topics.json's content).
func (s *Service) All() body.TopicConfigSerializeWrapper { return s.topics.Wrapper() }

// SystemTopics lists the system topics, sorted: Java's fixed set (TopicValidator's
// SYSTEM_TOPIC_SET) and this broker's built-in ones (cluster and broker name, trace topic,
// rmq_sys_*).
func (s *Service) SystemTopics() []string {
	names := systopic.Static()
	for _, name := range s.topics.Topics() {
		if s.topics.IsSystemTopic(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
