package consumequeue

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

// Load opens a queue found on disk at start-up and recovers it as Open,
// Recover(clean) and CorrectMinOffset(minPhy) do, but reads its files with
// pread instead of mapping them: the queue starts closed (mapped on first
// use), and a store of tens of thousands of queues opens without a mapping
// made and unmapped for each (munmap costs a TLB shootdown on every CPU the
// process runs on). When the queue needs more than finding its end (a .tmp
// left over, a short file, stale entries past its end to zero, files past
// the end to remove) it is opened and recovered the ordinary way.
func Load(root, topic string, queueID int32, o Options, clean bool, minPhy int64) (*ConsumeQueue, error) {
	cq := newConsumeQueue(root, topic, queueID, o)
	ok, err := cq.loadClosed(clean, minPhy)
	if err != nil {
		return nil, fmt.Errorf("consumequeue: load %s/%d: %w", topic, queueID, err)
	}
	if ok {
		return cq, nil
	}
	cq, err = Open(root, topic, queueID, o)
	if err != nil {
		return nil, err
	}
	if err := cq.Recover(clean); err != nil {
		cq.Close()
		return nil, err
	}
	cq.CorrectMinOffset(minPhy)
	return cq, nil
}

// loadClosed recovers the queue into its closed state; false when it needs
// the ordinary recovery.
func (cq *ConsumeQueue) loadClosed(clean bool, minPhy int64) (bool, error) {
	starts, ok, err := cq.listFiles()
	if err != nil || !ok {
		return false, err
	}
	buf := getBuf()
	defer putBuf(buf)
	r := &entryReader{cq: cq, buf: *buf}
	defer r.close()
	st := mmapfile.QueueState{Starts: starts}
	if len(starts) > 0 {
		end, zero, err := r.scanEnd(starts[max(len(starts)-3, 0):])
		if err != nil {
			return false, err
		}
		if end < starts[len(starts)-1] {
			return false, nil // files past the end to remove
		}
		if !clean || !zero {
			if zero, err = r.zeroFrom(starts, end); err != nil || !zero {
				return false, err
			}
		}
		st.End, st.Flushed = end, end
	}
	min, err := r.firstFrom(starts, st.End, minPhy)
	if err != nil {
		return false, err
	}
	cq.st, cq.q = st, nil
	cq.end.Store(st.End)
	cq.minLogic.Store(min)
	cq.minFor = minPhy
	return true, nil
}

