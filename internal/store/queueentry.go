package store

import "github.com/rocketgo/rocketgo/internal/store/consumequeue"

// QueueEntry is one ConsumeQueue entry: the record's CommitLog offset and size, and its tags code.
type QueueEntry = consumequeue.Entry

// QueueEntry is the ConsumeQueue entry at a queue offset, false when the queue has none there (not
// written yet, or cleaned up). Admin tools read entries with QUERY_CONSUME_QUEUE.
func (s *Store) QueueEntry(topic string, queueID int32, offset int64) (QueueEntry, bool) {
	q := s.cqs.get(topic, queueID)
	if q == nil {
		return QueueEntry{}, false
	}
	return q.Get(offset)
}
