package configfile

import "sync"

// Syncer makes changes to a config file durable in groups (group commit): a change numbered seq
// is durable once Sync(seq) returns nil. While one write is under way, the changes made behind it
// wait for it and are then written together by one of them, in one snapshot of the table as it
// is by then. So n changes made at once cost one or two writes of the file, not n; a caller that
// makes n changes in a row and syncs once (a heartbeat naming many new groups) costs one.
type Syncer struct {
	file *Persister
	// snapshot encodes the table as it is now, with the number of its latest change.
	snapshot func() (data []byte, seq uint64, err error)

	mu      sync.Mutex
	cond    sync.Cond
	writing bool   // a write is under way; REQUIRES mu
	written uint64 // every change up to this number is durable; REQUIRES mu
	writes  uint64 // writes done, for tests and logs; REQUIRES mu
}

// NewSyncer returns a Syncer writing file with snapshots from snapshot, which must take the
// owner's lock itself (Sync is called without it).
func NewSyncer(file *Persister, snapshot func() ([]byte, uint64, error)) *Syncer {
	s := &Syncer{file: file, snapshot: snapshot}
	s.cond.L = &s.mu
	return s
}

// Sync returns once the change numbered seq (and every earlier one) is in the file, writing it
// unless a write that started after the change covers it. A failed write is returned to the
// caller that made it; the others waiting for it try again.
func (s *Syncer) Sync(seq uint64) error {
	s.mu.Lock()
	for s.written < seq && s.writing {
		s.cond.Wait()
	}
	if s.written >= seq {
		s.mu.Unlock()
		return nil
	}
	s.writing = true
	s.mu.Unlock()

	data, snap, err := s.snapshot()
	if err == nil {
		err = s.file.Write(data, snap)
	}

	s.mu.Lock()
	s.writing = false
	if err == nil {
		s.written = max(s.written, snap)
		s.writes++
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	return err
}

// Writes is the number of writes done.
func (s *Syncer) Writes() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}
