package commitlog

import (
	"fmt"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// AcquireAt returns the segment holding off with a reference taken (Release it),
// or nil when that part of the log is gone.
func (c *CommitLog) AcquireAt(off int64) *mmapfile.MappedFile { return c.q.AcquireAt(off) }

// RecordIn returns the size bytes at off from f, which must hold off; false when
// they are not all written yet or cross the segment's end.
func RecordIn(f *mmapfile.MappedFile, off int64, size int32) ([]byte, bool) {
	pos := off - f.Start()
	if pos < 0 || size <= 0 || pos+int64(size) > f.Wrote() {
		return nil, false
	}
	return f.Bytes(pos, int64(size)), true
}

// Lookup decodes a copy of the record at off. It returns nil and an error when
// off is not the start of a readable record.
func (c *CommitLog) Lookup(off int64) (*message.MessageExt, error) {
	f := c.AcquireAt(off)
	if f == nil {
		return nil, fmt.Errorf("commitlog: offset %d is not in the log", off)
	}
	defer f.Release()
	var m *message.MessageExt
	err := mmapfile.CatchFault(func() error {
		head, ok := RecordIn(f, off, message.BlankMinLen)
		if !ok {
			return fmt.Errorf("commitlog: no record at %d", off)
		}
		size, _, _ := message.Peek(head)
		rec, ok := RecordIn(f, off, size)
		if !ok {
			return fmt.Errorf("commitlog: record at %d of %d bytes not readable", off, size)
		}
		var err error
		m, err = message.Decode(rec, false)
		if err != nil {
			return fmt.Errorf("commitlog: record at %d: %w", off, err)
		}
		return nil
	})
	return m, err
}

// StoreTimestamp reads the store time of the size-byte record at off, -1 when
// it is not readable.
func (c *CommitLog) StoreTimestamp(off int64, size int32) int64 {
	f := c.AcquireAt(off)
	if f == nil {
		return -1
	}
	defer f.Release()
	ts := int64(-1)
	_ = mmapfile.CatchFault(func() error {
		if rec, ok := RecordIn(f, off, size); ok {
			if v, err := message.Parse(rec); err == nil {
				ts = v.StoreTimestamp()
			}
		}
		return nil
	})
	return ts
}
