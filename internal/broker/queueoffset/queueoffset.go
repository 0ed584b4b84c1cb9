// Package queueoffset answers offset questions: a consumer group's committed offset of a queue
// (and its commit), a queue's min and max offset, the store time of its first message, the offset
// of a point in time, and every group's offsets for slaves and admin tools.
package queueoffset

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Offsets holds the consumer groups' committed offsets.
type Offsets interface {
	Query(group, topic string, queueID int32) (int64, bool)
	Commit(group, topic string, queueID int32, offset int64)
	Wrapper() body.ConsumerOffsetSerializeWrapper
}

// Store answers about queues.
type Store interface {
	MinOffsetInQueue(topic string, queueID int32) int64
	MaxOffsetInQueue(topic string, queueID int32) int64
	EarliestMessageTime(topic string, queueID int32) int64
	OffsetInQueueByTime(topic string, queueID int32, ts int64) int64
}

// Known finds (or auto-creates, for the connection owner) the committing group, and says how many
// queues a topic has: a commit must name a group the broker has or may create, and a queue of a
// topic it has, so that what a client commits cannot grow the offset table (and
// consumerOffset.json) with names of its own. (RocketMQ 5 refuses unknown groups; 4.9's admin
// tool commits a group's offsets on every broker of a topic, where auto-creation makes it.)
type Known interface {
	FindOrCreateGroup(owner uint64, group string) (ok bool, refused error)
	TopicQueues(topic string) (queues int, ok bool)
}

// Service answers offset questions.
type Service struct {
	offsets Offsets
	store   Store
	known   Known
}

// New returns a Service; known nil leaves commits unchecked.
func New(offsets Offsets, st Store, known Known) *Service {
	return &Service{offsets: offsets, store: st, known: known}
}

// Committed is the group's committed offset of a queue. A group with none starts at 0 while the
// queue still begins at 0, as in Java; otherwise QueryNotFound lets the client apply its
// consumeFromWhere.
func (s *Service) Committed(group, topic string, queueID int32) (int64, error) {
	if off, ok := s.offsets.Query(group, topic, queueID); ok && off >= 0 {
		return off, nil
	}
	if s.store.MinOffsetInQueue(topic, queueID) <= 0 {
		return 0, nil
	}
	return 0, outcome.Errorf(outcome.QueryNotFound, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first")
}

// Commit records the group's offset of a queue, for a request of the connection owner. The group
// must exist or be created for owner, the topic exist and the queue be one of the topic's
// (GroupNotExist, SystemError for a group owner may not create, TopicNotExist, SystemError).
func (s *Service) Commit(owner uint64, group, topic string, queueID int32, offset int64) error {
	if s.known != nil {
		if err := names.Group(group); err != nil {
			return outcome.Errorf(outcome.GroupNotExist, "Group not exist: %v", err)
		}
		ok, refused := s.known.FindOrCreateGroup(owner, group)
		if refused != nil {
			return outcome.Errorf(outcome.SystemError, "Group %s cannot be created: %v", group, refused)
		}
		if !ok {
			return outcome.Errorf(outcome.GroupNotExist, "Group %s not exist!", group)
		}
		queues, ok := s.known.TopicQueues(topic)
		if !ok {
			return outcome.Errorf(outcome.TopicNotExist, "Topic %s not exist!", names.Quote(topic))
		}
		if queueID < 0 || int(queueID) >= queues {
			return outcome.Errorf(outcome.SystemError, "queueId %d is not a queue of topic %s, which has %d", queueID, topic, queues)
		}
	}
	s.offsets.Commit(group, topic, queueID, offset)
	return nil
}

// MaxOffset is the queue's max offset (its entry count).
func (s *Service) MaxOffset(topic string, queueID int32) int64 {
	return s.store.MaxOffsetInQueue(topic, queueID)
}

// MinOffset is the queue's first offset still stored.
func (s *Service) MinOffset(topic string, queueID int32) int64 {
	return s.store.MinOffsetInQueue(topic, queueID)
}

// EarliestTime is the store time of the queue's first message.
func (s *Service) EarliestTime(topic string, queueID int32) int64 {
	return s.store.EarliestMessageTime(topic, queueID)
}

// OffsetByTime is the queue's offset of the time ts (Java's nearest-neighbour rule).
func (s *Service) OffsetByTime(topic string, queueID int32, ts int64) int64 {
	return s.store.OffsetInQueueByTime(topic, queueID, ts)
}

// All is every group's committed offsets (consumerOffset.json's content).
func (s *Service) All() body.ConsumerOffsetSerializeWrapper { return s.offsets.Wrapper() }
