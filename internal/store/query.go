package store

import (
	"bytes"
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// MaxOffsetInQueue is the queue offset the next message of a topic queue gets
// (0 when the queue does not exist).
func (s *Store) MaxOffsetInQueue(topic string, queueID int32) int64 {
	if q := s.cqs.get(topic, queueID); q != nil {
		return q.MaxOffset()
	}
	return 0
}

// MinOffsetInQueue is the first queue offset still stored (0 when the queue
// does not exist).
func (s *Store) MinOffsetInQueue(topic string, queueID int32) int64 {
	if q := s.cqs.get(topic, queueID); q != nil {
		return q.MinOffset()
	}
	return 0
}

// OffsetInQueueByTime is the queue offset for a timestamp (ms), RocketMQ
// 4.9's rule: an exact match, else the nearest neighbour (see
// consumequeue.ConsumeQueue.OffsetByTime); 0 when the queue is empty or missing.
func (s *Store) OffsetInQueueByTime(topic string, queueID int32, ts int64) int64 {
	q := s.cqs.get(topic, queueID)
	if q == nil {
		return 0
	}
	return q.OffsetByTime(ts, s.cl.MinOffset(), s.cl.StoreTimestamp)
}

// EarliestMessageTime is the store time of a queue's first live message, -1
// when there is none.
func (s *Store) EarliestMessageTime(topic string, queueID int32) int64 {
	q := s.cqs.get(topic, queueID)
	if q == nil {
		return -1
	}
	return q.StoreTimeAt(q.MinOffset(), s.cl.StoreTimestamp)
}

// MessageStoreTime is the store time of the message at a queue offset, -1 when
// there is none.
func (s *Store) MessageStoreTime(topic string, queueID int32, offset int64) int64 {
	q := s.cqs.get(topic, queueID)
	if q == nil {
		return -1
	}
	return q.StoreTimeAt(offset, s.cl.StoreTimestamp)
}

// EarliestMessageTimeInStore is the store time of the oldest record in the
// CommitLog, -1 when it is empty.
func (s *Store) EarliestMessageTimeInStore() int64 {
	off := s.cl.MinOffset()
	if off >= s.cl.MaxOffset() {
		return -1
	}
	m, err := s.cl.Lookup(off)
	if err != nil {
		return -1
	}
	return m.StoreTimestamp
}

// LookMessageByOffset decodes a copy of the record at a CommitLog offset (for
// send-back, transactions and view-by-id); nil when there is none.
func (s *Store) LookMessageByOffset(phyOffset int64) *message.MessageExt {
	if s.closed.Load() {
		return nil
	}
	m, err := s.cl.Lookup(phyOffset)
	if err != nil {
		return nil
	}
	return m
}

// QueryResult is the answer to QueryMessage: raw records (slices of the mapped
// CommitLog, valid until Release) and the index's last update, which the
// QUERY_MESSAGE response carries.
type QueryResult struct {
	Records                  [][]byte
	IndexLastUpdateTimestamp int64
	IndexLastUpdatePhyOffset int64
	BufferTotalSize          int

	files []*mmapfile.MappedFile
}

// Release drops the references on the mapped segments.
func (r *QueryResult) Release() {
	for _, f := range r.files {
		f.Release()
	}
	r.files, r.Records = nil, nil
}

// QueryMessage finds the messages of a topic indexed under key (a KEYS element
// or a UNIQ_KEY) stored in [begin, end] ms, newest first, at most maxNum (and
// MaxMsgsNumBatch). Records whose topic or keys do not match (hash collisions)
// are left out. Without an index the result is empty.
func (s *Store) QueryMessage(topic, key string, maxNum int, begin, end int64) *QueryResult {
	r := &QueryResult{}
	if s.idx == nil || s.closed.Load() {
		return r
	}
	ir := s.idx.Query(topic, key, min(maxNum, s.opts.MaxMsgsNumBatch), begin, end)
	r.IndexLastUpdateTimestamp, r.IndexLastUpdatePhyOffset = ir.IndexLastUpdateTimestamp, ir.IndexLastUpdatePhyOffset
	for _, off := range ir.PhyOffsets {
		f := s.cl.AcquireAt(off)
		if f == nil {
			continue
		}
		var rec []byte
		err := mmapfile.CatchFault(func() error {
			rec = matchingRecord(f, off, topic, key)
			return nil
		})
		if err != nil || rec == nil {
			f.Release()
			continue
		}
		r.files = append(r.files, f)
		r.Records = append(r.Records, rec)
		r.BufferTotalSize += len(rec)
	}
	return r
}

// matchingRecord returns the record at off in f if it belongs to topic and
// carries key as its UNIQ_KEY or one of its KEYS.
func matchingRecord(f *mmapfile.MappedFile, off int64, topic, key string) []byte {
	head, ok := commitlog.RecordIn(f, off, message.BlankMinLen)
	if !ok {
		return nil
	}
	size, _, _ := message.Peek(head)
	rec, ok := commitlog.RecordIn(f, off, size)
	if !ok {
		return nil
	}
	v, err := message.Parse(rec)
	if err != nil || string(v.Topic()) != topic {
		return nil
	}
	if u, ok := v.Property(message.PropertyUniqClientMessageID); ok && string(u) == key {
		return rec
	}
	keys, _ := v.Property(message.PropertyKeys)
	for _, k := range bytes.Split(keys, []byte(message.KeySeparator)) {
		if string(k) == key {
			return rec
		}
	}
	return nil
}

// DeleteTopic removes a topic's ConsumeQueues and forgets its queue offsets.
// Its records stay in the CommitLog until they expire; a tombstone (see
// tombstones) keeps them from being dispatched again, after a crash too. A
// name that is not a valid topic is refused: the topic's directory is
// consumequeue/<topic>, so a name such as ".." or "" must never reach it.
func (s *Store) DeleteTopic(topic string) error {
	if err := names.Topic(topic); err != nil {
		return fmt.Errorf("store: delete topic %s: %w", names.Quote(topic), err)
	}
	if err := s.deleted.add(topic, s.cl.MaxOffset()); err != nil {
		return fmt.Errorf("store: delete topic %s: %w", topic, err)
	}
	n, err := s.cqs.removeTopic(topic)
	s.cl.RemoveTopic(topic)
	s.lg.Info("deleted topic", zap.String("topic", topic), zap.Int("queues", n), zap.Error(err))
	if err != nil {
		return fmt.Errorf("store: delete topic %s: %w", topic, err)
	}
	return nil
}

// QueueBounds returns a queue's min offset and max offset (the offset the next
// message gets); ok is false when the store has no such queue. Its signature
// is the broker's offset.QueueBounds: consumer offsets are clamped into
// [min, max] after Open and after the clean service deleted files.
func (s *Store) QueueBounds(topic string, queueID int32) (min, max int64, ok bool) {
	q := s.cqs.get(topic, queueID)
	if q == nil {
		return 0, 0, false
	}
	return q.MinOffset(), q.MaxOffset(), true
}
