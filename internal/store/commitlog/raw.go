package commitlog

import (
	"errors"
	"fmt"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// ErrNotAtEnd reports raw bytes offered at an offset other than the end of the
// log: a slave whose log does not continue where the master's data starts.
var ErrNotAtEnd = errors.New("commitlog: raw data does not start at the end of the log")

// ReadRaw returns the log's bytes from off up to the readable end (see
// ReadableOffset) of the segment holding off, at most max of them, as a slice
// of the mapping. The segment is returned with a reference taken: the caller
// releases it once done with the slice. It returns nil, nil when there is
// nothing readable at off (off at the end, past it, or below the log's start).
// A master's replication reads through it: a slave gets only what a consumer
// of the master could read, the durable data under SYNC_FLUSH.
func (c *CommitLog) ReadRaw(off int64, max int) ([]byte, *mmapfile.MappedFile) {
	limit := c.ReadableOffset()
	if off < 0 || off >= limit || max <= 0 {
		return nil, nil
	}
	f := c.AcquireAt(off)
	if f == nil {
		return nil, nil
	}
	pos := off - f.Start()
	n := min(f.Wrote(), limit-f.Start()) - pos
	n = min(n, int64(max))
	if n <= 0 {
		f.Release()
		return nil, nil
	}
	return f.Bytes(pos, n), f
}

// AppendRaw copies data, CommitLog bytes replicated from a master, into the log
// at off. off must be the end of the log, or, when the log is empty, the start
// of a segment: a slave's log is a byte-for-byte copy of its master's from the
// first segment it received. Segments are created as for puts; data may run
// into the next segment. The flusher and the dispatcher are woken as for a put
// that does not wait; AppendRaw never waits for durability.
func (c *CommitLog) AppendRaw(off int64, data []byte) error {
	if r, refused := c.refuse(); refused {
		return r.Err
	}
	if len(data) == 0 {
		return nil
	}
	c.mu.Lock()
	end, empty := c.q.MaxOffset(), c.q.Last() == nil
	switch {
	case empty && off%c.opts.SegmentSize != 0:
		c.mu.Unlock()
		return fmt.Errorf("%w: the log is empty and %d is not the start of a segment of %d bytes", ErrNotAtEnd, off, c.opts.SegmentSize)
	case !empty && off != end:
		c.mu.Unlock()
		return fmt.Errorf("%w: offered at %d, the log ends at %d", ErrNotAtEnd, off, end)
	}
	err := c.copyRawLocked(off, data)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if c.opts.FlushType == AsyncFlush {
		c.signalReadable()
	}
	c.flusher.wait(off+int64(len(data)), false)
	return nil
}

// copyRawLocked writes data at off, the end of the log, segment by segment.
// REQUIRES: c.mu.
func (c *CommitLog) copyRawLocked(off int64, data []byte) error {
	for len(data) > 0 {
		f, err := c.q.LastForWrite(off)
		if err != nil {
			return createFailed(err)
		}
		n, err := c.mu.w.raw(f, data)
		if err != nil {
			c.poisonWith(fmt.Errorf("commitlog: write replicated data at %d: %w", off, err))
			return err
		}
		off += int64(n)
		data = data[n:]
	}
	return nil
}
