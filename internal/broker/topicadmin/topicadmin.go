// Package topicadmin changes and lists the broker's topics for admin tools: create or update a
// topic's config (refusing names that clash with the cluster or a system topic, bad names and
// queue counts out of 1..1024), delete a topic with its queues and consumer offsets, list every
// config and the system topics.
package topicadmin

import (
	"slices"

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

// Delete removes a topic, its consumer offsets and its queues.
func (s *Service) Delete(name string) error {
	if _, err := s.topics.Delete(name); err != nil {
		return err
	}
	s.offsets.RemoveTopic(name)
	return s.store.DeleteTopic(name)
}

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
