package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Sizes of the three parts of an IndexFile, in bytes.
const (
	HeaderSize = 40 // see Header
	SlotSize   = 4  // one int32 per hash slot
	EntrySize  = 20 // see Entry
)

// Java's defaults (MessageStoreConfig.maxHashSlotNum and maxIndexNum).
const (
	DefaultHashSlotNum = 5_000_000
	DefaultIndexNum    = 20_000_000
)

// Offsets of the header fields.
const (
	offBeginTimestamp = 0
	offEndTimestamp   = 8
	offBeginPhyOffset = 16
	offEndPhyOffset   = 24
	offHashSlotCount  = 32
	offIndexCount     = 36
)

// Offsets of the entry fields.
const (
	offEntryKeyHash   = 0
	offEntryPhyOffset = 4
	offEntryTimeDiff  = 12
	offEntryPrevIndex = 16
)

// ErrBadLayout reports a Layout that cannot describe an IndexFile.
var ErrBadLayout = errors.New("index: bad layout")

// Header is the 40-byte header at the start of every IndexFile.
type Header struct {
	BeginTimestamp int64 // storeTimestamp (ms) of the first entry
	EndTimestamp   int64 // storeTimestamp (ms) of the newest entry
	BeginPhyOffset int64 // commitlog offset of the first entry
	EndPhyOffset   int64 // commitlog offset of the newest entry
	HashSlotCount  int32 // Java counts every put here, not distinct slots
	IndexCount     int32 // next entry number; starts at 1 (entry 0 is never used)
}

// Entry is one 20-byte index entry.
type Entry struct {
	KeyHash   int32 // KeyHash of the key (never negative in a sound file)
	PhyOffset int64 // commitlog offset of the message
	TimeDiff  int32 // seconds between Header.BeginTimestamp and the message's storeTimestamp
	PrevIndex int32 // previous (older) entry number in the same slot's chain; 0 ends it
}

// EncodeHeader writes h big-endian into dst.
func EncodeHeader(dst *[HeaderSize]byte, h Header) {
	binary.BigEndian.PutUint64(dst[offBeginTimestamp:], uint64(h.BeginTimestamp))
	binary.BigEndian.PutUint64(dst[offEndTimestamp:], uint64(h.EndTimestamp))
	binary.BigEndian.PutUint64(dst[offBeginPhyOffset:], uint64(h.BeginPhyOffset))
	binary.BigEndian.PutUint64(dst[offEndPhyOffset:], uint64(h.EndPhyOffset))
	binary.BigEndian.PutUint32(dst[offHashSlotCount:], uint32(h.HashSlotCount))
	binary.BigEndian.PutUint32(dst[offIndexCount:], uint32(h.IndexCount))
}

// DecodeHeader reads a header exactly as stored (no sanitising).
func DecodeHeader(src *[HeaderSize]byte) Header {
	return Header{
		BeginTimestamp: int64(binary.BigEndian.Uint64(src[offBeginTimestamp:])),
		EndTimestamp:   int64(binary.BigEndian.Uint64(src[offEndTimestamp:])),
		BeginPhyOffset: int64(binary.BigEndian.Uint64(src[offBeginPhyOffset:])),
		EndPhyOffset:   int64(binary.BigEndian.Uint64(src[offEndPhyOffset:])),
		HashSlotCount:  int32(binary.BigEndian.Uint32(src[offHashSlotCount:])),
		IndexCount:     int32(binary.BigEndian.Uint32(src[offIndexCount:])),
	}
}

// ParseHeader decodes the header at the start of b.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("index: header needs %d bytes, have %d", HeaderSize, len(b))
	}
	return DecodeHeader((*[HeaderSize]byte)(b[:HeaderSize])), nil
}

// EncodeEntry writes e big-endian into dst.
func EncodeEntry(dst *[EntrySize]byte, e Entry) {
	binary.BigEndian.PutUint32(dst[offEntryKeyHash:], uint32(e.KeyHash))
	binary.BigEndian.PutUint64(dst[offEntryPhyOffset:], uint64(e.PhyOffset))
	binary.BigEndian.PutUint32(dst[offEntryTimeDiff:], uint32(e.TimeDiff))
	binary.BigEndian.PutUint32(dst[offEntryPrevIndex:], uint32(e.PrevIndex))
}

