package message

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/netip"
)

// Fixed field positions of a record (they do not depend on the host widths).
const (
	PosTotalSize      = 0
	PosMagic          = 4
	PosBodyCRC        = 8
	PosQueueID        = 12
	PosFlag           = 16
	PosQueueOffset    = 20
	PosPhysicalOffset = 28
	PosSysFlag        = 36
	PosBornTimestamp  = 40
	PosBornHost       = 48
)

// Errors returned by Encode and the decoders.
var (
	ErrTopicTooLong      = errors.New("message: topic longer than 127 bytes")
	ErrPropertiesTooLong = errors.New("message: properties longer than 32767 bytes")
	ErrShortBuffer       = errors.New("message: buffer shorter than the record")
	ErrTruncated         = errors.New("message: truncated record")
	ErrBadMagic          = errors.New("message: bad magic code")
	ErrBadSize           = errors.New("message: record size does not match its fields")
	ErrBadCRC            = errors.New("message: body CRC mismatch")
)

// Message is every field of a record, the input of Encode. Properties is the
// encoded properties string (see EncodeProperties).
type Message struct {
	Topic                     string
	QueueID                   int32
	Flag                      int32
	QueueOffset               int64
	PhysicalOffset            int64 // CommitLog offset of the record
	SysFlag                   int32 // host V6 bits are derived from BornHost/StoreHost by Encode
	BornTimestamp             int64
	BornHost                  netip.AddrPort
	StoreTimestamp            int64
	StoreHost                 netip.AddrPort
	ReconsumeTimes            int32
	PreparedTransactionOffset int64
	BodyCRC                   int32 // written as is: set it with BodyCRC(Body)
	Body                      []byte
	Properties                string
}

// BodyCRC is the record's body checksum: CRC32-IEEE & 0x7FFFFFFF (Java UtilAll.crc32).
func BodyCRC(body []byte) int32 {
	return int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF)
}

// HostLen is the encoded width of a host: 8 for IPv4 (or an invalid address,
// written as 0.0.0.0:0), 20 for IPv6.
func HostLen(h netip.AddrPort) int {
	if isV6(h.Addr()) {
		return 20
	}
	return 8
}

func isV6(a netip.Addr) bool { return a.IsValid() && !a.Unmap().Is4() }

// HostFlags returns sysFlag with BORNHOST_V6 and STOREHOST_V6 set to match the hosts.
func HostFlags(sysFlag int32, born, store netip.AddrPort) int32 {
	sysFlag &^= SysFlagBornHostV6 | SysFlagStoreHostV6
	if isV6(born.Addr()) {
		sysFlag |= SysFlagBornHostV6
	}
	if isV6(store.Addr()) {
		sysFlag |= SysFlagStoreHostV6
	}
	return sysFlag
}

// RecordSize is the size of a V1 record with the given part lengths and host widths (8 or 20).
func RecordSize(bodyLen, topicLen, propsLen, bornHostLen, storeHostLen int) int {
	return 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + bornHostLen + 8 + storeHostLen + 4 + 8 +
		4 + bodyLen + 1 + topicLen + 2 + propsLen
}

// EncodedSize is the size Encode needs for m.
func (m *Message) EncodedSize() int {
	return RecordSize(len(m.Body), len(m.Topic), len(m.Properties), HostLen(m.BornHost), HostLen(m.StoreHost))
}

// Check reports whether m can be encoded as a V1 record.
func (m *Message) Check() error {
	if len(m.Topic) > MaxTopicLen {
		return ErrTopicTooLong
	}
	if len(m.Properties) > MaxPropertiesLen {
		return ErrPropertiesTooLong
	}
	return nil
}

// Encode writes m as a V1 record at the start of dst and returns its size. dst
// must hold at least m.EncodedSize() bytes; m must pass Check. It does not
// allocate.
func Encode(dst []byte, m *Message) (int, error) {
	if err := m.Check(); err != nil {
		return 0, err
	}
	size := m.EncodedSize()
	if len(dst) < size {
		return 0, ErrShortBuffer
	}
	b := dst[:size]
	p := encodeUntilProps(b, m, m.BodyCRC, m.Body)
	binary.BigEndian.PutUint16(b[p:], uint16(len(m.Properties)))
	copy(b[p+2:], m.Properties)
	sealRecord(b)
	return size, nil
}

// sealRecord writes the record's totalSize, last: until then the record reads as zeros (the end of
// the data) to recovery, so a process killed in the middle of writing it (kill -9 at a page fault
// of the mapped segment) leaves no half-written record behind for recovery to accept.
func sealRecord(b []byte) {
	binary.BigEndian.PutUint32(b[PosTotalSize:], uint32(len(b)))
}

