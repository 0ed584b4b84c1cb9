package mmapfile

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// PageSize is the unit msync ranges are aligned to.
const PageSize = vfs.PageSize

// ErrClosed reports a file or queue that was closed or destroyed.
var ErrClosed = errors.New("mmapfile: closed")

// FileName is the segment name for a start offset: 20 digits, zero-padded.
func FileName(start int64) string { return fmt.Sprintf("%020d", start) }

// ParseFileName returns the start offset a segment name encodes.
func ParseFileName(name string) (int64, bool) {
	if len(name) != 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(name, 10, 64)
	return v, err == nil && v >= 0
}

// MappedFile is one memory-mapped segment. One goroutine writes it (through
// Tail and SetWrote); any number read the bytes below Wrote.
type MappedFile struct {
	fs    vfs.FS
	path  string
	start int64
	size  int64
	file  vfs.File
	m     vfs.Mapping
	data  []byte // m.Bytes()

	wrote     atomic.Int64
	flushed   atomic.Int64
	allocated atomic.Int64 // bytes from the start known to have disk blocks
	flushMu   sync.Mutex

	// refs counts the owner (1 until Close/Destroy) plus every Acquire.
	refs    atomic.Int64
	closing atomic.Bool
	freed   chan struct{}
	freeErr error

	// LastStoreTimestamp is free for the owner to record the store time of the
	// newest record written to this file.
	LastStoreTimestamp atomic.Int64
}

// Create makes a new segment file of size bytes for start at path on fsys,
// every block allocated (vfs.CreateAllocated: path.tmp, allocated, synced,
// renamed, the directory synced), then maps it.
func Create(fsys vfs.FS, path string, start, size int64) (*MappedFile, error) {
	f, err := vfs.CreateAllocated(fsys, path, size)
	if err != nil {
		return nil, fmt.Errorf("mmapfile: %w", err)
	}
	mf, err := mapFile(fsys, f, path, start, size)
	if err != nil {
		return nil, err
	}
	mf.allocated.Store(size)
	return mf, nil
}

// CreateSparse makes a new segment file of size bytes of which only the first
// page has disk blocks (vfs.CreateSparse: nothing synced), written with zeros
// to have it cached (see Reserve), then maps it. The writer allocates the
// rest as it goes (Reserve).
func CreateSparse(fsys vfs.FS, path string, start, size int64) (*MappedFile, error) {
	alloc := min(size, PageSize)
	f, err := vfs.CreateSparse(fsys, path, size, alloc)
	if err != nil {
		return nil, fmt.Errorf("mmapfile: %w", err)
	}
	if _, err := f.WriteAt(zeroChunk[:alloc], 0); err != nil {
		f.Close()
		_ = fsys.Remove(path)
		return nil, fmt.Errorf("mmapfile: write %s: %w", path, err)
	}
	mf, err := mapFile(fsys, f, path, start, size)
	if err != nil {
		_ = fsys.Remove(path)
		return nil, err
	}
	mf.allocated.Store(alloc)
	return mf, nil
}

// Open maps an existing segment file, which must be size bytes long. Its
// positions start at size (full); recovery sets them with SetPositions. Its
// blocks are taken as allocated; SetAllocated says otherwise for a sparse one.
func Open(fsys vfs.FS, path string, start, size int64) (*MappedFile, error) {
	f, err := fsys.OpenReadWrite(path)
	if err != nil {
		return nil, fmt.Errorf("mmapfile: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mmapfile: stat %s: %w", path, err)
	}
	if st.Size() != size {
		f.Close()
		return nil, fmt.Errorf("mmapfile: %s is %d bytes, want %d (was the segment size changed?)", path, st.Size(), size)
	}
	mf, err := mapFile(fsys, f, path, start, size)
	if err != nil {
		return nil, err
	}
	mf.wrote.Store(size)
	mf.flushed.Store(size)
	mf.allocated.Store(size)
	return mf, nil
}

// SetAllocated sets how many bytes from the start are known to have disk
// blocks (0 for a sparse file whose extents are unknown: Reserve then
// allocates from the write position).
func (f *MappedFile) SetAllocated(n int64) { f.allocated.Store(min(n, f.size)) }

func mapFile(fsys vfs.FS, f vfs.File, path string, start, size int64) (*MappedFile, error) {
	m, err := f.Map(size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mmapfile: mmap %s: %w", path, err)
	}
	mf := &MappedFile{fs: fsys, path: path, start: start, size: size, file: f, m: m, data: m.Bytes(), freed: make(chan struct{})}
	mf.refs.Store(1)
	return mf, nil
}

// Path is the file's path.
func (f *MappedFile) Path() string { return f.path }

// Start is the offset of the file's first byte in its queue.
func (f *MappedFile) Start() int64 { return f.start }

// Size is the file's length.
func (f *MappedFile) Size() int64 { return f.size }

// End is Start + Size.
func (f *MappedFile) End() int64 { return f.start + f.size }

// Wrote is how many bytes are written (readable).
func (f *MappedFile) Wrote() int64 { return f.wrote.Load() }

// Flushed is how many bytes are durable.
func (f *MappedFile) Flushed() int64 { return f.flushed.Load() }

// IsFull reports whether the file is written to its end.
func (f *MappedFile) IsFull() bool { return f.wrote.Load() >= f.size }

