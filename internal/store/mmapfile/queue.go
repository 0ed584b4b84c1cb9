package mmapfile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// QueueOptions configure a Queue.
type QueueOptions struct {
	// Preallocate creates the next segment in a background goroutine (between
	// Start and Close) so the writer rarely waits for a new file.
	Preallocate bool
	// Sparse segments have their full length but disk blocks only where the
	// writer reserved them (MappedFile.Reserve), and their creation syncs
	// nothing: neither the file nor the directories made for it. The owner
	// makes them durable with a SyncFS and MarkSynced. The directory is made
	// with the first segment, not by OpenQueue. For ConsumeQueues, of which a
	// broker carries tens of thousands.
	Sparse bool
	// FS holds the segments; nil means vfs.Default.
	FS vfs.FS
	// Logger; nil means no logging.
	Logger *zap.Logger
}

// Queue is a directory of equally sized segments named by start offset.
type Queue struct {
	dir      string
	fileSize int64
	fs       vfs.FS
	lg       *zap.Logger
	alloc    *allocator
	sparse   bool

	unsynced atomic.Int64 // sparse segments created and not yet made durable

	mu     sync.RWMutex
	files  []*MappedFile // sorted by start
	closed bool

	flushMu      sync.Mutex // one Flush at a time, so flushedWhere only grows
	flushedWhere atomic.Int64
}

// OpenQueue opens (creating it if needed) the segment directory dir and maps
// the segments in it. Leftover *.tmp files are removed, other names ignored.
// Every loaded segment starts out full; recovery trims them with Truncate.
func OpenQueue(dir string, fileSize int64, opts QueueOptions) (*Queue, error) {
	if fileSize <= 0 {
		return nil, fmt.Errorf("mmapfile: bad segment size %d for %s", fileSize, dir)
	}
	q := newQueue(dir, fileSize, opts)
	if !q.sparse {
		if err := vfs.MkdirAll(q.fs, dir); err != nil {
			return nil, fmt.Errorf("mmapfile: %w", err)
		}
	}
	if err := q.load(); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

func newQueue(dir string, fileSize int64, opts QueueOptions) *Queue {
	q := &Queue{dir: dir, fileSize: fileSize, fs: opts.FS, lg: opts.Logger, sparse: opts.Sparse}
	if q.fs == nil {
		q.fs = vfs.Default
	}
	if q.lg == nil {
		q.lg = zap.NewNop()
	}
	if opts.Preallocate {
		q.alloc = newAllocator(q)
	}
	return q
}

func (q *Queue) load() error {
	entries, err := q.fs.ReadDir(q.dir)
	if q.sparse && errors.Is(err, fs.ErrNotExist) {
		return nil // made with the first segment
	}
	if err != nil {
		return fmt.Errorf("mmapfile: read dir %s: %w", q.dir, err)
	}
	var starts []int64
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") {
			if err := q.fs.Remove(filepath.Join(q.dir, name)); err != nil {
				return fmt.Errorf("mmapfile: remove %s: %w", name, err)
			}
			continue
		}
		start, ok := ParseFileName(name)
		if !ok || e.IsDir() {
			q.lg.Warn("ignoring unexpected file in segment directory", zap.String("dir", q.dir), zap.String("name", name))
			continue
		}
		if start%q.fileSize != 0 {
			return fmt.Errorf("mmapfile: segment %s/%s does not start at a multiple of %d", q.dir, name, q.fileSize)
		}
		starts = append(starts, start)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	if n := len(starts); n > 0 {
		if err := q.extendShortLast(filepath.Join(q.dir, FileName(starts[n-1]))); err != nil {
			return err
		}
	}
	for _, s := range starts {
		f, err := Open(q.fs, filepath.Join(q.dir, FileName(s)), s, q.fileSize)
		if err != nil {
			return err
		}
		if q.sparse {
			f.SetAllocated(0) // which blocks it has is unknown: Reserve allocates from the end
		}
		q.files = append(q.files, f)
	}
	if n := len(q.files); n > 0 {
		q.flushedWhere.Store(q.files[n-1].End())
	}
	return nil
}

