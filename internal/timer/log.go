package timer

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// DefaultSegmentSize is a timer log segment's size when none is configured (Apache's
// mappedFileSizeTimerLog).
const DefaultSegmentSize = 100 << 20

// writeBatch is how many bytes of appended records the log holds before writing them.
const writeBatch = 64 << 10

// readBlock is the unit the log reads (and caches) when it follows a chain of records.
const readBlock = 4096

// Log is the timer log: records in preallocated segments named by the position of their first
// byte (20 digits). Positions are global: a record's position is its segment's base plus its
// offset in it; records never span segments. Appends are buffered up to writeBatch bytes and
// written with pwrite; nothing is mapped, so the log's pages are page cache and not the
// process's memory. A Log is not safe for concurrent use.
type Log struct {
	fs      vfs.FS
	dir     string
	segSize int64
	segs    []segment // ascending base
	end     int64     // position of the next record; appended records are below it
	pend    []byte    // appended records not yet written: positions [end-len(pend), end)
	synced  int64     // records below it are fsynced
	cache   cachedBlock
	buf     [RecordSize]byte
}

type segment struct {
	base int64
	f    vfs.File
}

// cachedBlock is the last block Read fetched; bytes at and past valid were not yet written.
type cachedBlock struct {
	base  int64
	valid int64
	b     []byte
}

// OpenLog opens (or creates) the log under dir with segments of segSize bytes (a multiple of
// RecordSize; 0 means DefaultSegmentSize). It does not read the records: Recover does, and
// must be called before anything is appended.
func OpenLog(fsys vfs.FS, dir string, segSize int64) (*Log, error) {
	if segSize == 0 {
		segSize = DefaultSegmentSize
	}
	if segSize < readBlock || segSize%readBlock != 0 {
		return nil, fmt.Errorf("timer: log segment size %d is not a positive multiple of %d", segSize, readBlock)
	}
	if err := vfs.MkdirAll(fsys, dir); err != nil {
		return nil, fmt.Errorf("timer: open log: %w", err)
	}
	l := &Log{fs: fsys, dir: dir, segSize: segSize}
	if err := l.loadSegments(); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// loadSegments opens every segment file and removes an interrupted segment creation.
func (l *Log) loadSegments() error {
	ents, err := l.fs.ReadDir(l.dir)
	if err != nil {
		return fmt.Errorf("timer: list %s: %w", l.dir, err)
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, vfs.TempSuffix) {
			if err := vfs.RemoveSynced(l.fs, filepath.Join(l.dir, name)); err != nil {
				return err
			}
			continue
		}
		base, err := strconv.ParseInt(name, 10, 64)
		if err != nil || len(name) != 20 || base%l.segSize != 0 {
			return fmt.Errorf("timer: %s: not a log segment of %d bytes", filepath.Join(l.dir, name), l.segSize)
		}
		f, err := l.fs.OpenReadWrite(filepath.Join(l.dir, name))
		if err != nil {
			return fmt.Errorf("timer: open log segment: %w", err)
		}
		l.segs = append(l.segs, segment{base: base, f: f})
	}
	return nil
}

// segmentName is the file name of the segment starting at base.
func segmentName(base int64) string { return fmt.Sprintf("%020d", base) }

// ErrEndHere, returned by Recover's replay function, ends the log before the record it was
// called with.
var ErrEndHere = errors.New("timer: end the log here")

// Recover reads the records from position from on, calling replay for each valid one in order,
// and makes the log end after the last of them (or before the one replay returned ErrEndHere
// for): the rest of that segment is zeroed and later
// segments are removed, so that records written before a crash past a damaged one can never
// reappear after the next. From is rounded down to a record boundary; when it lies below the
// oldest segment, reading starts there. It returns the end.
func (l *Log) Recover(from int64, replay func(pos int64, r Record) error) (int64, error) {
	from -= from % RecordSize
	if len(l.segs) == 0 || from >= l.segs[len(l.segs)-1].base+l.segSize {
		l.end, l.synced = from, from
		return from, l.dropFrom(from)
	}
	from = max(from, l.segs[0].base)
	end, err := l.scan(from, replay)
	if err != nil {
		return 0, err
	}
	l.end, l.synced = end, end
	if err := l.zeroTail(end); err != nil {
		return 0, err
	}
	return end, l.dropFrom(end)
}

// scan replays the valid records from from on and returns the position after the last.
func (l *Log) scan(from int64, replay func(pos int64, r Record) error) (int64, error) {
	buf := make([]byte, writeBatch)
	pos := from
	for {
		seg, ok := l.segmentAt(pos)
		if !ok {
			return pos, nil
		}
		n := min(int64(len(buf)), seg.base+l.segSize-pos)
		m, err := seg.f.ReadAt(buf[:n], pos-seg.base)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("timer: read log at %d: %w", pos, err)
		}
		for off := 0; off+RecordSize <= m; off += RecordSize {
			r, err := decodeRecord(buf[off:])
			if err != nil {
				return pos, nil
			}
			if err := replay(pos, r); errors.Is(err, ErrEndHere) {
				return pos, nil
			} else if err != nil {
				return 0, err
			}
			pos += RecordSize
		}
		if int64(m) < n {
			return pos, nil
		}
	}
}

// zeroTail zeroes the segment holding end from end to its last byte.
func (l *Log) zeroTail(end int64) error {
	seg, ok := l.segmentAt(end)
	if !ok {
		return nil
	}
	off, n := end-seg.base, l.segSize-(end-seg.base)
	err := seg.f.ZeroRange(off, n)
	if errors.Is(err, vfs.ErrUnsupported) {
		_, err = seg.f.WriteAt(make([]byte, n), off)
	}
	if err == nil {
		err = seg.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("timer: clear the log after %d: %w", end, err)
	}
	return nil
}

