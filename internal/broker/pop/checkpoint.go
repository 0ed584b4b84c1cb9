package pop

import (
	"slices"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
)

// writeCheckpoint records a pop of one queue: the checkpoint record goes to the revive log, the
// group's pop offset moves past the messages, and only then does the checkpoint enter the table
// (so the revive service never settles a checkpoint whose offset is not committed). It reports
// false, and changes nothing, when the record could not be stored or its key is taken.
func (s *Service) writeCheckpoint(p *popping, topic string, q int32, offset int64, got *store.GetResult) bool {
	ck := &checkpoint{
		key:           key{topic: topic, group: p.r.Group, queueID: q, start: offset, popTime: p.popTime},
		invisibleTime: p.r.InvisibleTime,
		reviveQid:     p.reviveQ,
		offsets:       slices.Clone(got.QueueOffsets),
	}
	if s.cks.has(ck.key) {
		return false
	}
	return s.storeCheckpoint(ck, got.NextBeginOffset, func() {
		s.Deps.Offsets.Commit(p.r.Group, topic, q, got.NextBeginOffset)
	})
}

// storeCheckpoint appends ck's record, runs committed once it is stored, and adds ck to the
// table. next is the queue's pop offset after the pop the checkpoint records.
func (s *Service) storeCheckpoint(ck *checkpoint, next int64, committed func()) bool {
	rec := record{kind: kindCheckpoint, key: ck.key, invisibleTime: ck.invisibleTime, nextOffset: next, offsets: ck.offsets}
	floor := s.Deps.Store.MaxOffsetInQueue(s.reviveTopic, ck.reviveQid)
	s.cks.begin(ck.reviveQid, floor)
	res, ok := s.appendRecord(ck.reviveQid, &rec)
	if !ok {
		s.cks.end(ck.reviveQid, floor, nil)
		return false
	}
	ck.reviveOffset = res.QueueOffset
	committed()
	return s.cks.end(ck.reviveQid, floor, ck)
}

// recordPut is the pooled scratch of one record put: its body buffer and the message.
type recordPut struct {
	body []byte
	m    store.Message
}

// appendRecord stores a record in revive queue q.
func (s *Service) appendRecord(q int32, r *record) (store.PutResult, bool) {
	rp := s.puts.Get().(*recordPut)
	defer s.puts.Put(rp)
	body, ok := appendRecord(rp.body[:0], r)
	rp.body = body
	if !ok {
		s.lg.Error("revive record does not fit (offsets more than 2^31 past the checkpoint's start)", zap.Int("offsets", len(r.offsets)))
		return store.PutResult{}, false
	}
	rp.m = store.Message{
		Topic:         s.reviveTopic,
		QueueID:       q,
		BornTimestamp: s.nowMs(),
		BornHost:      s.opts.StoreHost,
		Body:          body,
		Properties:    recordTags[r.kind],
	}
	res := s.Deps.Store.PutMessage(&rp.m)
	rp.m = store.Message{}
	if !res.Status.Stored() {
		s.lg.Warn("revive record not stored", zap.Stringer("status", res.Status), zap.String("remark", res.Remark))
		return res, false
	}
	return res, true
}

// settle appends an ack (or revived) record for the offsets of checkpoint k that are still
// unsettled, to the checkpoint's own revive queue, and marks them settled. It reports how many
// it settled; 0 without error when there is nothing to settle (an unknown checkpoint, a
// repeated ack).
func (s *Service) settle(kind byte, k key, offsets []int64) (int, bool) {
	var todo pending
	s.cks.unsettledOf(k, offsets, &todo)
	if todo.n == 0 {
		return 0, true
	}
	rec := record{kind: kind, key: k, offsets: todo.list()}
	if _, ok := s.appendRecord(todo.reviveQid, &rec); !ok {
		return 0, false
	}
	return s.cks.settle(k, todo.list()), true
}
