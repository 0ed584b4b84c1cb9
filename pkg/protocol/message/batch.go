package message

import (
	"encoding/binary"
	"errors"
)

// ErrBadBatch reports a malformed SEND_BATCH_MESSAGE body.
var ErrBadBatch = errors.New("message: malformed batch body")

// BatchEntry is one message of a SEND_BATCH_MESSAGE body. Body and Properties
// alias the batch buffer.
type BatchEntry struct {
	Flag       int32
	Body       []byte
	Properties []byte
}

// batchHeaderLen is totalSize, magic, bodyCRC, flag and bodyLen.
const batchHeaderLen = 4 * 5

// BatchIterator walks a SEND_BATCH_MESSAGE body: per message totalSize int32,
// magic int32, bodyCRC int32, flag int32, bodyLen int32 + body, propsLen int16 +
// properties. totalSize must equal the entry's length.
type BatchIterator struct {
	buf []byte
	off int
	cur BatchEntry
	err error
}

// NewBatchIterator returns an iterator over body.
func NewBatchIterator(body []byte) BatchIterator { return BatchIterator{buf: body} }

// Next advances to the next entry and reports whether there is one.
func (it *BatchIterator) Next() bool {
	if it.err != nil || it.off >= len(it.buf) {
		return false
	}
	e, n, err := parseBatchEntry(it.buf[it.off:])
	if err != nil {
		it.err = err
		return false
	}
	it.cur = e
	it.off += n
	return true
}

// Entry is the current entry.
func (it *BatchIterator) Entry() BatchEntry { return it.cur }

// Err is the error that stopped the iteration, nil at a clean end.
func (it *BatchIterator) Err() error { return it.err }

func parseBatchEntry(b []byte) (BatchEntry, int, error) {
	if len(b) < batchHeaderLen+2 {
		return BatchEntry{}, 0, ErrBadBatch
	}
	be := binary.BigEndian
	total := int64(int32(be.Uint32(b)))
	bodyLen := int64(int32(be.Uint32(b[16:])))
	if bodyLen < 0 || batchHeaderLen+bodyLen+2 > int64(len(b)) {
		return BatchEntry{}, 0, ErrBadBatch
	}
	p := batchHeaderLen + int(bodyLen)
	propsLen := int64(int16(be.Uint16(b[p:])))
	end := int64(p) + 2 + propsLen
	if propsLen < 0 || end > int64(len(b)) || total != end {
		return BatchEntry{}, 0, ErrBadBatch
	}
	e := BatchEntry{
		Flag:       int32(be.Uint32(b[12:])),
		Body:       b[batchHeaderLen:p],
		Properties: b[p+2 : end],
	}
	return e, int(end), nil
}

// CountBatch validates a batch body and returns its number of entries.
func CountBatch(body []byte) (int, error) {
	it := NewBatchIterator(body)
	n := 0
	for it.Next() {
		n++
	}
	return n, it.Err()
}

// AppendBatchEntry appends one entry in SEND_BATCH_MESSAGE form (magic and CRC
// zero, as clients send them).
func AppendBatchEntry(dst []byte, flag int32, body []byte, props string) []byte {
	total := batchHeaderLen + len(body) + 2 + len(props)
	var h [batchHeaderLen]byte
	be := binary.BigEndian
	be.PutUint32(h[0:], uint32(total))
	be.PutUint32(h[12:], uint32(flag))
	be.PutUint32(h[16:], uint32(len(body)))
	dst = append(dst, h[:]...)
	dst = append(dst, body...)
	dst = be.AppendUint16(dst, uint16(len(props)))
	return append(dst, props...)
}
