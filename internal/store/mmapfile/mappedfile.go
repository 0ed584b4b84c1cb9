package mmapfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
)

// PageSize is the unit msync ranges are aligned to.
const PageSize = 4096

var (
	// ErrClosed reports a file or queue that was closed or destroyed.
	ErrClosed      = errors.New("mmapfile: closed")
	errUnsupported = errors.New("mmapfile: operation not supported by the file system")
)

// SyncFunc makes b (a page-aligned range of f's mapping) durable. The default
// is msync(MS_SYNC); tests inject failures through it.
type SyncFunc func(f *MappedFile, b []byte) error

// CreateFunc makes a new segment file of size bytes for start at path (see
// Create, the default). Tests inject failures through it.
type CreateFunc func(path string, start, size int64) (*MappedFile, error)

// DefaultSync syncs b with msync(MS_SYNC).
func DefaultSync(_ *MappedFile, b []byte) error { return msync(b) }

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
	path  string
	start int64
	size  int64
	file  *os.File
	data  []byte

	wrote   atomic.Int64
	flushed atomic.Int64
	flushMu sync.Mutex

	// refs counts the owner (1 until Close/Destroy) plus every Acquire.
	refs    atomic.Int64
	closing atomic.Bool
	freed   chan struct{}
	freeErr error

	// LastStoreTimestamp is free for the owner to record the store time of the
	// newest record written to this file.
	LastStoreTimestamp atomic.Int64
}

// Create makes a new segment file of size bytes for start at path: written as
// path.tmp, preallocated, synced, renamed and the directory synced, then mapped.
func Create(path string, start, size int64) (*MappedFile, error) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("mmapfile: create %s: %w", tmp, err)
	}
	fail := func(op string, err error) (*MappedFile, error) {
		f.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("mmapfile: %s %s: %w", op, tmp, err)
	}
	if err := allocate(f, 0, size); err != nil {
		return fail("allocate", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail("rename", err)
	}
	if err := SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return mapFile(f, path, start, size)
}

// allocate gives f its blocks up to size, by fallocate or else by writing
// zeros from from on (the bytes before from are kept).
func allocate(f *os.File, from, size int64) error {
	err := preallocate(f, size)
	if !errors.Is(err, errUnsupported) {
		return err
	}
	zeros := make([]byte, 1<<20)
	for off := from; off < size; {
		n := min(int64(len(zeros)), size-off)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// Open maps an existing segment file, which must be size bytes long. Its
// positions start at size (full); recovery sets them with SetPositions.
func Open(path string, start, size int64) (*MappedFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
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
	mf, err := mapFile(f, path, start, size)
	if err != nil {
		return nil, err
	}
	mf.wrote.Store(size)
	mf.flushed.Store(size)
	return mf, nil
}

func mapFile(f *os.File, path string, start, size int64) (*MappedFile, error) {
	data, err := mmap(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mmapfile: mmap %s: %w", path, err)
	}
	mf := &MappedFile{path: path, start: start, size: size, file: f, data: data, freed: make(chan struct{})}
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
	err := munmap(f.data)
	if cerr := f.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		f.freeErr = fmt.Errorf("mmapfile: unmap %s: %w", f.path, err)
	}
	close(f.freed)
}

// Flush makes the written bytes durable through sync and returns the new
// flushed position. A failed sync leaves the flushed position where it was.
func (f *MappedFile) Flush(sync SyncFunc) (int64, error) {
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
	if err := sync(f, f.data[from:w]); err != nil {
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
		err := zeroRange(f.file, aligned, f.size-aligned)
		if errors.Is(err, errUnsupported) {
			clear(f.data[aligned:])
			err = nil
		}
		if err != nil {
			return fmt.Errorf("mmapfile: zero %s from %d: %w", f.path, aligned, err)
		}
	}
	if pos < aligned {
		if err := msync(f.data[pos&^(PageSize-1) : aligned]); err != nil {
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
	err := os.Remove(f.path)
	if errors.Is(err, os.ErrNotExist) {
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

// SyncDir fsyncs a directory so that entries created or renamed in it are durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("mmapfile: open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("mmapfile: sync dir %s: %w", dir, err)
	}
	return nil
}

// DiskUsage returns the size and the free bytes of the file system holding
// path as df counts them: free is what an unprivileged process may still
// allocate, and total is that plus what is in use (blocks reserved for root are
// left out), so (total-free)/total is df's Use%.
func DiskUsage(path string) (total, free uint64, err error) { return diskUsage(path) }
