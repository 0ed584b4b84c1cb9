package pop

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// recovery collects what reading the revive log finds.
type recovery struct {
	// floors are the pop offsets the checkpoints read prove: a group's offset of a queue is at
	// least the next offset of its latest checkpoint.
	floors  map[lockKey]int64
	records int
	bad     int
}

// recover rebuilds the outstanding checkpoints from the revive log: each revive queue is read
// from its committed revive offset, below which every record is settled, to its end. Then the
// pop offsets are raised to what the checkpoints read prove, in case the consumer offsets on disk
// are older than the log (a crash between their flushes).
func (s *Service) recover() error {
	rc := recovery{floors: map[lockKey]int64{}}
	for q := range int32(s.opts.ReviveQueueNum) {
		if err := s.recoverQueue(q, &rc); err != nil {
			return err
		}
	}
	raised := 0
	for k, floor := range rc.floors {
		if cur, ok := s.Deps.Offsets.Query(k.group, k.topic, k.queueID); !ok || cur < floor {
			s.Deps.Offsets.Commit(k.group, k.topic, k.queueID, floor)
			raised++
		}
	}
	s.lg.Info("pop state recovered from the revive log", zap.Int("records", rc.records),
		zap.Int("outstandingCheckpoints", s.cks.size()), zap.Int("popOffsetsRaised", raised), zap.Int("malformed", rc.bad))
	return nil
}

// recoverQueue reads one revive queue from its committed offset.
func (s *Service) recoverQueue(q int32, rc *recovery) error {
	st := s.Deps.Store
	off, ok := s.Deps.Offsets.Query(systopic.ReviveGroup, s.reviveTopic, q)
	if lo := st.MinOffsetInQueue(s.reviveTopic, q); !ok || off < lo {
		off = lo
	}
	for end := st.MaxOffsetInQueue(s.reviveTopic, q); off < end; {
		got := st.GetMessage(systopic.ReviveGroup, s.reviveTopic, q, off, maxCheckpointMessages, nil)
		if got == nil {
			return fmt.Errorf("pop: recover revive queue %d: the store is closed", q)
		}
		next := got.NextBeginOffset
		if got.Status == store.Found {
			for i, rec := range got.Records {
				s.replay(rec, q, got.QueueOffsets[i], rc)
			}
		}
		got.Release()
		if next <= off {
			break
		}
		off = next
	}
	return nil
}

// replay applies one revive record to the table.
func (s *Service) replay(rec []byte, q int32, queueOffset int64, rc *recovery) {
	rc.records++
	v, err := message.Parse(rec)
	var r record
	if err == nil {
		r, err = parseRecord(v.Body())
	}
	if err != nil {
		rc.bad++
		return
	}
	if r.kind != kindCheckpoint {
		s.cks.settle(r.key, r.offsets)
		return
	}
	if r.nextOffset >= 0 {
		k := lockKey{r.key.topic, r.key.group, r.key.queueID}
		rc.floors[k] = max(rc.floors[k], r.nextOffset)
	}
	ck := &checkpoint{key: r.key, invisibleTime: r.invisibleTime, reviveQid: q, reviveOffset: queueOffset, offsets: r.offsets}
	s.cks.begin(q, queueOffset)
	s.cks.end(q, queueOffset, ck)
}
