package mmapfile

import (
	"fmt"
	"path/filepath"
)

// QueueState is what a Queue needs to be opened again as it was, without
// listing its directory or recovering it: the owner of many queues keeps only
// some of them open (their files mapped) and closes the rest, keeping this.
type QueueState struct {
	Starts    []int64 // segment starts, oldest first
	End       int64   // MaxOffset
	Flushed   int64   // FlushedWhere
	Allocated int64   // the newest segment's Allocated
	Unsynced  int64   // sparse segments not yet made durable
}

// State describes the queue for Reopen. The caller keeps writers out.
func (q *Queue) State() QueueState {
	q.mu.RLock()
	defer q.mu.RUnlock()
	st := QueueState{Flushed: q.flushedWhere.Load(), Unsynced: q.unsynced.Load()}
	for _, f := range q.files {
		st.Starts = append(st.Starts, f.Start())
	}
	if last := q.lastLocked(); last != nil {
		st.End, st.Allocated = last.Start()+last.Wrote(), last.Allocated()
	}
	return st
}

// Reopen maps the segments of a queue closed in state st: no directory
// listing, no recovery, the positions as they were.
func Reopen(dir string, fileSize int64, st QueueState, opts QueueOptions) (*Queue, error) {
	q := newQueue(dir, fileSize, opts)
	for _, s := range st.Starts {
		f, err := Open(q.fs, filepath.Join(dir, FileName(s)), s, fileSize)
		if err != nil {
			q.Close()
			return nil, fmt.Errorf("mmapfile: reopen %s: %w", dir, err)
		}
		f.SetAllocated(0)
		q.files = append(q.files, f)
	}
	q.restore(st)
	return q, nil
}

// restore sets the positions of the segments from st.
func (q *Queue) restore(st QueueState) {
	for _, f := range q.files {
		wrote := min(max(st.End-f.Start(), 0), f.Size())
		f.SetPositions(wrote, min(max(st.Flushed-f.Start(), 0), wrote))
	}
	if last := q.lastLocked(); last != nil {
		last.SetAllocated(st.Allocated)
	}
	q.flushedWhere.Store(st.Flushed)
	q.unsynced.Store(st.Unsynced)
}

// MarkFlushed records that every byte written below off is durable, as a
// SyncFS made it, without syncing anything. Pass the MaxOffset read before
// the sync.
func (q *Queue) MarkFlushed(off int64) {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	if off <= q.flushedWhere.Load() {
		return
	}
	for _, f := range q.Files() {
		if f.Start() >= off {
			break
		}
		f.markFlushed(min(off-f.Start(), f.Wrote()))
	}
	q.flushedWhere.Store(off)
}

// markFlushed raises the flushed position to pos.
func (f *MappedFile) markFlushed(pos int64) {
	f.flushMu.Lock()
	defer f.flushMu.Unlock()
	if pos > f.flushed.Load() {
		f.flushed.Store(pos)
	}
}
