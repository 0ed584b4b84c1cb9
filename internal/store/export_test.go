package store

import (
	"errors"
	"fmt"

	"github.com/rocketgo/rocketgo/internal/store/commitlog"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// CleanOnce runs one pass of the clean service now.
func (s *Store) CleanOnce() CleanResult { return s.clean.runOnce() }

// CheckConsistency verifies that every ConsumeQueue entry points at a whole
// record below the CommitLog's end that belongs to its queue and offset.
func (s *Store) CheckConsistency() error {
	end := s.cl.MaxOffset()
	var errs []error
	for _, q := range s.cqs.all() {
		for off := q.MinOffset(); off < q.MaxOffset(); off++ {
			e, ok := q.Get(off)
			if !ok || e.IsBlank() {
				continue
			}
			if e.End() > end {
				errs = append(errs, fmt.Errorf("%s/%d@%d points at [%d,%d), past the commit log end %d",
					q.Topic(), q.QueueID(), off, e.Offset, e.End(), end))
				continue
			}
			if err := s.checkEntry(q.Topic(), q.QueueID(), off, e.Offset, e.Size); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (s *Store) checkEntry(topic string, qid int32, qoff, phy int64, size int32) error {
	f := s.cl.AcquireAt(phy)
	if f == nil {
		return nil // below the commit log's min offset
	}
	defer f.Release()
	return mmapfile.CatchFault(func() error {
		rec, ok := commitlog.RecordIn(f, phy, size)
		if !ok {
			return fmt.Errorf("%s/%d@%d: no record of %d bytes at %d", topic, qid, qoff, size, phy)
		}
		v, err := message.Parse(rec)
		if err != nil {
			return fmt.Errorf("%s/%d@%d: record at %d: %w", topic, qid, qoff, phy, err)
		}
		if string(v.Topic()) != topic || v.QueueID() != qid || v.QueueOffset() != qoff {
			return fmt.Errorf("%s/%d@%d: record at %d is %s/%d@%d", topic, qid, qoff, phy, v.Topic(), v.QueueID(), v.QueueOffset())
		}
		return nil
	})
}

// WriteCheckpoint replaces the checkpoint file at path on fsys, as the store does.
var WriteCheckpoint = writeCheckpoint
