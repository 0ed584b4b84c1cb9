package consumequeue

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

// EntrySize is the size of one entry.
const EntrySize = 20

// DefaultEntriesPerFile is Java's mappedFileSizeConsumeQueue / 20.
const DefaultEntriesPerFile = 300_000

// Entry is one ConsumeQueue entry.
type Entry struct {
	Offset   int64 // CommitLog offset
	Size     int32
	TagsCode int64
}

// Blank is the filler entry of pre-filled and gap positions.
var Blank = Entry{Offset: 0, Size: math.MaxInt32, TagsCode: 0}

// IsBlank reports whether e is a filler entry.
func (e Entry) IsBlank() bool { return e == Blank }

// End is the CommitLog offset just past the entry's record.
func (e Entry) End() int64 { return e.Offset + int64(e.Size) }

func putEntry(b []byte, e Entry) {
	binary.BigEndian.PutUint64(b, uint64(e.Offset))
	binary.BigEndian.PutUint32(b[8:], uint32(e.Size))
	binary.BigEndian.PutUint64(b[12:], uint64(e.TagsCode))
}

func readEntry(b []byte) Entry {
	return Entry{
		Offset:   int64(binary.BigEndian.Uint64(b)),
		Size:     int32(binary.BigEndian.Uint32(b[8:])),
		TagsCode: int64(binary.BigEndian.Uint64(b[12:])),
	}
}

// Options configure a ConsumeQueue.
type Options struct {
	EntriesPerFile int    // 0 means DefaultEntriesPerFile
	FS             vfs.FS // nil means vfs.Default
	Logger         *zap.Logger
	// Residency caps the files mapped by the queues sharing it; nil: no cap.
	Residency *Residency
	// WriteThrough writes entries with pwrite instead of storing them to the
	// mapping (SYNC_FLUSH stores): a flush of pages dirtied through a mapping
	// is slow on ext4 and holds up the journal every CommitLog sync waits for.
	WriteThrough bool
}

// noDirty is dirtyPhy when every entry is flushed.
const noDirty = -1

// ConsumeQueue is the entry file queue of one topic queue. Its files are
// sparse (mmapfile.QueueOptions.Sparse): blocks are allocated as entries are
// written, a little ahead of them, and the queue may be closed to make room
// under its Residency and mapped again on demand.
type ConsumeQueue struct {
	topic     string
	queueID   int32
	dir       string
	fileSize  int64
	fs        vfs.FS
	lg        *zap.Logger
	residency *Residency // nil: no cap
	viaFile   bool       // Options.WriteThrough

	mu sync.Mutex // writers (Put, Recover, Truncate, Delete), mapping and closing
	// entry is the encoding of the entry being appended. REQUIRES mu.
	entry [EntrySize]byte
	// res guards q, st and dirtyPhy: readers take file references under its
	// read lock; q changes under mu and res.
	res sync.RWMutex
	q   *mmapfile.Queue // nil while closed to make room
	st  mmapfile.QueueState
	// dirtyPhy, while closed: the CommitLog offset of the first unflushed
	// non-blank entry, noDirty if none.
	dirtyPhy int64
	slot     int         // index in residency's ring, -1 when not there; REQUIRES residency.mu
	used     atomic.Bool // used since the CLOCK sweep last passed

	minLogic  atomic.Int64 // byte position of the first live entry
	end       atomic.Int64 // byte position past the last entry (mirrors q)
	maxPhyEnd atomic.Int64 // CommitLog end of the newest non-blank entry
	// minFor is the CommitLog min offset minLogic was last corrected for, -1
	// when it must be corrected again. REQUIRES mu.
	minFor int64
}

// Dir is the directory of a topic queue under root (the consumequeue directory).
func Dir(root, topic string, queueID int32) string {
	return filepath.Join(root, topic, strconv.Itoa(int(queueID)))
}

// Open maps the files of a topic queue under root (none, and no directory,
// for a new queue: both are made with its first entry). Call Recover before
// Put.
func Open(root, topic string, queueID int32, o Options) (*ConsumeQueue, error) {
	cq := newConsumeQueue(root, topic, queueID, o)
	q, err := mmapfile.OpenQueue(cq.dir, cq.fileSize, cq.queueOptions())
	if err != nil {
		return nil, fmt.Errorf("consumequeue: open %s/%d: %w", topic, queueID, err)
	}
	cq.mu.Lock()
	defer cq.mu.Unlock()
	cq.q = q
	cq.publishLocked(q)
	cq.used.Store(true)
	if cq.residency != nil {
		cq.residency.admit(cq, q.Len())
	}
	return cq, nil
}