// BatchEntrySize is the record size of a SEND_BATCH_MESSAGE entry stored with
// m's topic and hosts and suffix appended to its properties.
func BatchEntrySize(m *Message, e BatchEntry, suffix string) int {
	return RecordSize(len(e.Body), len(m.Topic), BatchPropsLen(e.Properties, suffix),
		HostLen(m.BornHost), HostLen(m.StoreHost))
}

// BatchPropsLen is the length of an entry's properties with the batch's suffix
// appended, a \x02 inserted between them when the entry's do not end with one.
func BatchPropsLen(props []byte, suffix string) int {
	n := len(props) + len(suffix)
	if needSeparator(props, suffix) {
		n++
	}
	return n
}

func needSeparator(props []byte, suffix string) bool {
	return len(props) > 0 && len(suffix) > 0 && props[len(props)-1] != PropertySeparator
}

// EncodeBatchEntry writes one SEND_BATCH_MESSAGE entry as a full V1 record at the
// start of dst, taking every field but the flag, body, CRC and properties from
// m. The body CRC is computed; suffix (the batch's own properties) is appended
// to the entry's properties. It returns the record size.
func EncodeBatchEntry(dst []byte, m *Message, e BatchEntry, suffix string) (int, error) {
	if len(m.Topic) > MaxTopicLen {
		return 0, ErrTopicTooLong
	}
	propsLen := BatchPropsLen(e.Properties, suffix)
	if propsLen > MaxPropertiesLen {
		return 0, ErrPropertiesTooLong
	}
	size := BatchEntrySize(m, e, suffix)
	if len(dst) < size {
		return 0, ErrShortBuffer
	}
	b := dst[:size]
	mm := *m
	mm.Flag = e.Flag
	p := encodeUntilProps(b, &mm, BodyCRC(e.Body), e.Body)
	binary.BigEndian.PutUint16(b[p:], uint16(propsLen))
	p += 2
	p += copy(b[p:], e.Properties)
	if needSeparator(e.Properties, suffix) {
		b[p] = PropertySeparator
		p++
	}
	copy(b[p:], suffix)
	sealRecord(b)
	return size, nil
}

// encodeUntilProps writes every field before propertiesLen into b (already
// sized to the record) and returns the position of propertiesLen. totalSize
// stays 0 until sealRecord.
func encodeUntilProps(b []byte, m *Message, crc int32, body []byte) int {
	be := binary.BigEndian
	be.PutUint32(b[PosTotalSize:], 0)
	be.PutUint32(b[PosMagic:], MagicV1)
	be.PutUint32(b[PosBodyCRC:], uint32(crc))
	be.PutUint32(b[PosQueueID:], uint32(m.QueueID))
	be.PutUint32(b[PosFlag:], uint32(m.Flag))
	be.PutUint64(b[PosQueueOffset:], uint64(m.QueueOffset))
	be.PutUint64(b[PosPhysicalOffset:], uint64(m.PhysicalOffset))
	be.PutUint32(b[PosSysFlag:], uint32(HostFlags(m.SysFlag, m.BornHost, m.StoreHost)))
	be.PutUint64(b[PosBornTimestamp:], uint64(m.BornTimestamp))
	p := PosBornHost + putHost(b[PosBornHost:], m.BornHost)
	be.PutUint64(b[p:], uint64(m.StoreTimestamp))
	p += 8
	p += putHost(b[p:], m.StoreHost)
	be.PutUint32(b[p:], uint32(m.ReconsumeTimes))
	p += 4
	be.PutUint64(b[p:], uint64(m.PreparedTransactionOffset))
	p += 8
	be.PutUint32(b[p:], uint32(len(body)))
	p += 4
	p += copy(b[p:], body)
	b[p] = byte(len(m.Topic))
	p++
	p += copy(b[p:], m.Topic)
	return p
}

// putHost writes h as IPv4(4)+port or IPv6(16)+port and returns the width.
func putHost(b []byte, h netip.AddrPort) int {
	a := h.Addr()
	n := 4
	if isV6(a) {
		a16 := a.As16()
		copy(b, a16[:])
		n = 16
	} else if a.IsValid() {
		a4 := a.Unmap().As4()
		copy(b, a4[:])
	} else {
		clear(b[:4])
	}
	binary.BigEndian.PutUint32(b[n:], uint32(h.Port()))
	return n + 4
}

// EncodeBlank writes the end-of-segment BLANK marker (totalSize = size, BLANK
// magic) at the start of dst. size must be ≥ BlankMinLen and ≤ len(dst); only the
// first 8 bytes are written.
func EncodeBlank(dst []byte, size int) {
	binary.BigEndian.PutUint32(dst[PosMagic:], MagicBlank)
	binary.BigEndian.PutUint32(dst[PosTotalSize:], uint32(size)) // last, as sealRecord
}
