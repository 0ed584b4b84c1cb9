package consumequeue

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// Recover finds the end of the valid entries in the last three files (an entry
// is valid when its offset is ≥ 0 and its size > 0) and truncates the queue
// there. After a clean shutdown (clean) a queue that ends in a zero entry is
// known to hold only zeros past it, and is not zeroed and synced again.
func (cq *ConsumeQueue) Recover(clean bool) error {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	files := cq.q.Files()
	if len(files) == 0 {
		return nil
	}
	end := files[max(len(files)-3, 0)].Start()
	zeroAtEnd := true
	err := mmapfile.CatchFault(func() error {
		for _, f := range files[max(len(files)-3, 0):] {
			pos := int64(0)
			for ; pos+EntrySize <= f.Size(); pos += EntrySize {
				e := readEntry(f.Bytes(pos, EntrySize))
				if e.Offset < 0 || e.Size <= 0 {
					zeroAtEnd = e == Entry{}
					break
				}
				if !e.IsBlank() {
					cq.maxPhyEnd.Store(e.End())
				}
			}
			end = f.Start() + pos
			if pos < f.Size() {
				break
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("consumequeue: recover %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cut := cq.q.Truncate
	if clean && zeroAtEnd {
		cut = cq.q.SetEnd
	}
	if err := cut(end); err != nil {
		return fmt.Errorf("consumequeue: recover %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cq.minLogic.Store(min(cq.minLogic.Load(), end))
	return nil
}

// TruncateAfter removes every entry whose record ends past phyEnd (the
// CommitLog's recovered end), and reports how many entries went.
func (cq *ConsumeQueue) TruncateAfter(phyEnd int64) (int64, error) {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	before := cq.q.MaxOffset()
	cut := int64(-1)
	files := cq.q.Files()
	err := mmapfile.CatchFault(func() error {
		for i := len(files) - 1; i >= 0; i-- {
			f := files[i]
			found := int64(-1)
			for pos := int64(0); pos+EntrySize <= f.Wrote(); pos += EntrySize {
				e := readEntry(f.Bytes(pos, EntrySize))
				if !e.IsBlank() && e.End() > phyEnd {
					found = pos
					break
				}
			}
			if found < 0 {
				return nil
			}
			cut = f.Start() + found
			if found > 0 {
				return nil
			}
		}
		return nil
	})
	if err != nil || cut < 0 {
		return 0, err
	}
	if err := cq.q.Truncate(cut); err != nil {
		return 0, fmt.Errorf("consumequeue: truncate %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cq.minLogic.Store(min(cq.minLogic.Load(), cut))
	cq.maxPhyEnd.Store(cq.lastPhyEnd())
	n := (before - cut) / EntrySize
	cq.lg.Info("dropped entries past the commit log end", zap.Int64("entries", n), zap.Int64("commitLogEnd", phyEnd))
	return n, nil
}

// lastPhyEnd reads the CommitLog end of the newest non-blank entry. REQUIRES: cq.mu.
func (cq *ConsumeQueue) lastPhyEnd() int64 {
	var end int64
	files := cq.q.Files()
	_ = mmapfile.CatchFault(func() error {
		for i := len(files) - 1; i >= 0; i-- {
			f := files[i]
			for pos := f.Wrote() - EntrySize; pos >= 0; pos -= EntrySize {
				if e := readEntry(f.Bytes(pos, EntrySize)); !e.IsBlank() {
					end = e.End()
					return nil
				}
			}
		}
		return nil
	})
	return end
}

// CorrectMinOffset sets the min offset to the first non-blank entry pointing at
// or past minPhy (the CommitLog's min offset); the max offset if there is none.
func (cq *ConsumeQueue) CorrectMinOffset(minPhy int64) {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	cq.correctMinLocked(minPhy)
}

func (cq *ConsumeQueue) correctMinLocked(minPhy int64) {
	min := cq.q.MaxOffset()
	_ = mmapfile.CatchFault(func() error {
		for _, f := range cq.q.Files() {
			for pos := int64(0); pos+EntrySize <= f.Wrote(); pos += EntrySize {
				if e := readEntry(f.Bytes(pos, EntrySize)); !e.IsBlank() && e.Offset >= minPhy {
					min = f.Start() + pos
					return nil
				}
			}
		}
		return nil
	})
	cq.minLogic.Store(min)
}

// DeleteBelow deletes the files (never the newest) whose last entry points
// below minPhy, the CommitLog's new min offset, then corrects the min offset.
func (cq *ConsumeQueue) DeleteBelow(minPhy int64) (int, error) {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	n, err := cq.q.DeleteFirst(0, func(f *mmapfile.MappedFile) bool {
		w := f.Wrote()
		if w < EntrySize {
			return false
		}
		var last Entry
		if mmapfile.CatchFault(func() error { last = readEntry(f.Bytes(w-EntrySize, EntrySize)); return nil }) != nil {
			return false
		}
		return last.Offset < minPhy
	})
	cq.correctMinLocked(minPhy)
	if err != nil {
		return n, fmt.Errorf("consumequeue: delete %s/%d: %w", cq.topic, cq.queueID, err)
	}
	return n, nil
}