// dropFrom removes the segments that start past the segment holding end.
func (l *Log) dropFrom(end int64) error {
	keep := len(l.segs)
	for keep > 0 && l.segs[keep-1].base > end-end%l.segSize {
		keep--
	}
	for _, s := range l.segs[keep:] {
		s.f.Close()
		if err := vfs.RemoveSynced(l.fs, filepath.Join(l.dir, segmentName(s.base))); err != nil {
			return err
		}
	}
	l.segs = l.segs[:keep]
	return nil
}

// segmentAt returns the segment holding pos.
func (l *Log) segmentAt(pos int64) (segment, bool) {
	for i := len(l.segs) - 1; i >= 0; i-- {
		s := l.segs[i]
		if pos >= s.base {
			return s, pos < s.base+l.segSize
		}
	}
	return segment{}, false
}

// End is the position the next record will have.
func (l *Log) End() int64 { return l.end }

// Append adds r at the end and returns its position. The record is readable at once; it reaches
// the file by Flush (or when writeBatch bytes are pending) and the disk by Sync.
func (l *Log) Append(r *Record) (int64, error) {
	pos := l.end
	if _, ok := l.segmentAt(pos); !ok {
		if err := l.Flush(); err != nil {
			return 0, err
		}
		if err := l.createSegment(pos - pos%l.segSize); err != nil {
			return 0, err
		}
	}
	r.encode(l.buf[:])
	l.pend = append(l.pend, l.buf[:]...)
	l.end += RecordSize
	if len(l.pend) >= writeBatch || l.end%l.segSize == 0 {
		if err := l.Flush(); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

// createSegment creates the preallocated segment starting at base.
func (l *Log) createSegment(base int64) error {
	f, err := vfs.CreateAllocated(l.fs, filepath.Join(l.dir, segmentName(base)), l.segSize)
	if err != nil {
		return fmt.Errorf("timer: new log segment: %w", err)
	}
	l.segs = append(l.segs, segment{base: base, f: f})
	return nil
}

// Flush writes the pending records to their segment.
func (l *Log) Flush() error {
	if len(l.pend) == 0 {
		return nil
	}
	start := l.end - int64(len(l.pend))
	seg, ok := l.segmentAt(start)
	if !ok {
		return fmt.Errorf("timer: no log segment for position %d", start)
	}
	if _, err := seg.f.WriteAt(l.pend, start-seg.base); err != nil {
		return fmt.Errorf("timer: write log at %d: %w", start, err)
	}
	l.pend = l.pend[:0]
	return nil
}

// Sync writes the pending records and fsyncs every segment written since the last Sync.
func (l *Log) Sync() error {
	if err := l.Flush(); err != nil {
		return err
	}
	for _, s := range l.segs {
		if s.base+l.segSize <= l.synced || s.base >= l.end || l.synced == l.end {
			continue
		}
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("timer: sync log segment %d: %w", s.base, err)
		}
	}
	l.synced = l.end
	return nil
}

// Read returns the record at pos.
func (l *Log) Read(pos int64) (Record, error) {
	if pos < 0 || pos%RecordSize != 0 || pos+RecordSize > l.end {
		return Record{}, fmt.Errorf("timer: no record at %d (log end %d)", pos, l.end)
	}
	if start := l.end - int64(len(l.pend)); pos >= start {
		return decodeRecord(l.pend[pos-start:])
	}
	b, err := l.cached(pos)
	if err != nil {
		return Record{}, err
	}
	r, err := decodeRecord(b)
	if err != nil {
		return Record{}, fmt.Errorf("timer: record at %d: %w", pos, err)
	}
	return r, nil
}

// cached returns the written bytes of the record at pos, reading its block when needed.
func (l *Log) cached(pos int64) ([]byte, error) {
	c := &l.cache
	if c.b != nil && pos >= c.base && pos+RecordSize <= c.valid {
		return c.b[pos-c.base:], nil
	}
	seg, ok := l.segmentAt(pos)
	if !ok {
		return nil, fmt.Errorf("timer: no log segment holds %d", pos)
	}
	if c.b == nil {
		c.b = make([]byte, readBlock)
	}
	c.base = pos - pos%readBlock
	c.valid = min(c.base+readBlock, l.end-int64(len(l.pend)))
	if _, err := seg.f.ReadAt(c.b[:c.valid-c.base], c.base-seg.base); err != nil {
		c.b, c.valid = nil, 0
		return nil, fmt.Errorf("timer: read log at %d: %w", pos, err)
	}
	return c.b[pos-c.base:], nil
}

// Oldest is the position of the first byte the log still holds.
func (l *Log) Oldest() int64 {
	if len(l.segs) == 0 {
		return l.end
	}
	return l.segs[0].base
}

// DropBelow removes the segments that end at or below pos, except the one being written.
func (l *Log) DropBelow(pos int64) (int, error) {
	n := 0
	for len(l.segs) > 1 && l.segs[0].base+l.segSize <= min(pos, l.end-l.end%l.segSize) {
		s := l.segs[0]
		s.f.Close()
		if err := vfs.RemoveSynced(l.fs, filepath.Join(l.dir, segmentName(s.base))); err != nil {
			return n, err
		}
		l.segs = l.segs[1:]
		n++
	}
	if l.cache.b != nil && l.cache.base < l.Oldest() {
		l.cache.valid = 0
	}
	return n, nil
}

// Close writes the pending records and closes the segments (without fsync).
func (l *Log) Close() error {
	err := l.Flush()
	for _, s := range l.segs {
		err = errors.Join(err, s.f.Close())
	}
	l.segs = nil
	return err
}
