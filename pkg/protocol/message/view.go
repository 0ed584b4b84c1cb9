package message

import (
	"encoding/binary"
	"net/netip"
)

// View is a validated, zero-copy window on one record. Its accessors read the
// underlying bytes, which must not change while the View is used.
type View struct {
	b        []byte // exactly the record
	storeTS  int    // position of storeTimestamp
	tail     int    // position of reconsumeTimes
	body     int    // position of the body bytes
	topic    int    // position of the topic bytes
	topicLen int
	props    int // position of the properties bytes
}

// MinRecordSize is the smallest possible record (V1, IPv4, empty parts).
const MinRecordSize = 91

// Peek reads a record's totalSize and magic code from b (at least 8 bytes).
func Peek(b []byte) (totalSize int32, magic uint32, ok bool) {
	if len(b) < 8 {
		return 0, 0, false
	}
	return int32(binary.BigEndian.Uint32(b)), binary.BigEndian.Uint32(b[PosMagic:]), true
}

// Parse validates the record at the start of b and returns a View of it. It
// checks the magic (V1 or V2; BLANK is ErrBadMagic), that every length fits,
// and that totalSize equals the sum of the parts. It does not check the CRC
// (see View.CheckCRC) and does not allocate.
func Parse(b []byte) (View, error) {
	size, magic, ok := Peek(b)
	if !ok {
		return View{}, ErrTruncated
	}
	if magic != MagicV1 && magic != MagicV2 {
		return View{}, ErrBadMagic
	}
	if size < MinRecordSize {
		return View{}, ErrBadSize
	}
	if int64(size) > int64(len(b)) {
		return View{}, ErrTruncated
	}
	v := View{b: b[:size]}
	if err := v.layout(magic); err != nil {
		return View{}, err
	}
	return v, nil
}

// layout finds the variable-position fields and checks the sizes add up.
func (v *View) layout(magic uint32) error {
	b := v.b
	be := binary.BigEndian
	sys := int32(be.Uint32(b[PosSysFlag:]))
	p := PosBornHost + hostLenFlag(sys&SysFlagBornHostV6 != 0)
	v.storeTS = p
	p += 8 + hostLenFlag(sys&SysFlagStoreHostV6 != 0)
	v.tail = p
	p += 4 + 8
	if p+4 > len(b) {
		return ErrBadSize
	}
	bodyLen := int(int32(be.Uint32(b[p:])))
	p += 4
	if bodyLen < 0 || bodyLen > len(b)-p {
		return ErrBadSize
	}
	v.body = p
	p += bodyLen
	if magic == MagicV2 {
		if p+2 > len(b) {
			return ErrBadSize
		}
		v.topicLen = int(be.Uint16(b[p:]))
		p += 2
	} else {
		if p+1 > len(b) {
			return ErrBadSize
		}
		v.topicLen = int(b[p])
		p++
	}
	if v.topicLen > len(b)-p {
		return ErrBadSize
	}
	v.topic = p
	p += v.topicLen
	if p+2 > len(b) {
		return ErrBadSize
	}
	propsLen := int(int16(be.Uint16(b[p:])))
	p += 2
	if propsLen < 0 || p+propsLen != len(b) {
		return ErrBadSize
	}
	v.props = p
	return nil
}

func hostLenFlag(v6 bool) int {
	if v6 {
		return 20
	}
	return 8
}

// Bytes is the whole record.
func (v View) Bytes() []byte { return v.b }

// TotalSize is the record size.
func (v View) TotalSize() int32 { return int32(len(v.b)) }

// Magic is the record's magic code.
func (v View) Magic() uint32 { return binary.BigEndian.Uint32(v.b[PosMagic:]) }

// BodyCRC is the stored body checksum.
func (v View) BodyCRC() int32 { return v.i32(PosBodyCRC) }

// CheckCRC recomputes the body checksum and compares it with the stored one.
func (v View) CheckCRC() bool { return BodyCRC(v.Body()) == v.BodyCRC() }