// extendShortLast gives the newest segment its full size again when it is
// shorter (a copy cut short, a file truncated by hand): the bytes past its end
// are gone either way, and as zeros recovery sees the end of the data there.
// A shorter segment before the newest is left for Open to refuse: extending it
// would make recovery drop every later segment.
func (q *Queue) extendShortLast(path string) error {
	st, err := q.fs.Stat(path)
	if err != nil {
		return fmt.Errorf("mmapfile: stat %s: %w", path, err)
	}
	if st.Size() >= q.fileSize {
		return nil
	}
	q.lg.Warn("newest segment is shorter than the segment size: extending it with zeros",
		zap.String("file", path), zap.Int64("size", st.Size()), zap.Int64("want", q.fileSize))
	f, err := q.fs.OpenReadWrite(path)
	if err != nil {
		return fmt.Errorf("mmapfile: open %s: %w", path, err)
	}
	if q.sparse {
		err = f.Truncate(q.fileSize) // a hole, as the rest of a sparse segment
	} else {
		err = vfs.Allocate(f, st.Size(), q.fileSize)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("mmapfile: extend %s to %d bytes: %w", path, q.fileSize, err)
	}
	return nil
}

// Start starts the preallocation goroutine, if configured.
func (q *Queue) Start() {
	if q.alloc != nil {
		q.alloc.start()
	}
}

// createFile makes the segment file starting at start.
func (q *Queue) createFile(start int64) (*MappedFile, error) {
	path := filepath.Join(q.dir, FileName(start))
	if !q.sparse {
		return Create(q.fs, path, start, q.fileSize)
	}
	if err := vfs.MkdirAllNoSync(q.fs, q.dir); err != nil {
		return nil, fmt.Errorf("mmapfile: %w", err)
	}
	f, err := CreateSparse(q.fs, path, start, q.fileSize)
	if err == nil {
		q.unsynced.Add(1)
	}
	return f, err
}

// Unsynced is how many sparse segments were created and not yet made
// durable (MarkSynced).
func (q *Queue) Unsynced() int64 { return q.unsynced.Load() }

// MarkSynced records that a SyncFS made n more of the created segments (and
// their directories) durable: pass the Unsynced read before the sync.
func (q *Queue) MarkSynced(n int64) { q.unsynced.Add(-min(n, q.unsynced.Load())) }

// SyncCreated makes the sparse segments created since the last sync durable
// one by one: an fsync of each, then of the queue's directory and of parents
// (the directories MkdirAllNoSync may have made above it), innermost first.
// For a few queues; many are cheaper with one SyncFS.
func (q *Queue) SyncCreated(parents ...string) error {
	n := q.unsynced.Load()
	if n == 0 {
		return nil
	}
	files := q.Files()
	for _, f := range files[len(files)-int(min(n, int64(len(files)))):] {
		if err := f.file.Sync(); err != nil {
			return fmt.Errorf("mmapfile: sync %s: %w", f.path, err)
		}
	}
	for _, dir := range append([]string{q.dir}, parents...) {
		if err := q.fs.SyncDir(dir); err != nil {
			return fmt.Errorf("mmapfile: %w", err)
		}
	}
	q.MarkSynced(n)
	return nil
}

// FS is the file system holding the segments.
func (q *Queue) FS() vfs.FS { return q.fs }

// Dir is the queue's directory.
func (q *Queue) Dir() string { return q.dir }

// FileSize is the size of every segment.
func (q *Queue) FileSize() int64 { return q.fileSize }

// Files returns a snapshot of the segments, oldest first.
func (q *Queue) Files() []*MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return append([]*MappedFile(nil), q.files...)
}

// Len is the number of segments.
func (q *Queue) Len() int {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return len(q.files)
}

// First is the oldest segment, nil if none.
func (q *Queue) First() *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if len(q.files) == 0 {
		return nil
	}
	return q.files[0]
}

// Last is the newest segment, nil if none.
func (q *Queue) Last() *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.lastLocked()
}

func (q *Queue) lastLocked() *MappedFile {
	if len(q.files) == 0 {
		return nil
	}
	return q.files[len(q.files)-1]
}

// MinOffset is the start of the oldest segment, 0 if none.
func (q *Queue) MinOffset() int64 {
	if f := q.First(); f != nil {
		return f.Start()
	}
	return 0
}

// MaxOffset is the end of the written data: the newest segment's start plus its
// written bytes, 0 if none.
func (q *Queue) MaxOffset() int64 {
	if f := q.Last(); f != nil {
		return f.Start() + f.Wrote()
	}
	return 0
}

// FlushedWhere is the offset up to which every segment is durable.
func (q *Queue) FlushedWhere() int64 { return q.flushedWhere.Load() }