// DecodeEntry reads an entry exactly as stored.
func DecodeEntry(src *[EntrySize]byte) Entry {
	return Entry{
		KeyHash:   int32(binary.BigEndian.Uint32(src[offEntryKeyHash:])),
		PhyOffset: int64(binary.BigEndian.Uint64(src[offEntryPhyOffset:])),
		TimeDiff:  int32(binary.BigEndian.Uint32(src[offEntryTimeDiff:])),
		PrevIndex: int32(binary.BigEndian.Uint32(src[offEntryPrevIndex:])),
	}
}

// EncodeSlot writes a slot value (an entry number, 0 = empty).
func EncodeSlot(dst *[SlotSize]byte, v int32) { binary.BigEndian.PutUint32(dst[:], uint32(v)) }

// DecodeSlot reads a slot value as stored.
func DecodeSlot(src *[SlotSize]byte) int32 { return int32(binary.BigEndian.Uint32(src[:])) }

// TimeDiff is the entry time for a message stored at storeTimestamp in a file that begins at
// beginTimestamp, following Java's IndexFile.putKey: whole seconds, truncated, clamped to
// [0, MaxInt32], and 0 while the file has no begin time.
func TimeDiff(beginTimestamp, storeTimestamp int64) int32 {
	if beginTimestamp <= 0 {
		return 0
	}
	d := (storeTimestamp - beginTimestamp) / 1000
	switch {
	case d > math.MaxInt32:
		return math.MaxInt32
	case d < 0:
		return 0
	}
	return int32(d)
}

// EntryTime is the time (ms) a query compares against: begin + timeDiff seconds. It is at most
// the real storeTimestamp, never above it, because TimeDiff truncates.
func EntryTime(beginTimestamp int64, timeDiff int32) int64 {
	return beginTimestamp + int64(timeDiff)*1000
}

// Layout is the geometry of an IndexFile: the number of hash slots and of entries
// (Java maxHashSlotNum and maxIndexNum). Files of different layouts are not interchangeable.
type Layout struct {
	HashSlotNum int
	IndexNum    int
}

// DefaultLayout is Java's: 5,000,000 slots and 20,000,000 entries (420,000,040 bytes).
func DefaultLayout() Layout {
	return Layout{HashSlotNum: DefaultHashSlotNum, IndexNum: DefaultIndexNum}
}

// Validate checks that l describes a file Java could also map (at most MaxInt32 bytes) with room
// for at least one entry besides the unused entry 0.
func (l Layout) Validate() error {
	if l.HashSlotNum < 1 || l.IndexNum < 2 {
		return fmt.Errorf("%w: hashSlotNum %d (want ≥ 1), indexNum %d (want ≥ 2)", ErrBadLayout, l.HashSlotNum, l.IndexNum)
	}
	if l.HashSlotNum > math.MaxInt32 || l.IndexNum > math.MaxInt32 || l.FileSize() > math.MaxInt32 {
		return fmt.Errorf("%w: %d slots and %d entries exceed %d bytes", ErrBadLayout, l.HashSlotNum, l.IndexNum, math.MaxInt32)
	}
	return nil
}

// FileSize is 40 + HashSlotNum×4 + IndexNum×20.
func (l Layout) FileSize() int64 {
	return HeaderSize + int64(l.HashSlotNum)*SlotSize + int64(l.IndexNum)*EntrySize
}

// SlotIndex is the slot of a key hash: keyHash % HashSlotNum, as Java computes it for the
// non-negative hashes it writes. A negative (corrupt) hash is reduced as unsigned so the result
// is always in range.
func (l Layout) SlotIndex(keyHash int32) int {
	return int(uint32(keyHash) % uint32(l.HashSlotNum))
}

// SlotOffset is the byte offset of the slot for keyHash.
func (l Layout) SlotOffset(keyHash int32) int {
	return HeaderSize + l.SlotIndex(keyHash)*SlotSize
}

// EntryOffset is the byte offset of entry number n (0 ≤ n < IndexNum).
func (l Layout) EntryOffset(n int32) int {
	return HeaderSize + l.HashSlotNum*SlotSize + int(n)*EntrySize
}
