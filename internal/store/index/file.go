package index

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// Errors of IndexFile and Service.
var (
	ErrClosed       = errors.New("index: closed")
	ErrSizeMismatch = errors.New("index: file size does not match the layout")
	// ErrSealed reports a write refused because no disk space could be reserved for the file.
	ErrSealed = errors.New("index: file is read-only: no disk space reserved")
)

// IndexFile is one index file: a mapped header, hash slots and entries. It is safe for one
// writer (Put, Truncate) and many concurrent readers (Select and the accessors).
type IndexFile struct {
	fs     vfs.FS // nil for a file in memory
	path   string
	layout Layout

	// lifeMu keeps the mapping alive during msync, which runs without mu so that a long
	// flush does not stall Put or Select. Order: lifeMu before mu.
	lifeMu sync.RWMutex

	mu       sync.RWMutex
	m        vfs.Mapping
	data     []byte // the whole file (m.Bytes()); nil once closed
	h        Header // in-memory copy, written through to data[0:40] on every change
	dirty    bool   // changed since the last msync
	sealed   bool   // no disk space is reserved behind the mapping: never write it
	flushErr error  // sticky: an msync failure is never retried
}

// Create makes a new, empty index file at path on fsys (which must not exist). Like Java, a
// file that follows a full one starts with begin = end = that file's end offset and time
// (values ≤ 0 are left 0); the first Put replaces the begin values.
func Create(fsys vfs.FS, path string, l Layout, prevEndPhyOffset, prevEndTimestamp int64) (*IndexFile, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	m, err := createMapped(fsys, path, l.FileSize())
	if err != nil {
		return nil, err
	}
	f := newMapped(fsys, path, l, m)
	f.h = Header{IndexCount: 1}
	if prevEndPhyOffset > 0 {
		f.h.BeginPhyOffset, f.h.EndPhyOffset = prevEndPhyOffset, prevEndPhyOffset
	}
	if prevEndTimestamp > 0 {
		f.h.BeginTimestamp, f.h.EndTimestamp = prevEndTimestamp, prevEndTimestamp
	}
	f.writeHeaderLocked()
	f.dirty = true
	return f, nil
}

// Load maps an existing index file. Its size must match the layout. A header with an index
// count below 1 reads as 1 (Java writes 0 until the first put); one above the layout's
// IndexNum is clamped, so every read stays inside the file. Holes in a file that can still
// grow are allocated first; if the disk is full the file is loaded read-only (IsFull is true).
func Load(fsys vfs.FS, path string, l Layout) (*IndexFile, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	h, err := readHeaderFile(fsys, path)
	if err != nil {
		return nil, err
	}
	reserveSpace := sanitize(h, l).IndexCount < int32(l.IndexNum)
	m, sealed, err := openMapped(fsys, path, l.FileSize(), reserveSpace)
	if err != nil {
		return nil, err
	}
	f := newMapped(fsys, path, l, m)
	f.h = sanitize(DecodeHeader((*[HeaderSize]byte)(f.data[:HeaderSize])), l)
	f.sealed = sealed
	f.dirty = true // the previous process may have left dirty pages; the first Flush persists them
	return f, nil
}

// readHeaderFile reads the first 40 bytes of path with ordinary I/O (a short file reads as a
// zero header).
func readHeaderFile(fsys vfs.FS, path string) (Header, error) {
	fd, err := fsys.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("index: open %s: %w", path, err)
	}
	defer fd.Close()
	var b [HeaderSize]byte
	if _, err := fd.ReadAt(b[:], 0); err != nil && !errors.Is(err, io.EOF) {
		return Header{}, fmt.Errorf("index: read header of %s: %w", path, err)
	}
	return DecodeHeader(&b), nil
}

// sanitize bounds the index count to [1, IndexNum].
func sanitize(h Header, l Layout) Header {
	if h.IndexCount < 1 {
		h.IndexCount = 1
	}
	if h.IndexCount > int32(l.IndexNum) {
		h.IndexCount = int32(l.IndexNum)
	}
	return h
}

func newMapped(fsys vfs.FS, path string, l Layout, m vfs.Mapping) *IndexFile {
	return &IndexFile{fs: fsys, path: path, layout: l, m: m, data: m.Bytes()}
}

// newInMemory wraps a byte slice of exactly l.FileSize() bytes as an IndexFile without a file
// (tests and fuzzing). Flush and Close do nothing to the memory.
func newInMemory(l Layout, data []byte) (*IndexFile, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if int64(len(data)) != l.FileSize() {
		return nil, fmt.Errorf("%w: %d bytes, the layout needs %d", ErrSizeMismatch, len(data), l.FileSize())
	}
	f := &IndexFile{layout: l, m: memMapping(data), data: data}
	f.h = sanitize(DecodeHeader((*[HeaderSize]byte)(data[:HeaderSize])), l)
	return f, nil
}

// Path is the file's path.
func (f *IndexFile) Path() string { return f.path }

// Name is the file's base name (its creation time, yyyyMMddHHmmssSSS).
func (f *IndexFile) Name() string { return baseName(f.path) }

