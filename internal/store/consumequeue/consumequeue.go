package consumequeue

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
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
}

// ConsumeQueue is the entry file queue of one topic queue.
type ConsumeQueue struct {
	topic    string
	queueID  int32
	q        *mmapfile.Queue
	fileSize int64
	lg       *zap.Logger

	mu        sync.Mutex   // writers: Put, Recover, Truncate, Delete
	minLogic  atomic.Int64 // byte position of the first live entry
	maxPhyEnd atomic.Int64 // CommitLog end of the newest non-blank entry
}

// Dir is the directory of a topic queue under root (the consumequeue directory).
func Dir(root, topic string, queueID int32) string {
	return filepath.Join(root, topic, strconv.Itoa(int(queueID)))
}

// Open maps the files of a topic queue under root. Call Recover before Put.
func Open(root, topic string, queueID int32, o Options) (*ConsumeQueue, error) {
	if o.EntriesPerFile <= 0 {
		o.EntriesPerFile = DefaultEntriesPerFile
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	lg := o.Logger.With(zap.String("topic", topic), zap.Int32("queueId", queueID))
	size := int64(o.EntriesPerFile) * EntrySize
	q, err := mmapfile.OpenQueue(Dir(root, topic, queueID), size, mmapfile.QueueOptions{FS: o.FS, Logger: lg})
	if err != nil {
		return nil, fmt.Errorf("consumequeue: open %s/%d: %w", topic, queueID, err)
	}
	return &ConsumeQueue{topic: topic, queueID: queueID, q: q, fileSize: size, lg: lg}, nil
}

// Topic is the queue's topic.
func (cq *ConsumeQueue) Topic() string { return cq.topic }

// QueueID is the queue's id.
func (cq *ConsumeQueue) QueueID() int32 { return cq.queueID }

// EntriesPerFile is how many entries a file holds.
func (cq *ConsumeQueue) EntriesPerFile() int64 { return cq.fileSize / EntrySize }

// MinOffset is the queue offset of the first live entry.
func (cq *ConsumeQueue) MinOffset() int64 { return cq.minLogic.Load() / EntrySize }

// MaxOffset is the queue offset the next entry gets (the entry count).
func (cq *ConsumeQueue) MaxOffset() int64 { return cq.q.MaxOffset() / EntrySize }

// MaxPhyOffset is the CommitLog end of the newest entry, 0 if none.
func (cq *ConsumeQueue) MaxPhyOffset() int64 { return cq.maxPhyEnd.Load() }

// RollNextFile is the first queue offset of the file after the one holding offset.
func (cq *ConsumeQueue) RollNextFile(offset int64) int64 {
	per := cq.EntriesPerFile()
	return offset + per - offset%per
}

// Put writes the entry for queue offset qoff. An entry already present is left
// alone; a gap before it is filled with blank entries.
func (cq *ConsumeQueue) Put(qoff int64, e Entry) error {
	if qoff < 0 {
		return fmt.Errorf("consumequeue: %s/%d: negative queue offset %d", cq.topic, cq.queueID, qoff)
	}
	cq.mu.Lock()
	defer cq.mu.Unlock()
	pos := qoff * EntrySize
	cur := cq.q.MaxOffset()
	if cq.q.Len() == 0 {
		cur = pos - pos%cq.fileSize
		if pos > 0 {
			cq.lg.Info("queue starts past offset 0: pre-filling blanks", zap.Int64("offset", qoff))
		}
		cq.minLogic.Store(pos)
	}
	if pos < cur {
		return nil // already present: re-dispatch after recovery
	}
	if pos > cur && cq.q.Len() > 0 {
		cq.lg.Warn("gap in consume queue: filling blanks", zap.Int64("from", cur/EntrySize), zap.Int64("to", qoff))
	}
	if err := cq.fillTo(cur, pos); err != nil {
		return err
	}
	if err := cq.append(e); err != nil {
		return err
	}
	if !e.IsBlank() {
		cq.maxPhyEnd.Store(e.End())
	}
	return nil
}

// fillTo writes blank entries from cur up to pos, creating the file of pos and
// skipping files wholly inside the gap. REQUIRES: cq.mu.
func (cq *ConsumeQueue) fillTo(cur, pos int64) error {
	for cur < pos {
		last := cq.q.Last()
		if last == nil || cur >= last.End() {
			start := cur
			if pos-pos%cq.fileSize > cur {
				start = pos - pos%cq.fileSize // skip whole files of the gap
			}
			if _, err := cq.q.CreateAt(start); err != nil {
				return fmt.Errorf("consumequeue: %s/%d: %w", cq.topic, cq.queueID, err)
			}
			cur = start
			continue
		}
		if err := cq.append(Blank); err != nil {
			return err
		}
		cur += EntrySize
	}
	return nil
}

// append writes e after the last entry. REQUIRES: cq.mu.
func (cq *ConsumeQueue) append(e Entry) error {
	f, err := cq.q.LastForWrite(cq.q.MaxOffset())
	if err != nil {
		return fmt.Errorf("consumequeue: %s/%d: %w", cq.topic, cq.queueID, err)
	}
	return mmapfile.CatchFault(func() error {
		putEntry(f.Tail(), e)
		f.SetWrote(f.Wrote() + EntrySize)
		return nil
	})
}

// Entries is a run of consecutive entries from one file, held by a reference
// on that file until Release.
type Entries struct {
	f     *mmapfile.MappedFile
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
}

// Entries returns the written entries from qoff to the end of its file. It
// reports false when qoff's file is missing or qoff is not written yet.
func (cq *ConsumeQueue) Entries(qoff int64) (Entries, bool) {
	pos := qoff * EntrySize
	if qoff < 0 {
		return Entries{}, false
	}
	f := cq.q.AcquireAt(pos)
	if f == nil {
		return Entries{}, false
	}
	rel, w := pos-f.Start(), f.Wrote()
	if rel >= w {
		f.Release()
		return Entries{}, false
	}
	return Entries{f: f, b: f.Bytes(rel, w-rel), first: qoff}, true
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

// Flush syncs written entries when at least leastPages pages are dirty (0: all).
func (cq *ConsumeQueue) Flush(leastPages int) error {
	if _, err := cq.q.Flush(leastPages); err != nil {
		return fmt.Errorf("consumequeue: flush %s/%d: %w", cq.topic, cq.queueID, err)
	}
	return nil
}

// Close unmaps the files (after readers release them).
func (cq *ConsumeQueue) Close() { cq.q.Close() }

// Destroy removes the queue's files and directory.
func (cq *ConsumeQueue) Destroy() error {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	return cq.q.Destroy()
}

// Size is the disk space the queue's files take.
func (cq *ConsumeQueue) Size() int64 { return int64(cq.q.Len()) * cq.fileSize }

// DurableBelow is the CommitLog offset below which every record this queue
// indexes has a durable entry, capped at limit: limit when every written entry
// is flushed, else the offset of the first non-blank entry not yet flushed.
func (cq *ConsumeQueue) DurableBelow(limit int64) int64 {
	pos := max(cq.q.FlushedWhere(), cq.q.MinOffset())
	for pos < cq.q.MaxOffset() {
		e, ok := cq.Get(pos / EntrySize)
		if !ok {
			return 0 // cannot tell: assume nothing is durable
		}
		if !e.IsBlank() {
			return min(limit, e.Offset)
		}
		pos += EntrySize
	}
	return limit
}

// Holds reports whether the entry for qoff is stored: below the end, in a file
// that exists.
func (cq *ConsumeQueue) Holds(qoff int64) bool {
	return qoff >= 0 && qoff < cq.MaxOffset() && cq.q.Find(qoff*EntrySize) != nil
}
