package consumequeue

import (
	"fmt"
	"path/filepath"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// FlushState is what a flush of the queue would have to do.
type FlushState struct {
	End, Flushed int64 // byte positions: written, durable
	// Unsynced counts files created and not yet durable (with their
	// directories): a SyncFS or a Flush makes them so.
	Unsynced int64
	// Closed: the queue was closed to make room with unflushed entries. A
	// writeback error of a file nobody holds open is only reported by the
	// file system's SyncFS.
	Closed bool
}

// Dirty reports whether anything is left to sync.
func (s FlushState) Dirty() bool { return s.Flushed < s.End || s.Unsynced > 0 }

// NeedsSyncFS reports whether only a SyncFS can make the queue durable: it
// was closed to make room with unflushed entries, and a writeback error of a
// file nobody holds open is reported only to the file system's error counter.
func (s FlushState) NeedsSyncFS() bool { return s.Closed && s.Flushed < s.End }

// WorthFlushing reports whether a flush with leastPages (0: any) would sync:
// that many pages are dirty, a dirty file is full, or a new file is not
// durable yet (whatever leastPages says: the checkpoint waits for it).
func (s FlushState) WorthFlushing(leastPages int, fileSize int64) bool {
	if !s.Dirty() {
		return false
	}
	return leastPages <= 0 || s.Unsynced > 0 || s.End-s.Flushed >= int64(leastPages)*mmapfile.PageSize ||
		s.End/fileSize > s.Flushed/fileSize
}

// FlushState reports what a flush would have to do, without mapping anything.
func (cq *ConsumeQueue) FlushState() FlushState {
	cq.res.RLock()
	defer cq.res.RUnlock()
	if q := cq.q; q != nil {
		return FlushState{End: q.MaxOffset(), Flushed: q.FlushedWhere(), Unsynced: q.Unsynced()}
	}
	return FlushState{End: cq.st.End, Flushed: cq.st.Flushed, Unsynced: cq.st.Unsynced, Closed: true}
}

// FileSize is the length of every file.
func (cq *ConsumeQueue) FileSize() int64 { return cq.fileSize }

// Flush syncs written entries when at least leastPages pages are dirty (0: all),
// through the files' mappings (msync), and files created since the last sync
// with their directories (fsync). Many queues are cheaper to make durable
// together with one SyncFS and MarkSynced.
func (cq *ConsumeQueue) Flush(leastPages int) error {
	if !cq.FlushState().WorthFlushing(leastPages, cq.fileSize) {
		return nil
	}
	for {
		cq.res.RLock()
		if q := cq.q; q != nil {
			_, err := q.Flush(leastPages)
			if err == nil {
				topicDir := filepath.Dir(cq.dir)
				err = q.SyncCreated(topicDir, filepath.Dir(topicDir))
			}
			cq.res.RUnlock()
			if err != nil {
				return fmt.Errorf("consumequeue: flush %s/%d: %w", cq.topic, cq.queueID, err)
			}
			return nil
		}
		cq.res.RUnlock()
		cq.mu.Lock()
		_, err := cq.resident()
		cq.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// MarkSynced records that a SyncFS made everything durable that the state st
// (read before the sync) describes: the entries below st.End and the files
// counted in st.Unsynced.
func (cq *ConsumeQueue) MarkSynced(st FlushState) {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	cq.res.Lock()
	defer cq.res.Unlock()
	if q := cq.q; q != nil {
		q.MarkFlushed(st.End)
		q.MarkSynced(st.Unsynced)
		return
	}
	cq.st.Flushed = max(cq.st.Flushed, st.End)
	cq.st.Unsynced -= min(st.Unsynced, cq.st.Unsynced)
	if cq.st.Flushed >= cq.st.End {
		cq.dirtyPhy = noDirty
	}
}

// DurableBelow is the CommitLog offset below which every record this queue
// indexes has a durable entry, capped at limit: limit when every written entry
// is flushed, else the offset of the first non-blank entry not yet flushed.
// It maps nothing: a closed queue remembers that offset.
func (cq *ConsumeQueue) DurableBelow(limit int64) int64 {
	cq.res.RLock()
	defer cq.res.RUnlock()
	phy := cq.dirtyPhy
	if q := cq.q; q != nil {
		phy = cq.firstUnflushedLocked(q)
	}
	if phy == noDirty {
		return limit
	}
	return min(limit, phy)
}

// firstUnflushedLocked is the CommitLog offset of the first non-blank entry
// of q that is not durable, noDirty if there is none; 0 when it cannot be
// read. Entries not yet flushed are not durable, nor any entry of a file
// whose creation was not synced (the newest Unsynced files).
// REQUIRES cq.res (read) or cq.mu.
func (cq *ConsumeQueue) firstUnflushedLocked(q *mmapfile.Queue) int64 {
	from := q.FlushedWhere()
	if n := q.Unsynced(); n > 0 {
		files := q.Files()
		if i := len(files) - int(min(n, int64(len(files)))); i < len(files) {
			from = min(from, files[i].Start())
		}
	}
	for pos := max(from, q.MinOffset()); pos < q.MaxOffset(); pos += EntrySize {
		f := q.AcquireAt(pos)
		if f == nil {
			return 0 // cannot tell: assume nothing is durable
		}
		var e Entry
		err := mmapfile.CatchFault(func() error { e = readEntry(f.Bytes(pos-f.Start(), EntrySize)); return nil })
		f.Release()
		if err != nil {
			return 0
		}
		if !e.IsBlank() {
			return e.Offset
		}
	}
	return noDirty
}
