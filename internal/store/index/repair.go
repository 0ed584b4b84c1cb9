package index

import (
	"fmt"

	"go.uber.org/zap"
)

// RecordTimeFunc returns the store timestamp of the commitlog record at
// phyOffset, or a negative value when it cannot be read.
type RecordTimeFunc func(phyOffset int64) int64

// repair makes a file written after the last checkpoint usable again after an
// unclean shutdown, instead of dropping it (Java deletes it, and with it every
// key it held). Pages of the mapping reach the disk in any order, so:
//
//   - entries are read from the first while they look whole: not all zero, a
//     commitlog offset that never decreases, a prev link pointing back. Entries
//     are only ever appended, so those are exactly what they were when written;
//   - in the newest file (dropLast) the entries of the last record read are
//     dropped too, as its keys may be incomplete; re-dispatch indexes it again;
//   - the entry area past the kept entries is zeroed, the hash slots are
//     rebuilt by replaying the kept entries in order (a slot holds the newest
//     entry of its chain, each entry links to the one it replaced), and the
//     header is rewritten from the entries.
//
// The header's begin timestamp anchors every entry's time; when the header on
// disk is older than the first entry (it was never written back) it is read
// from the commitlog through recordTime. kept is the number of entries kept;
// a file with none is left for the caller to delete.
func (f *IndexFile) repair(dropLast bool, recordTime RecordTimeFunc) (kept int32, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		return 0, ErrClosed
	}
	if f.sealed {
		return 0, fmt.Errorf("index: repair %s: %w", f.path, ErrSealed)
	}
	n := f.wholeEntriesLocked()
	if dropLast && n > 1 {
		last := DecodeEntry(f.entryLocked(n - 1)).PhyOffset
		for n > 1 && DecodeEntry(f.entryLocked(n-1)).PhyOffset == last {
			n--
		}
	}
	if n <= 1 {
		return 0, nil
	}
	first := DecodeEntry(f.entryLocked(1))
	begin := f.h.BeginTimestamp
	if f.h.BeginPhyOffset != first.PhyOffset || begin <= 0 {
		if recordTime == nil {
			return 0, nil
		}
		if begin = recordTime(first.PhyOffset); begin < 0 {
			return 0, nil
		}
	}
	f.zeroEntriesFromLocked(n)
	f.rebuildSlotsLocked(n)
	last := DecodeEntry(f.entryLocked(n - 1))
	f.h = Header{
		BeginTimestamp: begin,
		EndTimestamp:   EntryTime(begin, last.TimeDiff),
		BeginPhyOffset: first.PhyOffset,
		EndPhyOffset:   last.PhyOffset,
		HashSlotCount:  n - 1,
		IndexCount:     n,
	}
	f.writeHeaderLocked()
	f.dirty = true
	return n - 1, nil
}

// wholeEntriesLocked is the number of the first entry that does not look
// whole (the count of a file holding only whole entries).
func (f *IndexFile) wholeEntriesLocked() int32 {
	var prevPhy int64
	n := int32(1)
	for ; n < int32(f.layout.IndexNum); n++ {
		raw := f.entryLocked(n)
		if *raw == ([EntrySize]byte{}) {
			break
		}
		e := DecodeEntry(raw)
		if e.KeyHash < 0 || e.PhyOffset < prevPhy || e.TimeDiff < 0 || e.PrevIndex < 0 || e.PrevIndex >= n {
			break
		}
		prevPhy = e.PhyOffset
	}
	return n
}

// zeroEntriesFromLocked zeroes the entries from n on up to the first that is
// already zero past what the header or the scan saw.
func (f *IndexFile) zeroEntriesFromLocked(n int32) {
	for ; n < int32(f.layout.IndexNum); n++ {
		raw := f.entryLocked(n)
		if *raw == ([EntrySize]byte{}) && n >= f.h.IndexCount {
			return
		}
		*raw = [EntrySize]byte{}
	}
}

// entriesPastCount reports an entry written past the header's count: the
// header on disk is older than the entries.
func (f *IndexFile) entriesPastCount() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	n := f.h.IndexCount
	return f.data != nil && n < int32(f.layout.IndexNum) && *f.entryLocked(n) != ([EntrySize]byte{})
}

// rebuildSlotsLocked clears the slots and points each at the newest of the
// entries 1..n-1 in its chain.
func (f *IndexFile) rebuildSlotsLocked(n int32) {
	slots := f.data[HeaderSize : HeaderSize+f.layout.HashSlotNum*SlotSize]
	clear(slots)
	for i := int32(1); i < n; i++ {
		EncodeSlot(f.slotLocked(DecodeEntry(f.entryLocked(i)).KeyHash), i)
	}
}

// recoverUnclean applies the unclean-shutdown rule to the loaded files, oldest
// first: files whose end is not newer than the checkpoint are kept; newer
// ones, and a newest one holding entries past its header's count, are
// repaired while every earlier one is whole; after a file that lost
// entries (or cannot be written), the later ones are deleted, since their
// entries follow a hole. It reports whether any entry may be missing.
func (s *Service) recoverUnclean(files []*IndexFile) ([]*IndexFile, error) {
	keep := files[:0]
	cut := false
	for i, f := range files {
		stale := i == len(files)-1 && f.entriesPastCount() // header never written back
		if f.EndTimestamp() <= s.opts.CheckpointTimestamp && !cut && !stale {
			keep = append(keep, f)
			continue
		}
		s.lostOnLoad = true
		newest := i == len(files)-1
		kept := int32(0)
		var err error
		if !cut {
			full := f.IsFull()
			kept, err = f.repair(newest, s.opts.RecordTime)
			cut = !newest && (!full || !f.IsFull())
		}
		if err != nil || kept == 0 {
			s.lg.Warn("index: deleting an index file written after the checkpoint that cannot be repaired",
				zap.String("file", f.Path()), zap.Error(err))
			cut = true
			if derr := f.Destroy(); derr != nil {
				return keep, derr
			}
			continue
		}
		s.lg.Warn("index: repaired an index file written after the checkpoint", zap.String("file", f.Path()),
			zap.Int32("entriesKept", kept), zap.Int64("endPhyOffset", f.EndPhyOffset()))
		if err := f.Flush(); err != nil {
			return keep, err
		}
		keep = append(keep, f)
	}
	return keep, nil
}