func newConsumeQueue(root, topic string, queueID int32, o Options) *ConsumeQueue {
	if o.EntriesPerFile <= 0 {
		o.EntriesPerFile = DefaultEntriesPerFile
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return &ConsumeQueue{
		topic: topic, queueID: queueID, dir: Dir(root, topic, queueID),
		fileSize: int64(o.EntriesPerFile) * EntrySize, fs: o.FS, lg: o.Logger, residency: o.Residency,
		viaFile: o.WriteThrough, dirtyPhy: noDirty, slot: -1, minFor: -1,
	}
}

func (cq *ConsumeQueue) queueOptions() mmapfile.QueueOptions {
	return mmapfile.QueueOptions{Sparse: true, FS: cq.fs, Logger: cq.lg}
}

// logger is the queue's logger; fields are added per message, not kept per
// queue (a zap child logger costs about a kilobyte, times tens of thousands).
func (cq *ConsumeQueue) logger() *zap.Logger { return cq.lg }

func (cq *ConsumeQueue) fields() []zap.Field {
	return []zap.Field{zap.String("topic", cq.topic), zap.Int32("queueId", cq.queueID)}
}

// publishLocked mirrors q's end for lock-free readers. REQUIRES cq.mu.
func (cq *ConsumeQueue) publishLocked(q *mmapfile.Queue) { cq.end.Store(q.MaxOffset()) }

// Topic is the queue's topic.
func (cq *ConsumeQueue) Topic() string { return cq.topic }

// QueueID is the queue's id.
func (cq *ConsumeQueue) QueueID() int32 { return cq.queueID }

// EntriesPerFile is how many entries a file holds.
func (cq *ConsumeQueue) EntriesPerFile() int64 { return cq.fileSize / EntrySize }

// MinOffset is the queue offset of the first live entry.
func (cq *ConsumeQueue) MinOffset() int64 { return cq.minLogic.Load() / EntrySize }

// MaxOffset is the queue offset the next entry gets (the entry count).
func (cq *ConsumeQueue) MaxOffset() int64 { return cq.end.Load() / EntrySize }

// MaxPhyOffset is the CommitLog end of the newest entry, 0 if none.
func (cq *ConsumeQueue) MaxPhyOffset() int64 { return cq.maxPhyEnd.Load() }

// RollNextFile is the first queue offset of the file after the one holding offset.
func (cq *ConsumeQueue) RollNextFile(offset int64) int64 {
	per := cq.EntriesPerFile()
	return offset + per - offset%per
}

// Put writes the entry for queue offset qoff. An entry already present is left
// alone; a gap before it is filled with blank entries. A failure (a full disk
// when a file or a block is allocated) writes nothing for qoff: Put it again.
func (cq *ConsumeQueue) Put(qoff int64, e Entry) error {
	if qoff < 0 {
		return fmt.Errorf("consumequeue: %s/%d: negative queue offset %d", cq.topic, cq.queueID, qoff)
	}
	cq.mu.Lock()
	defer cq.mu.Unlock()
	q, err := cq.resident()
	if err != nil {
		return err
	}
	defer cq.publishLocked(q)
	pos := qoff * EntrySize
	cur := q.MaxOffset()
	if q.Len() == 0 {
		cur = pos - pos%cq.fileSize
		if pos > 0 {
			cq.logger().Info("queue starts past offset 0: pre-filling blanks", append(cq.fields(), zap.Int64("offset", qoff))...)
		}
		cq.minLogic.Store(pos)
	}
	if pos < cur {
		return nil // already present: re-dispatch after recovery
	}
	if pos > cur && q.Len() > 0 {
		cq.logger().Warn("gap in consume queue: filling blanks",
			append(cq.fields(), zap.Int64("from", cur/EntrySize), zap.Int64("to", qoff))...)
	}
	if err := cq.fillTo(q, cur, pos); err != nil {
		return err
	}
	if err := cq.append(q, e); err != nil {
		return err
	}
	if !e.IsBlank() {
		cq.maxPhyEnd.Store(e.End())
	}
	return nil
}

// fillTo writes blank entries from cur up to pos, creating the file of pos and
// skipping files wholly inside the gap. REQUIRES: cq.mu.
func (cq *ConsumeQueue) fillTo(q *mmapfile.Queue, cur, pos int64) error {
	for cur < pos {
		last := q.Last()
		if last == nil || cur >= last.End() {
			start := cur
			if pos-pos%cq.fileSize > cur {
				start = pos - pos%cq.fileSize // skip whole files of the gap
			}
			if err := cq.createFile(q, start); err != nil {
				return err
			}
			cur = start
			continue
		}
		if err := cq.append(q, Blank); err != nil {
			return err
		}
		cur += EntrySize
	}
	return nil
}

// createFile adds the file starting at start. REQUIRES: cq.mu.
func (cq *ConsumeQueue) createFile(q *mmapfile.Queue, start int64) error {
	if _, err := q.CreateAt(start); err != nil {
		return fmt.Errorf("consumequeue: %s/%d: %w", cq.topic, cq.queueID, err)
	}
	if cq.residency != nil {
		cq.residency.grow(cq, 1)
	}
	return nil
}

// append writes e after the last entry, allocating its block first.
// REQUIRES: cq.mu.
func (cq *ConsumeQueue) append(q *mmapfile.Queue, e Entry) error {
	f := q.Last()
	if f == nil || f.IsFull() {
		next := int64(0)
		if f != nil {
			next = f.End()
		}
		if err := cq.createFile(q, next); err != nil {
			return err
		}
		f = q.Last()
	}
	if err := f.Reserve(f.Wrote() + EntrySize); err != nil {
		return fmt.Errorf("consumequeue: %s/%d: %w", cq.topic, cq.queueID, err)
	}
	if !cq.viaFile {
		return mmapfile.CatchFault(func() error {
			putEntry(f.Tail(), e)
			f.SetWrote(f.Wrote() + EntrySize)
			return nil
		})
	}
	putEntry(cq.entry[:], e)
	if err := f.WriteTail(cq.entry[:]); err != nil {
		return fmt.Errorf("consumequeue: %s/%d: %w", cq.topic, cq.queueID, err)
	}
	f.SetWrote(f.Wrote() + EntrySize)
	return nil
}

// Entries is a run of consecutive entries from one file, held by a reference
// on that file until Release.
type Entries struct {
	f     *mmapfile.MappedFile
	buf   *[]byte // read from a closed queue: a pooled copy instead of a mapping
	b     []byte
	first int64
}

// Len is the number of entries.
func (es Entries) Len() int { return len(es.b) / EntrySize }

// First is the queue offset of entry 0.
func (es Entries) First() int64 { return es.first }

// At returns entry i.
func (es Entries) At(i int) Entry { return readEntry(es.b[i*EntrySize:]) }

// Release drops the file reference.
func (es Entries) Release() {
	if es.f != nil {
		es.f.Release()
	}
	if es.buf != nil {
		putBuf(es.buf)
	}
}

// Entries returns the written entries from qoff to the end of its file (at
// most about 3,000 from a closed queue). It reports false when qoff's file is
// missing or qoff is not written yet. A queue closed to make room is read with
// pread the first time and mapped again if it is read again before the CLOCK
// sweep passes, so one look at each of many idle queues does not churn the
// mappings.
func (cq *ConsumeQueue) Entries(qoff int64) (Entries, bool) {
	pos := qoff * EntrySize
	end := cq.end.Load()
	if qoff < 0 || pos >= end {
		return Entries{}, false
	}
	f, resident := cq.acquireResident(pos)
	if !resident {
		if es, ok, done := cq.readClosed(qoff); done {
			return es, ok
		}
		f = cq.acquireAt(pos)
	}
	if f == nil {
		return Entries{}, false
	}
	// A Put writes the file before it publishes end: read no further than
	// end, or a reader would see an entry MaxOffset does not count yet.
	rel, w := pos-f.Start(), min(f.Wrote(), end-f.Start())
	if rel >= w {
		f.Release()
		return Entries{}, false
	}
	return Entries{f: f, b: f.Bytes(rel, w-rel), first: qoff}, true
}

// readClosed reads the entries from qoff of a queue that is closed and was
// not read since the sweep passed; done is false when the queue must be
// mapped instead.
func (cq *ConsumeQueue) readClosed(qoff int64) (es Entries, ok, done bool) {
	cq.res.RLock()
	defer cq.res.RUnlock()
	if cq.q != nil || cq.used.Swap(true) {
		return Entries{}, false, false
	}
	pos := qoff * EntrySize
	start := pos - pos%cq.fileSize
	if !slices.Contains(cq.st.Starts, start) {
		return Entries{}, false, true
	}
	buf := getBuf()
	n := min(int64(len(*buf)), start+cq.fileSize-pos, cq.st.End-pos)
	b, err := cq.readAt(start, (*buf)[:n], pos-start)
	if err != nil || len(b) == 0 {
		putBuf(buf)
		if err != nil {
			cq.logger().Error("reading a closed consume queue", append(cq.fields(), zap.Error(err))...)
		}
		return Entries{}, false, true
	}
	return Entries{buf: buf, b: b, first: qoff}, true, true
}

// readAt reads the file starting at start into b at rel (whole entries).
func (cq *ConsumeQueue) readAt(start int64, b []byte, rel int64) ([]byte, error) {
	f, err := cq.fsys().Open(filepath.Join(cq.dir, mmapfile.FileName(start)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := f.ReadAt(b, rel)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return b[:n-n%EntrySize], err
}

// acquireResident is acquireAt's fast path: the file holding pos with a
// reference taken, when the queue is mapped (resident reports that).
func (cq *ConsumeQueue) acquireResident(pos int64) (f *mmapfile.MappedFile, resident bool) {
	cq.res.RLock()
	q := cq.q
	if q != nil {
		f = q.AcquireAt(pos)
	}
	cq.res.RUnlock()
	if q != nil {
		cq.touch()
	}
	return f, q != nil
}

// acquireAt returns the file holding byte position pos with a reference
// taken, mapping the queue again if it was closed to make room; nil if there
// is none.
func (cq *ConsumeQueue) acquireAt(pos int64) *mmapfile.MappedFile {
	for {
		cq.res.RLock()
		if q := cq.q; q != nil {
			f := q.AcquireAt(pos)
			cq.res.RUnlock()
			cq.touch()
			return f
		}
		cq.res.RUnlock()
		cq.mu.Lock()
		_, err := cq.resident()
		cq.mu.Unlock()
		if err != nil {
			cq.logger().Error("mapping a consume queue again failed", append(cq.fields(), zap.Error(err))...)
			return nil
		}
	}
}

// Get returns the entry at qoff.
func (cq *ConsumeQueue) Get(qoff int64) (Entry, bool) {
	es, ok := cq.Entries(qoff)
	if !ok {
		return Entry{}, false
	}
	defer es.Release()
	var e Entry
	err := mmapfile.CatchFault(func() error { e = es.At(0); return nil })
	return e, err == nil
}

// Close unmaps the files (after readers release them).
func (cq *ConsumeQueue) Close() {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	cq.closeLocked()
}

// closeLocked closes the files and leaves the cap. REQUIRES: cq.mu.
func (cq *ConsumeQueue) closeLocked() {
	q := cq.q
	if q == nil {
		return
	}
	if cq.residency != nil {
		cq.residency.leave(cq, q.Len())
	}
	q.Close()
}

// Destroy removes the queue's files and directory.
func (cq *ConsumeQueue) Destroy() error {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	q, err := cq.resident()
	if err != nil {
		return err
	}
	if cq.residency != nil {
		cq.residency.leave(cq, q.Len())
	}
	return q.Destroy()
}

// Holds reports whether the entry for qoff is stored: below the end, in a file
// that exists.
func (cq *ConsumeQueue) Holds(qoff int64) bool {
	if qoff < 0 || qoff >= cq.MaxOffset() {
		return false
	}
	pos := qoff * EntrySize
	cq.res.RLock()
	defer cq.res.RUnlock()
	if cq.q != nil {
		return cq.q.Find(pos) != nil
	}
	start := pos - pos%cq.fileSize
	return slices.Contains(cq.st.Starts, start)
}