// Layout is the file's geometry.
func (f *IndexFile) Layout() Layout { return f.layout }

// Header is a snapshot of the header (index count sanitised as in Load).
func (f *IndexFile) Header() Header {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.h
}

// BeginTimestamp is the storeTimestamp of the first entry (for an empty file that follows a
// full one, that file's end time).
func (f *IndexFile) BeginTimestamp() int64 { return f.Header().BeginTimestamp }

// EndTimestamp is the storeTimestamp of the newest entry.
func (f *IndexFile) EndTimestamp() int64 { return f.Header().EndTimestamp }

// EndPhyOffset is the commitlog offset of the newest entry.
func (f *IndexFile) EndPhyOffset() int64 { return f.Header().EndPhyOffset }

// indexedUpTo reports whether the record at phyOffset is already in the file
// or before it: below the end offset, or at it when the newest entry is that
// record's (re-dispatch after recovery starts at the newest indexed record).
func (f *IndexFile) indexedUpTo(phyOffset int64) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if phyOffset != f.h.EndPhyOffset || f.data == nil {
		return phyOffset < f.h.EndPhyOffset
	}
	n := f.h.IndexCount - 1
	return n >= 1 && DecodeEntry(f.entryLocked(n)).PhyOffset == phyOffset
}

// IsFull reports that Put would not write: every entry is used, or no disk space could be
// reserved for the file.
func (f *IndexFile) IsFull() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.isFullLocked()
}

func (f *IndexFile) isFullLocked() bool {
	return f.sealed || f.h.IndexCount >= int32(f.layout.IndexNum)
}

// Put adds key for the message at phyOffset stored at storeTimestamp. full reports that the
// file had no room and nothing was written (Java's putKey returning false).
func (f *IndexFile) Put(key string, phyOffset, storeTimestamp int64) (full bool, err error) {
	return f.putHash(KeyHash(key), phyOffset, storeTimestamp)
}

func (f *IndexFile) putHash(keyHash int32, phyOffset, storeTimestamp int64) (full bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		return false, ErrClosed
	}
	if f.isFullLocked() {
		return true, nil
	}
	n := f.h.IndexCount
	slot := f.slotLocked(keyHash)
	prev := DecodeSlot(slot)
	if prev < 1 || prev >= n {
		prev = 0
	}
	if n <= 1 {
		// The first entry defines the file's begin. Java computes this entry's timeDiff from
		// the old begin before replacing it; we use the new one, so it is 0 as it should be.
		f.h.BeginPhyOffset = phyOffset
		f.h.BeginTimestamp = storeTimestamp
	}
	EncodeEntry(f.entryLocked(n), Entry{
		KeyHash:   keyHash,
		PhyOffset: phyOffset,
		TimeDiff:  TimeDiff(f.h.BeginTimestamp, storeTimestamp),
		PrevIndex: prev,
	})
	EncodeSlot(slot, n)
	f.h.HashSlotCount++
	f.h.IndexCount++
	f.h.EndPhyOffset = phyOffset
	f.h.EndTimestamp = storeTimestamp
	f.writeHeaderLocked()
	f.dirty = true
	return false, nil
}

// Select returns up to maxNum commitlog offsets of entries for key whose time lies in
// [begin, end] (ms), newest first. See appendSelectLocked for the rules.
func (f *IndexFile) Select(key string, maxNum int, begin, end int64) []int64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.appendSelectLocked(nil, KeyHash(key), maxNum, begin, end)
}

// initialResultCap bounds the first allocation of a result, whatever maxNum a caller asks for.
const initialResultCap = 64

// appendSelectLocked walks the chain of keyHash's slot and appends matching offsets to dst
// until dst holds maxNum. The rules are Java's IndexFile.selectPhyOffset:
//   - an entry's time is begin + timeDiff seconds (EntryTime); it matches when
//     begin ≤ time ≤ end and its hash equals keyHash (other keys with the same hash match too);
//   - the walk stops at a negative timeDiff, at an entry older than begin, or at prevIndex 0.
//
// Differences that only matter for damaged files: entry numbers must lie in [1, IndexCount)
// (Java also follows IndexCount itself, an unwritten entry), and prevIndex must be smaller than
// the current entry number (Java only refuses prevIndex == current), so the walk always ends
// within IndexCount steps. Offsets beyond the header's EndPhyOffset, which no sound file holds,
// are skipped, and an offset equal to the one just appended (a re-dispatched record) is not
// repeated.
func (f *IndexFile) appendSelectLocked(dst []int64, keyHash int32, maxNum int, begin, end int64) []int64 {
	if f.data == nil {
		return dst
	}
	n := f.h.IndexCount
	cur := DecodeSlot(f.slotLocked(keyHash))
	for cur >= 1 && cur < n && len(dst) < maxNum {
		e := DecodeEntry(f.entryLocked(cur))
		if e.TimeDiff < 0 {
			break
		}
		t := EntryTime(f.h.BeginTimestamp, e.TimeDiff)
		if e.KeyHash == keyHash && t >= begin && t <= end && e.PhyOffset <= f.h.EndPhyOffset &&
			(len(dst) == 0 || dst[len(dst)-1] != e.PhyOffset) {
			if dst == nil {
				dst = make([]int64, 0, min(maxNum, initialResultCap))
			}
			dst = append(dst, e.PhyOffset)
		}
		if t < begin || e.PrevIndex >= cur {
			break
		}
		cur = e.PrevIndex
	}
	return dst
}