// SetFlushedWhere sets the flushed offset (recovery).
func (q *Queue) SetFlushedWhere(off int64) { q.flushedWhere.Store(off) }

// Find returns the segment holding off, nil if none (the caller must Acquire it
// before reading, or use AcquireAt).
func (q *Queue) Find(off int64) *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	return q.findLocked(off)
}

func (q *Queue) findLocked(off int64) *MappedFile {
	i := sort.Search(len(q.files), func(i int) bool { return q.files[i].End() > off })
	if i < len(q.files) && q.files[i].Start() <= off {
		return q.files[i]
	}
	return nil
}

// AcquireAt returns the segment holding off with a reference taken, or nil.
func (q *Queue) AcquireAt(off int64) *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	f := q.findLocked(off)
	if f == nil || !f.Acquire() {
		return nil
	}
	return f
}

// NextFileStart is the start of the segment after the one holding off.
func (q *Queue) NextFileStart(off int64) int64 { return off - off%q.fileSize + q.fileSize }

// LastForWrite returns the newest segment if it has room, else creates the next
// one: the segment starting at the file boundary at or below start when the
// queue is empty, else the one after the newest.
func (q *Queue) LastForWrite(start int64) (*MappedFile, error) {
	q.mu.RLock()
	last := q.lastLocked()
	q.mu.RUnlock()
	if last != nil && !last.IsFull() {
		return last, nil
	}
	next := start - start%q.fileSize
	if last != nil {
		next = last.End()
	}
	return q.CreateAt(next)
}

// CreateAt adds a new segment starting at start (a multiple of the segment
// size past the newest segment) to the end of the queue.
func (q *Queue) CreateAt(start int64) (*MappedFile, error) {
	if start%q.fileSize != 0 {
		return nil, fmt.Errorf("mmapfile: segment start %d in %s is not a multiple of %d", start, q.dir, q.fileSize)
	}
	var f *MappedFile
	var err error
	if q.alloc != nil {
		f, err = q.alloc.take(start)
	}
	if f == nil && err == nil {
		f, err = q.createFile(start)
	}
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		f.Close()
		return nil, fmt.Errorf("mmapfile: create in %s: %w", q.dir, ErrClosed)
	}
	if last := q.lastLocked(); last != nil && last.Start() >= start {
		q.mu.Unlock()
		f.Close()
		return nil, fmt.Errorf("mmapfile: segment %d created after %d in %s", start, last.Start(), q.dir)
	}
	q.files = append(q.files, f)
	q.mu.Unlock()
	if q.alloc != nil {
		q.alloc.request(start + q.fileSize)
	}
	return f, nil
}

// Flush syncs the written bytes of every segment from FlushedWhere on and
// returns the new flushed offset. With leastPages > 0 it does nothing unless at
// least that many pages are dirty or a dirty segment is full. On error the
// flushed offset stays at the last fully synced byte.
func (q *Queue) Flush(leastPages int) (int64, error) {
	q.flushMu.Lock()
	defer q.flushMu.Unlock()
	where := q.flushedWhere.Load()
	if leastPages > 0 && !q.worthFlushing(where, leastPages) {
		return where, nil
	}
	for f := q.fileFrom(where); f != nil; f = q.fileFrom(where) {
		pos, err := f.Flush()
		if err != nil {
			return q.flushedWhere.Load(), err
		}
		where = f.Start() + pos
		if pos < f.Size() {
			if f != q.Last() {
				if f.Wrote() > pos {
					// Written to its end (a BLANK) while we synced, then
					// followed by a new segment: sync the rest of it.
					q.flushedWhere.Store(where)
					continue
				}
				where = f.End() // a hole (ConsumeQueue gap) before the next segment
				q.flushedWhere.Store(where)
				continue
			}
			q.flushedWhere.Store(where)
			break
		}
		q.flushedWhere.Store(where)
	}
	return where, nil
}

func (q *Queue) worthFlushing(where int64, leastPages int) bool {
	max := q.MaxOffset()
	if max-where >= int64(leastPages)*PageSize {
		return true
	}
	f := q.Find(where)
	return f != nil && f.IsFull() && f.Flushed() < f.Size()
}

// fileFrom returns the first segment that holds or follows off, nil if none.
func (q *Queue) fileFrom(off int64) *MappedFile {
	q.mu.RLock()
	defer q.mu.RUnlock()
	i := sort.Search(len(q.files), func(i int) bool { return q.files[i].End() > off })
	if i < len(q.files) {
		return q.files[i]
	}
	return nil
}

