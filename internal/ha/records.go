package ha

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// DefaultMaxRecordSize bounds one replicated record (4 MiB of body, Java's default maxMessageSize,
// plus room for the topic, properties and fixed fields).
const DefaultMaxRecordSize = 4<<20 + 64<<10

// BadRecordError is a replicated record that failed validation. The slave appends nothing of it
// and stops replicating: its log ends at the last good record.
type BadRecordError struct {
	Offset int64 // CommitLog offset of the record
	Reason string
}

func (e *BadRecordError) Error() string {
	return fmt.Sprintf("ha: bad record from the master at commit log offset %d: %s", e.Offset, e.Reason)
}

// IsBadRecord reports whether err is, or wraps, a *BadRecordError.
func IsBadRecord(err error) bool {
	var b *BadRecordError
	return errors.As(err, &b)
}

// recordStream cuts the replicated byte stream into CommitLog records and checks each one before
// any of its bytes reach the log: magic, sizes and layout, CRC of the body, the physical offset the
// record names, and that no record crosses a segment end. A BLANK marker must fill its segment to
// the end; its filler is passed through as it arrives. The log therefore only ever grows by whole
// records that were valid on the master.
//
// A record split over frames is held in pending until its last byte arrives; pos is the stream
// offset of the next byte expected, the log's end plus what is pending.
type recordStream struct {
	segSize   int64
	maxRecord int
	pos       int64
	pending   []byte
	blankLeft int64 // filler bytes of a BLANK marker still to pass through
}

func newRecordStream(end, segSize int64, maxRecord int) *recordStream {
	return &recordStream{segSize: segSize, maxRecord: maxRecord, pos: end}
}

// next is the stream offset of the next byte expected.
func (r *recordStream) next() int64 { return r.pos + int64(len(r.pending)) }

// feed takes the next bytes of the stream and hands every complete, valid record (or piece of
// BLANK filler) to appendAt, in order, at its CommitLog offset.
func (r *recordStream) feed(b []byte, appendAt func(off int64, data []byte) error) error {
	for len(b) > 0 {
		n, err := r.step(b, appendAt)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// step consumes a prefix of b: filler, a whole record straight from b, or bytes into pending.
func (r *recordStream) step(b []byte, appendAt func(off int64, data []byte) error) (int, error) {
	if r.blankLeft > 0 {
		n := int(min(r.blankLeft, int64(len(b))))
		if err := r.emit(b[:n], appendAt); err != nil {
			return 0, err
		}
		r.blankLeft -= int64(n)
		return n, nil
	}
	if len(r.pending) == 0 {
		if size, ok := r.wholeRecordAt(b); ok {
			if err := r.complete(b[:size], appendAt); err != nil {
				return 0, err
			}
			return size, nil
		}
	}
	return r.buffer(b, appendAt)
}

// wholeRecordAt reports the size of a non-BLANK record that b holds entirely.
func (r *recordStream) wholeRecordAt(b []byte) (int, bool) {
	size, magic, ok := message.Peek(b)
	if !ok || magic == message.MagicBlank || size <= 0 || int64(size) > int64(len(b)) {
		return 0, false
	}
	return int(size), true
}

// buffer moves bytes of the current record into pending; once its header is known it takes only
// what the record still lacks, and completes it when whole.
func (r *recordStream) buffer(b []byte, appendAt func(off int64, data []byte) error) (int, error) {
	need := message.BlankMinLen - len(r.pending)
	if len(r.pending) >= message.BlankMinLen {
		size, err := r.checkHeader(r.pending)
		if err != nil {
			return 0, err
		}
		need = size - len(r.pending)
	}
	n := min(need, len(b))
	r.pending = append(r.pending, b[:n]...)
	if len(r.pending) < message.BlankMinLen {
		return n, nil
	}
	size, err := r.checkHeader(r.pending)
	if err != nil {
		return 0, err
	}
	if magic := binary.BigEndian.Uint32(r.pending[message.PosMagic:]); magic == message.MagicBlank {
		return n, r.startBlank(int64(size), appendAt)
	}
	if len(r.pending) == size {
		rec := r.pending
		r.pending = r.pending[:0]
		return n, r.complete(rec, appendAt)
	}
	return n, nil
}

// checkHeader validates a record's first 8 bytes (size and magic) against the segment and the
// size limit, before the rest is read.
func (r *recordStream) checkHeader(h []byte) (int, error) {
	size, magic, _ := message.Peek(h)
	left := r.segSize - r.pos%r.segSize
	switch {
	case magic == message.MagicBlank:
		if int64(size) != left {
			return 0, r.bad("a BLANK marker of %d bytes does not end its segment (%d bytes left)", size, left)
		}
	case magic != message.MagicV1 && magic != message.MagicV2:
		return 0, r.bad("magic code %#x", magic)
	case size < message.MinRecordSize || int(size) > r.maxRecord:
		return 0, r.bad("totalSize %d outside [%d, %d]", size, message.MinRecordSize, r.maxRecord)
	case int64(size) > left-message.BlankMinLen:
		return 0, r.bad("a record of %d bytes crosses its segment end (%d bytes left)", size, left)
	}
	return int(size), nil
}

// startBlank appends a BLANK marker's header and arranges for its filler to follow.
func (r *recordStream) startBlank(size int64, appendAt func(off int64, data []byte) error) error {
	hdr := r.pending
	r.pending = r.pending[:0]
	if err := r.emit(hdr, appendAt); err != nil {
		return err
	}
	r.blankLeft = size - int64(len(hdr))
	return nil
}

// complete validates a whole record and appends it.
func (r *recordStream) complete(rec []byte, appendAt func(off int64, data []byte) error) error {
	if _, err := r.checkHeader(rec); err != nil {
		return err
	}
	v, err := message.Parse(rec)
	switch {
	case err != nil:
		return r.bad("%v", err)
	case v.PhysicalOffset() != r.pos:
		return r.bad("the record names physical offset %d", v.PhysicalOffset())
	case !v.CheckCRC():
		return r.bad("body CRC %d does not match the body", v.BodyCRC())
	}
	return r.emit(rec, appendAt)
}

func (r *recordStream) emit(b []byte, appendAt func(off int64, data []byte) error) error {
	if err := appendAt(r.pos, b); err != nil {
		return err
	}
	r.pos += int64(len(b))
	return nil
}

func (r *recordStream) bad(format string, args ...any) error {
	return &BadRecordError{Offset: r.pos, Reason: fmt.Sprintf(format, args...)}
}