// timeMatchedLocked is Java's IndexFile.isTimeMatched: the file's [begin, end] overlaps the
// query's, or the query range contains it.
func (f *IndexFile) timeMatchedLocked(begin, end int64) bool {
	fb, fe := f.h.BeginTimestamp, f.h.EndTimestamp
	return (begin < fb && end > fe) || (begin >= fb && begin <= fe) || (end >= fb && end <= fe)
}

// Truncate removes the entries that point at or beyond maxPhyOffset (the recovered end of the
// commitlog) and returns how many entries remain. Entries are appended in commitlog order, so
// the removed ones are the newest: each is unlinked from its slot (the slot falls back to the
// entry's prevIndex) and zeroed, and the header's end values become those of the newest entry
// left. A file left without entries gets the header of a new file (all zero, indexCount 1).
func (f *IndexFile) Truncate(maxPhyOffset int64) (remaining int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		return 0, ErrClosed
	}
	n := f.h.IndexCount - 1
	if f.sealed && n >= 1 && DecodeEntry(f.entryLocked(n)).PhyOffset >= maxPhyOffset {
		return 0, fmt.Errorf("index: truncate %s: %w", f.path, ErrSealed)
	}
	for ; n >= 1; n-- {
		e := DecodeEntry(f.entryLocked(n))
		if e.PhyOffset < maxPhyOffset {
			break
		}
		slot := f.slotLocked(e.KeyHash)
		if DecodeSlot(slot) == n {
			prev := e.PrevIndex
			if prev < 1 || prev >= n {
				prev = 0
			}
			EncodeSlot(slot, prev)
		}
		*f.entryLocked(n) = [EntrySize]byte{}
		f.h.HashSlotCount = max(f.h.HashSlotCount-1, 0)
		f.dirty = true
	}
	if n+1 == f.h.IndexCount && f.h.EndPhyOffset < maxPhyOffset {
		return int(n), nil
	}
	f.dirty = true
	f.h.IndexCount = n + 1
	if n == 0 {
		f.h = Header{IndexCount: 1}
	} else {
		last := DecodeEntry(f.entryLocked(n))
		f.h.EndPhyOffset = last.PhyOffset
		f.h.EndTimestamp = min(f.h.EndTimestamp, EntryTime(f.h.BeginTimestamp, last.TimeDiff))
	}
	f.writeHeaderLocked()
	return int(n), nil
}

// Flush writes the file's changed pages to disk (msync). A failure is returned now and by every
// later Flush: it is never retried, because the kernel may have dropped the dirty pages.
func (f *IndexFile) Flush() error {
	f.lifeMu.RLock()
	defer f.lifeMu.RUnlock()
	f.mu.Lock()
	if f.data == nil {
		f.mu.Unlock()
		return ErrClosed
	}
	if f.flushErr != nil || !f.dirty {
		err := f.flushErr
		f.mu.Unlock()
		return err
	}
	f.dirty = false
	size := int64(len(f.data))
	f.mu.Unlock()

	if err := f.m.Sync(0, size); err != nil {
		err = fmt.Errorf("index: msync %s: %w", f.path, err)
		f.mu.Lock()
		f.flushErr = err
		f.mu.Unlock()
		return err
	}
	return nil
}

// Close unmaps the file, waiting for a Flush in progress. It does not flush. Closing twice is
// harmless.
func (f *IndexFile) Close() error {
	f.lifeMu.Lock()
	defer f.lifeMu.Unlock()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		return nil
	}
	f.data = nil
	if err := f.m.Unmap(); err != nil {
		return fmt.Errorf("index: munmap %s: %w", f.path, err)
	}
	return nil
}

// Destroy closes and deletes the file.
func (f *IndexFile) Destroy() error {
	if err := f.Close(); err != nil {
		return err
	}
	if f.fs == nil {
		return nil
	}
	if err := f.fs.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("index: remove %s: %w", f.path, err)
	}
	return nil
}

func (f *IndexFile) slotLocked(keyHash int32) *[SlotSize]byte {
	off := f.layout.SlotOffset(keyHash)
	return (*[SlotSize]byte)(f.data[off : off+SlotSize])
}

func (f *IndexFile) entryLocked(n int32) *[EntrySize]byte {
	off := f.layout.EntryOffset(n)
	return (*[EntrySize]byte)(f.data[off : off+EntrySize])
}

func (f *IndexFile) writeHeaderLocked() {
	EncodeHeader((*[HeaderSize]byte)(f.data[:HeaderSize]), f.h)
}