// Truncate cuts the queue at off: the segment holding off is zeroed from there
// and its positions set to it; segments after it are destroyed; segments before
// it are marked full and flushed. FlushedWhere becomes off.
func (q *Queue) Truncate(off int64) error { return q.cut(off, true) }

// SetEnd is Truncate without zeroing the rest of the segment holding off: for
// a queue known to hold only zeros past off (after a clean shutdown).
func (q *Queue) SetEnd(off int64) error { return q.cut(off, false) }

func (q *Queue) cut(off int64, zero bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	keep := q.files[:0:0]
	var errs []error
	removed := false
	for _, f := range q.files {
		switch {
		case f.End() <= off:
			f.SetPositions(f.Size(), f.Size())
			keep = append(keep, f)
		case f.Start() <= off:
			switch {
			case zero && q.sparse:
				errs = append(errs, f.cutSparse(off-f.Start()))
			case zero:
				errs = append(errs, f.ZeroFrom(off-f.Start()))
			default:
				f.SetPositions(off-f.Start(), off-f.Start())
			}
			keep = append(keep, f)
		default:
			q.lg.Info("removing segment past the recovered end", zap.String("file", f.Path()), zap.Int64("end", off))
			errs = append(errs, f.Destroy())
			removed = true
		}
	}
	q.files = keep
	q.flushedWhere.Store(off)
	if removed {
		errs = append(errs, q.fs.SyncDir(q.dir))
	}
	return errors.Join(errs...)
}

// DeleteFirst destroys segments from the oldest while pred holds, never the
// newest segment, at most max (≤ 0: no limit). It returns how many went.
func (q *Queue) DeleteFirst(max int, pred func(f *MappedFile) bool) (int, error) {
	gone, err := q.DeleteFirstFiles(max, pred)
	return len(gone), err
}

// DeleteFirstFiles is DeleteFirst returning the segments it destroyed: their
// mappings live on until the readers holding them release them (Refs > 0).
func (q *Queue) DeleteFirstFiles(max int, pred func(f *MappedFile) bool) ([]*MappedFile, error) {
	var victims []*MappedFile
	q.mu.RLock()
	for i := 0; i < len(q.files)-1 && (max <= 0 || i < max); i++ {
		if !pred(q.files[i]) {
			break
		}
		victims = append(victims, q.files[i])
	}
	q.mu.RUnlock()
	if len(victims) == 0 {
		return nil, nil
	}
	q.mu.Lock()
	// Only the oldest files are removed, and only this method removes from the
	// front, so the victims are still the prefix.
	n := 0
	for n < len(victims) && n < len(q.files)-1 && q.files[n] == victims[n] {
		n++
	}
	q.files = append(q.files[:0:0], q.files[n:]...)
	q.mu.Unlock()
	var errs []error
	for _, f := range victims[:n] {
		q.lg.Info("deleting segment", zap.String("file", f.Path()))
		if err := f.Destroy(); err != nil {
			errs = append(errs, err)
		}
	}
	return victims[:n], errors.Join(errs...)
}

// DeleteExpired destroys the oldest segments last modified before now-maxAge
// (all but the newest when force is set), at most max per call.
func (q *Queue) DeleteExpired(maxAge time.Duration, now time.Time, force bool, max int) (int, error) {
	return q.DeleteFirst(max, func(f *MappedFile) bool {
		if force {
			return true
		}
		st, err := q.fs.Stat(f.Path())
		return err == nil && st.ModTime().Add(maxAge).Before(now)
	})
}

// Close stops preallocation and closes every segment. Mappings still held by
// readers are unmapped when they are released.
func (q *Queue) Close() {
	if q.alloc != nil {
		q.alloc.close()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	for _, f := range q.files {
		f.Close()
	}
}

// Destroy closes the queue and removes its files and directory.
func (q *Queue) Destroy() error {
	files := q.Files()
	q.Close()
	var errs []error
	for _, f := range files {
		if err := f.Destroy(); err != nil {
			errs = append(errs, err)
		}
	}
	q.mu.Lock()
	q.files = nil
	q.mu.Unlock()
	if err := q.fs.RemoveAll(q.dir); err != nil {
		errs = append(errs, fmt.Errorf("mmapfile: remove %s: %w", q.dir, err))
	}
	return errors.Join(errs...)
}