// listFiles returns the file starts of the queue's directory, false when it
// holds anything but well-named files (left for the ordinary recovery).
func (cq *ConsumeQueue) listFiles() ([]int64, bool, error) {
	entries, err := cq.fsys().ReadDir(cq.dir)
	if err != nil {
		return nil, false, err
	}
	starts := make([]int64, 0, len(entries))
	for _, e := range entries {
		s, ok := mmapfile.ParseFileName(e.Name())
		if !ok || e.IsDir() || s%cq.fileSize != 0 {
			return nil, false, nil
		}
		starts = append(starts, s)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	return starts, true, nil
}

func (cq *ConsumeQueue) fsys() vfs.FS {
	if cq.fs == nil {
		return vfs.Default
	}
	return cq.fs
}

// Read sizes of entryReader, multiples of EntrySize: the first read of a
// file, the others.
const (
	firstRead   = mmapfile.PageSize / EntrySize * EntrySize // 4,080 bytes
	loadBufSize = 3276 * EntrySize                          // 65,520 bytes
)

var loadBufs = sync.Pool{New: func() any { b := make([]byte, loadBufSize); return &b }}

func getBuf() *[]byte  { return loadBufs.Get().(*[]byte) }
func putBuf(b *[]byte) { loadBufs.Put(b) }

// entryReader reads a queue's files with pread, one open file at a time.
type entryReader struct {
	cq    *ConsumeQueue
	buf   []byte
	start int64 // the open file's start
	f     vfs.File
	// cached: buf[:cachedN] holds the open file's bytes at cachedRel.
	cachedRel, cachedN int64
}

// open makes the file starting at start the open one, checking its length.
func (r *entryReader) open(start int64) error {
	if r.f != nil && r.start == start {
		return nil
	}
	r.close()
	path := filepath.Join(r.cq.dir, mmapfile.FileName(start))
	f, err := r.cq.fsys().Open(path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err == nil && st.Size() != r.cq.fileSize {
		err = fmt.Errorf("%s is %d bytes, want %d", path, st.Size(), r.cq.fileSize)
	}
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.start, r.cachedN = f, start, 0
	return nil
}

func (r *entryReader) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// read returns the bytes of the open file at rel, up to the buffer's size
// and the file's end.
func (r *entryReader) read(rel int64) ([]byte, error) {
	if r.cachedN > 0 && r.cachedRel == rel {
		return r.buf[:r.cachedN], nil
	}
	n := min(int64(len(r.buf)), r.cq.fileSize-rel)
	if rel == 0 {
		n = min(n, firstRead) // most queues are short: one page tells
	}
	got, err := r.f.ReadAt(r.buf[:n], rel)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	got -= got % EntrySize
	r.cachedRel, r.cachedN = rel, int64(got)
	return r.buf[:got], err
}

// scanEnd reads files from the first until an invalid entry (offset < 0 or
// size ≤ 0) and returns where it is and whether it is all zeros; it records
// the CommitLog end of the newest valid entry.
func (r *entryReader) scanEnd(starts []int64) (end int64, zero bool, err error) {
	for _, s := range starts {
		if err := r.open(s); err != nil {
			return 0, false, err
		}
		for rel := int64(0); rel < r.cq.fileSize; {
			b, err := r.read(rel)
			if err != nil || len(b) == 0 {
				return s + rel, true, err
			}
			for i := 0; i < len(b); i += EntrySize {
				e := readEntry(b[i:])
				if e.Offset < 0 || e.Size <= 0 {
					return s + rel + int64(i), e == Entry{}, nil
				}
				if !e.IsBlank() {
					r.cq.maxPhyEnd.Store(e.End())
				}
			}
			rel += int64(len(b))
		}
	}
	return starts[len(starts)-1] + r.cq.fileSize, true, nil
}

// zeroFrom reports whether the file holding the queue end pos reads as zeros
// from pos on, reading only what the file system says may hold data.
func (r *entryReader) zeroFrom(starts []int64, pos int64) (bool, error) {
	start := pos - pos%r.cq.fileSize
	if start == pos && pos > 0 && !slices.Contains(starts, start) {
		return true, nil // the end is the end of the last file
	}
	if err := r.open(start); err != nil {
		return false, err
	}
	for off := pos - start; off < r.cq.fileSize; {
		from, to, err := r.f.NextData(off)
		switch {
		case errors.Is(err, io.EOF):
			return true, nil
		case errors.Is(err, vfs.ErrUnsupported):
			from, to = off, r.cq.fileSize
		case err != nil:
			return false, err
		}
		from, to = max(from, off), min(to, r.cq.fileSize)
		r.cachedN = 0 // buf is overwritten below
		for from < to {
			n := min(int64(len(r.buf)), to-from)
			got, err := r.f.ReadAt(r.buf[:n], from)
			if err != nil && !errors.Is(err, io.EOF) {
				return false, err
			}
			if !allZero(r.buf[:got]) {
				return false, nil
			}
			if got == 0 {
				break
			}
			from += int64(got)
		}
		off = to
	}
	return true, nil
}

// firstFrom is the byte position of the first non-blank entry pointing at or
// past minPhy, end if there is none (CorrectMinOffset).
func (r *entryReader) firstFrom(starts []int64, end, minPhy int64) (int64, error) {
	for _, s := range starts {
		if s >= end {
			break
		}
		if err := r.open(s); err != nil {
			return 0, err
		}
		for rel := int64(0); s+rel < end; {
			b, err := r.read(rel)
			if err != nil || len(b) == 0 {
				return end, err
			}
			for i := 0; i < len(b) && s+rel+int64(i) < end; i += EntrySize {
				if e := readEntry(b[i:]); !e.IsBlank() && e.Offset >= minPhy {
					return s + rel + int64(i), nil
				}
			}
			rel += int64(len(b))
		}
	}
	return end, nil
}

var zeroPage [mmapfile.PageSize]byte

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), len(zeroPage))
		if !bytes.Equal(b[:n], zeroPage[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}
