package ha

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Sizes on the wire. Every integer is big-endian.
const (
	// ReportSize is a slave's report: int64, the end of its CommitLog.
	ReportSize = 8
	// HeaderSize is a master frame's header: int64 masterPhyOffset, int32 bodySize.
	HeaderSize = 12
)

// Header starts every frame from the master.
type Header struct {
	// MasterPhyOffset is the CommitLog offset of the body's first byte (of the next byte to send,
	// in a heartbeat).
	MasterPhyOffset int64
	// BodySize is the number of CommitLog bytes that follow; 0 is a heartbeat.
	BodySize int32
}

// Heartbeat reports whether the frame carries no data.
func (h Header) Heartbeat() bool { return h.BodySize == 0 }

// End is the CommitLog offset just past the frame's body.
func (h Header) End() int64 { return h.MasterPhyOffset + int64(h.BodySize) }

var (
	errNegativeOffset = errors.New("ha: negative commit log offset")
	errNegativeBody   = errors.New("ha: negative frame body size")
)

// PutHeader writes h into b[:HeaderSize].
func PutHeader(b []byte, h Header) {
	_ = b[HeaderSize-1]
	binary.BigEndian.PutUint64(b, uint64(h.MasterPhyOffset))
	binary.BigEndian.PutUint32(b[8:], uint32(h.BodySize))
}

// AppendHeader appends the encoding of h to dst.
func AppendHeader(dst []byte, h Header) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(h.MasterPhyOffset))
	return binary.BigEndian.AppendUint32(dst, uint32(h.BodySize))
}

// DecodeHeader decodes a frame header from b[:HeaderSize]. A negative offset or body size is an
// error: the stream is broken and the connection must be dropped.
func DecodeHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("ha: frame header needs %d bytes, got %d", HeaderSize, len(b))
	}
	h := Header{
		MasterPhyOffset: int64(binary.BigEndian.Uint64(b)),
		BodySize:        int32(binary.BigEndian.Uint32(b[8:])),
	}
	switch {
	case h.MasterPhyOffset < 0:
		return h, fmt.Errorf("%w in frame header: %d", errNegativeOffset, h.MasterPhyOffset)
	case h.BodySize < 0:
		return h, fmt.Errorf("%w: %d", errNegativeBody, h.BodySize)
	case h.End() < h.MasterPhyOffset:
		return h, fmt.Errorf("ha: frame at %d of %d bytes overflows the offset range", h.MasterPhyOffset, h.BodySize)
	}
	return h, nil
}

// PutReport writes a slave's report of offset off into b[:ReportSize].
func PutReport(b []byte, off int64) {
	binary.BigEndian.PutUint64(b[:ReportSize], uint64(off))
}

// AppendReport appends the encoding of a slave's report to dst.
func AppendReport(dst []byte, off int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(off))
}

// ReportDecoder reads a slave's reports from a byte stream delivered in chunks of any size. As
// Java's master does, it keeps only the last complete 8-byte report of what has arrived.
type ReportDecoder struct {
	buf [ReportSize]byte
	n   int // bytes of a partial report in buf
}

// Feed consumes p and returns the last report completed by it; ok is false when p completed none.
// A negative offset is an error (the stream is broken).
func (d *ReportDecoder) Feed(p []byte) (off int64, ok bool, err error) {
	for len(p) > 0 {
		if d.n == 0 && len(p) >= ReportSize {
			// Whole reports: jump to the last complete one.
			whole := len(p) - len(p)%ReportSize
			off, ok = int64(binary.BigEndian.Uint64(p[whole-ReportSize:whole])), true
			p = p[whole:]
			continue
		}
		k := copy(d.buf[d.n:], p)
		d.n += k
		p = p[k:]
		if d.n == ReportSize {
			off, ok = int64(binary.BigEndian.Uint64(d.buf[:])), true
			d.n = 0
		}
	}
	if ok && off < 0 {
		return off, false, fmt.Errorf("%w reported by the slave: %d", errNegativeOffset, off)
	}
	return off, ok, nil
}