// QueueID is the record's queue id.
func (v View) QueueID() int32 { return v.i32(PosQueueID) }

// Flag is the user flag.
func (v View) Flag() int32 { return v.i32(PosFlag) }

// QueueOffset is the record's offset in its ConsumeQueue.
func (v View) QueueOffset() int64 { return v.i64(PosQueueOffset) }

// PhysicalOffset is the record's CommitLog offset.
func (v View) PhysicalOffset() int64 { return v.i64(PosPhysicalOffset) }

// SysFlag is the system flag.
func (v View) SysFlag() int32 { return v.i32(PosSysFlag) }

// BornTimestamp is the producer's send time in ms.
func (v View) BornTimestamp() int64 { return v.i64(PosBornTimestamp) }

// BornHost is the producer's address.
func (v View) BornHost() netip.AddrPort { return host(v.b[PosBornHost:v.storeTS]) }

// StoreTimestamp is the broker's store time in ms.
func (v View) StoreTimestamp() int64 { return v.i64(v.storeTS) }

// StoreHost is the broker's address.
func (v View) StoreHost() netip.AddrPort { return host(v.b[v.storeTS+8 : v.tail]) }

// StoreHostBytes is the raw store host (IP then port), as an offset message id uses it.
func (v View) StoreHostBytes() []byte { return v.b[v.storeTS+8 : v.tail] }

// ReconsumeTimes is the retry count.
func (v View) ReconsumeTimes() int32 { return v.i32(v.tail) }

// PreparedTransactionOffset is the half message's CommitLog offset for a committed transaction.
func (v View) PreparedTransactionOffset() int64 { return v.i64(v.tail + 4) }

// Body is the message body (not a copy).
func (v View) Body() []byte { return v.b[v.body : v.topic-v.topicLenSize()] }

// Topic is the topic bytes (not a copy).
func (v View) Topic() []byte { return v.b[v.topic : v.topic+v.topicLen] }

// Properties is the encoded properties (not a copy).
func (v View) Properties() []byte { return v.b[v.props:] }

// Property looks up one property without allocating.
func (v View) Property(key string) ([]byte, bool) { return LookupProperty(v.Properties(), key) }

func (v View) topicLenSize() int {
	if v.Magic() == MagicV2 {
		return 2
	}
	return 1
}

func (v View) i32(p int) int32 { return int32(binary.BigEndian.Uint32(v.b[p:])) }
func (v View) i64(p int) int64 { return int64(binary.BigEndian.Uint64(v.b[p:])) }

func host(b []byte) netip.AddrPort {
	n := len(b) - 4
	port := uint16(binary.BigEndian.Uint32(b[n:]))
	var a netip.Addr
	if n == 16 {
		a = netip.AddrFrom16([16]byte(b[:16]))
	} else {
		a = netip.AddrFrom4([4]byte(b[:4]))
	}
	return netip.AddrPortFrom(a, port)
}

// Iterator walks the records of a buffer of concatenated records, such as a
// PULL_MESSAGE body. It stops at the first malformed record and reports it in Err.
type Iterator struct {
	buf []byte
	off int
	cur View
	err error
}

// NewIterator returns an Iterator over buf.
func NewIterator(buf []byte) Iterator { return Iterator{buf: buf} }

// Next advances to the next record and reports whether there is one.
func (it *Iterator) Next() bool {
	if it.err != nil || it.off >= len(it.buf) {
		return false
	}
	v, err := Parse(it.buf[it.off:])
	if err != nil {
		it.err = err
		return false
	}
	it.cur = v
	it.off += len(v.b)
	return true
}

// View is the current record.
func (it *Iterator) View() View { return it.cur }

// Offset is the position just past the current record.
func (it *Iterator) Offset() int { return it.off }

// Err is the error that stopped the iteration, nil at a clean end.
func (it *Iterator) Err() error { return it.err }
