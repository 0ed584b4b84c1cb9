package consumequeue

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// Recover finds the end of the valid entries in the last three files (an entry
// is valid when its offset is ≥ 0 and its size > 0) and truncates the queue
// there. After a clean shutdown (clean) a queue that ends in a zero entry is
// known to hold only zeros past it and is only positioned; otherwise the tail
// is made to read as zeros, which writes nothing when it does already.
func (cq *ConsumeQueue) Recover(clean bool) error {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	q, err := cq.resident()
	if err != nil {
		return err
	}
	defer cq.publishLocked(q)
	files := q.Files()
	if len(files) == 0 {
		return nil
	}
	end, zeroAtEnd, err := cq.scanEnd(files[max(len(files)-3, 0):])
	if err != nil {
		return fmt.Errorf("consumequeue: recover %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cut := q.Truncate
	if clean && zeroAtEnd {
		cut = q.SetEnd
	}
	before := q.Len()
	err = cut(end)
	if cq.residency != nil {
		cq.residency.grow(cq, q.Len()-before)
	}
	if err != nil {
		return fmt.Errorf("consumequeue: recover %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cq.minLogic.Store(min(cq.minLogic.Load(), end))
	cq.minFor = -1
	return nil
}

// scanEnd reads files from the first until an invalid entry and returns
// where it is and whether it is all zeros. REQUIRES cq.mu.
func (cq *ConsumeQueue) scanEnd(files []*mmapfile.MappedFile) (end int64, zeroAtEnd bool, err error) {
	end, zeroAtEnd = files[0].Start(), true
	err = mmapfile.CatchFault(func() error {
		for _, f := range files {
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
	return end, zeroAtEnd, err
}

// TruncateAfter removes every entry whose record ends past phyEnd (the
// CommitLog's recovered end), and reports how many entries went. Entries are
// in CommitLog order, so a queue whose newest entry ends at or before phyEnd
// is left alone without reading it.
func (cq *ConsumeQueue) TruncateAfter(phyEnd int64) (int64, error) {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	if cq.maxPhyEnd.Load() <= phyEnd && cq.maxPhyEnd.Load() > 0 {
		return 0, nil
	}
	q, err := cq.resident()
	if err != nil {
		return 0, err
	}
	defer cq.publishLocked(q)
	before := q.MaxOffset()
	cut, err := firstPast(q.Files(), phyEnd)
	if err != nil || cut < 0 {
		return 0, err
	}
	n := q.Len()
	err = q.Truncate(cut)
	if cq.residency != nil {
		cq.residency.grow(cq, q.Len()-n)
	}
	if err != nil {
		return 0, fmt.Errorf("consumequeue: truncate %s/%d: %w", cq.topic, cq.queueID, err)
	}
	cq.minLogic.Store(min(cq.minLogic.Load(), cut))
	cq.maxPhyEnd.Store(lastPhyEnd(q))
	cq.minFor = -1
	dropped := (before - cut) / EntrySize
	cq.logger().Info("dropped entries past the commit log end",
		append(cq.fields(), zap.Int64("entries", dropped), zap.Int64("commitLogEnd", phyEnd))...)
	return dropped, nil
}

// firstPast is the byte position of the first non-blank entry whose record
// ends past phyEnd, -1 if none: files are searched from the newest back
// while their first entry is past it.
func firstPast(files []*mmapfile.MappedFile, phyEnd int64) (int64, error) {
	cut := int64(-1)
	err := mmapfile.CatchFault(func() error {
		for i := len(files) - 1; i >= 0; i-- {
			found := firstPastIn(files[i], phyEnd)
			if found < 0 {
				return nil
			}
			cut = files[i].Start() + found
			if found > 0 {
				return nil
			}
		}
		return nil
	})
	return cut, err
}

// firstPastIn is firstPast within one file, relative to it.
func firstPastIn(f *mmapfile.MappedFile, phyEnd int64) int64 {
	for pos := int64(0); pos+EntrySize <= f.Wrote(); pos += EntrySize {
		if e := readEntry(f.Bytes(pos, EntrySize)); !e.IsBlank() && e.End() > phyEnd {
			return pos
		}
	}
	return -1
}

// filesLocked is the number of files, mapped or not. REQUIRES cq.mu.
func (cq *ConsumeQueue) filesLocked() int {
	if cq.q != nil {
		return cq.q.Len()
	}
	return len(cq.st.Starts)
}

// lastPhyEnd reads the CommitLog end of the newest non-blank entry of q.
func lastPhyEnd(q *mmapfile.Queue) int64 {
	var end int64
	files := q.Files()
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
// A queue corrected for the same minPhy since it last changed is left alone.
func (cq *ConsumeQueue) CorrectMinOffset(minPhy int64) {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	if cq.minFor == minPhy {
		return
	}
	q, err := cq.resident()
	if err != nil {
		cq.logger().Error("correcting the min offset", append(cq.fields(), zap.Error(err))...)
		return
	}
	cq.correctMinLocked(q, minPhy)
}

func (cq *ConsumeQueue) correctMinLocked(q *mmapfile.Queue, minPhy int64) {
	min := q.MaxOffset()
	_ = mmapfile.CatchFault(func() error {
		for _, f := range q.Files() {
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
	cq.minFor = minPhy
}

// DeleteBelow deletes the files (never the newest) whose last entry points
// below minPhy, the CommitLog's new min offset, then corrects the min offset.
// A queue of one file already corrected for minPhy is left alone unmapped.
func (cq *ConsumeQueue) DeleteBelow(minPhy int64) (int, error) {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	if cq.minFor == minPhy && cq.filesLocked() <= 1 {
		return 0, nil
	}
	q, err := cq.resident()
	if err != nil {
		return 0, err
	}
	n, err := q.DeleteFirst(0, func(f *mmapfile.MappedFile) bool {
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
	if cq.residency != nil {
		cq.residency.grow(cq, -n)
	}
	cq.correctMinLocked(q, minPhy)
	if err != nil {
		return n, fmt.Errorf("consumequeue: delete %s/%d: %w", cq.topic, cq.queueID, err)
	}
	return n, nil
}
