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

// appendRecord stores a record in revive queue q.
func (s *Service) appendRecord(q int32, r *record) (store.PutResult, bool) {
	b := s.buf()
	defer s.putBuf(b)
	body, ok := appendRecord(*b, r)
	*b = body
	if !ok {
		s.lg.Error("revive record does not fit", zap.String("topic", r.key.topic), zap.Int64("start", r.key.start))
		return store.PutResult{}, false
	}
	m := store.Message{
		Topic:         s.reviveTopic,
		QueueID:       q,
		BornTimestamp: s.nowMs(),
		BornHost:      s.opts.StoreHost,
		Body:          body,
		Properties:    recordTags[r.kind],
	}
	res := s.Deps.Store.PutMessage(&m)
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
	var buf [maxCheckpointMessages]int64
	todo, reviveQid := s.cks.unsettledOf(k, offsets, buf[:0])
	if len(todo) == 0 {
		return 0, true
	}
	rec := record{kind: kind, key: k, offsets: todo}
	if _, ok := s.appendRecord(reviveQid, &rec); !ok {
		return 0, false
	}
	return s.cks.settle(k, todo), true
}