// Tail is the unwritten part of the mapping, for the writer to encode into.
func (f *MappedFile) Tail() []byte { return f.data[f.wrote.Load():] }

// WriteTail writes b at the write position through the file descriptor
// (pwrite) without publishing it: the writer calls SetWrote when the bytes are
// complete. The bytes land in the page cache the mapping shows, so readers
// see them through Bytes as they see stores to the mapping. Writing with
// pwrite instead of storing to the mapping matters to SYNC_FLUSH: on the
// project's ext4 test machine a sync of pages dirtied through the mapping took
// 1-3 ms once some tens of MiB of the file had been written, the same pages
// written with pwrite 0.1 ms (docs/benchmarks.md, "Writing the CommitLog with
// pwrite"). b must fit in the tail.
func (f *MappedFile) WriteTail(b []byte) error {
	pos := f.wrote.Load()
	if int64(len(b)) > f.size-pos {
		return fmt.Errorf("mmapfile: write %s at %d: %d bytes do not fit", f.path, pos, len(b))
	}
	if _, err := f.file.WriteAt(b, pos); err != nil {
		return fmt.Errorf("mmapfile: write %s at %d: %w", f.path, pos, err)
	}
	return nil
}

// SetWrote publishes that the file is written up to pos. Only the writer calls it.
func (f *MappedFile) SetWrote(pos int64) { f.wrote.Store(pos) }

// SetPositions sets the written and flushed positions (recovery).
func (f *MappedFile) SetPositions(wrote, flushed int64) {
	f.wrote.Store(wrote)
	f.flushed.Store(flushed)
}

// Bytes returns the mapping [pos, pos+n). The caller must hold a reference or
// own the file, and only read bytes below Wrote.
func (f *MappedFile) Bytes(pos, n int64) []byte { return f.data[pos : pos+n : pos+n] }

// Acquire takes a reference that keeps the mapping alive; it fails once the
// file is closing. Every successful Acquire needs one Release.
func (f *MappedFile) Acquire() bool {
	for {
		n := f.refs.Load()
		if n <= 0 || f.closing.Load() {
			return false
		}
		if f.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release drops a reference taken by Acquire.
func (f *MappedFile) Release() {
	if f.refs.Add(-1) == 0 {
		f.free()
	}
}

// free unmaps and closes the file once no reference is left.
func (f *MappedFile) free() {
	err := f.m.Unmap()
	if cerr := f.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.freeErr = fmt.Errorf("mmapfile: unmap %s: %w", f.path, err)
	}
	close(f.freed)
}

// Flush makes the written bytes durable (msync) and returns the new flushed
// position. A failed sync leaves the flushed position where it was.
func (f *MappedFile) Flush() (int64, error) {
	f.flushMu.Lock()
	defer f.flushMu.Unlock()
	w, fl := f.wrote.Load(), f.flushed.Load()
	if w <= fl {
		return fl, nil
	}
	if !f.Acquire() {
		return fl, fmt.Errorf("mmapfile: flush %s: %w", f.path, ErrClosed)
	}
	defer f.Release()
	from := fl &^ (PageSize - 1)
	if err := f.m.Sync(from, w-from); err != nil {
		return fl, fmt.Errorf("mmapfile: sync %s [%d,%d): %w", f.path, from, w, err)
	}
	f.flushed.Store(w)
	return w, nil
}

// ZeroFrom makes [pos, Size) read as zeros on disk and in the mapping, syncs
// it, and sets both positions to pos. Recovery uses it to cut a torn tail so a
// later scan cannot run into stale records.
func (f *MappedFile) ZeroFrom(pos int64) error {
	if !f.Acquire() {
		return fmt.Errorf("mmapfile: zero %s: %w", f.path, ErrClosed)
	}
	defer f.Release()
	aligned := min((pos+PageSize-1)&^(PageSize-1), f.size)
	clear(f.data[pos:aligned])
	if aligned < f.size {
		err := f.file.ZeroRange(aligned, f.size-aligned)
		if errors.Is(err, vfs.ErrUnsupported) {
			clear(f.data[aligned:])
			err = nil
		}
		if err != nil {
			return fmt.Errorf("mmapfile: zero %s from %d: %w", f.path, aligned, err)
		}
	}
	if pos < aligned {
		from := pos &^ (PageSize - 1)
		if err := f.m.Sync(from, aligned-from); err != nil {
			return fmt.Errorf("mmapfile: sync %s: %w", f.path, err)
		}
	}
	if err := f.file.Sync(); err != nil {
		return fmt.Errorf("mmapfile: sync %s: %w", f.path, err)
	}
	f.SetPositions(pos, pos)
	return nil
}

// Close drops the owner's reference: the file is unmapped once readers are done.
// It returns at once; Wait blocks until the unmap.
func (f *MappedFile) Close() {
	if f.closing.Swap(true) {
		return
	}
	f.Release()
}

// Destroy unlinks the file now and closes it (unmapped when readers are done).
func (f *MappedFile) Destroy() error {
	err := f.fs.Remove(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	f.Close()
	if err != nil {
		return fmt.Errorf("mmapfile: remove %s: %w", f.path, err)
	}
	return nil
}

// Wait blocks until the mapping is released and returns the unmap error.
func (f *MappedFile) Wait() error {
	<-f.freed
	return f.freeErr
}

// Refs is the number of live references (owner included), for tests and metrics.
func (f *MappedFile) Refs() int64 { return f.refs.Load() }
