package mmapfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// MaxAllocChunk caps how far ahead of the write position Reserve allocates a
// sparse segment at once.
const MaxAllocChunk = 1 << 20

// Reserve makes sure the bytes of the file below end have disk blocks before
// the writer stores them through the mapping. A store into a hole of a sparse
// file allocates its block when it faults, and on a full disk that fault is a
// SIGBUS that kills the process; allocating first (fallocate) turns a full
// disk into an error here, and nothing is written. Blocks are allocated ahead
// of need in chunks that double from one page up to MaxAllocChunk, so a busy
// queue allocates rarely and an idle one holds one page. The chunk is then
// written with zeros (pwrite), which puts its pages in the page cache: the
// first store through the mapping into a page the kernel must fault in from a
// fallocated extent costs about 2 ms on ext4 (measured), a page already cached
// a few microseconds. A file of a preallocated queue is allocated whole
// already. Only the writer calls it.
func (f *MappedFile) Reserve(end int64) error {
	have := f.allocated.Load()
	if end <= have {
		return nil
	}
	// From the write position: every byte past it is unwritten, so the
	// zero-filling fallback of vfs.Allocate cannot overwrite data. Ahead by
	// as much as is allocated already (capped); nothing ahead when that is
	// unknown (a file opened again), so an idle queue stays at one page.
	from := max(have, f.wrote.Load())
	to := min(f.size, alignUp(end)+min(have, MaxAllocChunk))
	if err := allocateCached(f.file, from, to); err != nil {
		return fmt.Errorf("mmapfile: allocate %s [%d,%d): %w", f.path, from, to, err)
	}
	f.allocated.Store(to)
	return nil
}

// zeroChunk is the write size of allocateCached.
var zeroChunk [64 << 10]byte

// allocateCached gives [from, to) of file blocks (vfs.Allocate) and writes
// zeros over it, so that its pages are in the page cache. Only for a range
// nothing was written to.
func allocateCached(file vfs.File, from, to int64) error {
	if err := vfs.Allocate(file, from, to); err != nil {
		return err
	}
	for off := from; off < to; {
		n := min(int64(len(zeroChunk)), to-off)
		if _, err := file.WriteAt(zeroChunk[:n], off); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// Allocated is how many bytes from the file's start are known to have blocks.
func (f *MappedFile) Allocated() int64 { return f.allocated.Load() }

func alignUp(n int64) int64 { return (n + PageSize - 1) &^ (PageSize - 1) }

// cutSparse sets both positions to pos and makes sure the file reads as zeros
// from there: when it does already (the usual case after kill -9, whose page
// cache kept everything written) nothing is written or synced; otherwise
// (stale entries past a torn end after a power loss) the rest of pos's page
// is overwritten with zeros, the pages after it are punched out and the file
// is synced.
func (f *MappedFile) cutSparse(pos int64) error {
	if !f.Acquire() {
		return fmt.Errorf("mmapfile: cut %s: %w", f.path, ErrClosed)
	}
	defer f.Release()
	zero, err := f.zerosFrom(pos)
	if err != nil {
		return err
	}
	if !zero {
		if err := f.zeroSparse(pos); err != nil {
			return err
		}
	}
	f.SetPositions(pos, pos)
	return nil
}

// zerosFrom reports whether [pos, Size) reads as zeros, reading only the
// ranges the file system says may hold data. REQUIRES a reference.
func (f *MappedFile) zerosFrom(pos int64) (bool, error) {
	page := min(alignUp(pos), f.size)
	if !allZero(f.data[pos:page]) {
		return false, nil
	}
	for off := page; off < f.size; {
		start, end, err := f.file.NextData(off)
		switch {
		case errors.Is(err, io.EOF):
			return true, nil
		case errors.Is(err, vfs.ErrUnsupported):
			start, end = off, f.size
		case err != nil:
			return false, fmt.Errorf("mmapfile: seek data in %s: %w", f.path, err)
		}
		start, end = max(start, off), min(end, f.size)
		if start >= f.size {
			return true, nil
		}
		if !allZero(f.data[start:end]) {
			return false, nil
		}
		off = end
	}
	return true, nil
}

// zeroSparse writes zeros over [pos, its page end) with pwrite (never through
// the mapping, so a hole there cannot fault), gives back the blocks of the
// pages after it and syncs the file.
func (f *MappedFile) zeroSparse(pos int64) error {
	page := min(alignUp(pos), f.size)
	if page > pos {
		if _, err := f.file.WriteAt(make([]byte, page-pos), pos); err != nil {
			return fmt.Errorf("mmapfile: zero %s from %d: %w", f.path, pos, err)
		}
	}
	if page < f.size {
		err := f.file.PunchHole(page, f.size-page)
		if errors.Is(err, vfs.ErrUnsupported) {
			err = f.file.ZeroRange(page, f.size-page)
		}
		if errors.Is(err, vfs.ErrUnsupported) {
			err = vfs.Allocate(f.file, page, f.size)
			if err == nil {
				clear(f.data[page:])
			}
		}
		if err != nil {
			return fmt.Errorf("mmapfile: clear %s from %d: %w", f.path, page, err)
		}
	}
	if err := f.file.Sync(); err != nil {
		return fmt.Errorf("mmapfile: sync %s: %w", f.path, err)
	}
	f.allocated.Store(min(f.allocated.Load(), page))
	return nil
}

var zeroPage [PageSize]byte

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), PageSize)
		if !bytes.Equal(b[:n], zeroPage[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}
