package timer

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// RecordSize is the size of one timer log record.
const RecordSize = 64

// recordMagic starts every record ("TMR1").
const recordMagic uint32 = 0x544D5231

// Record flags, as Apache's TimerLog magic bits.
const (
	// FlagDeliver marks a timer message to deliver to its real topic when its slot is due.
	FlagDeliver uint32 = 1
	// FlagRoll marks a timer message due beyond the roll window: when its slot is due it is
	// written again to rmq_sys_wheel_timer, to be placed nearer its time.
	FlagRoll uint32 = 2
	// FlagRecall marks a recall (TIMER_DEL_UNIQKEY): the message it names, due in the same slot,
	// is not delivered.
	FlagRecall uint32 = 4
)

// NoPos is the position of no record: the prev of a slot's first record, the first and last of
// an empty slot.
const NoPos int64 = -1

// Record is one timer log record.
type Record struct {
	Flags uint32
	// Prev is the log position of the previous record of the same slot, NoPos for the first.
	Prev int64
	// SlotMs is the start of the wheel slot the record is in (a multiple of the precision).
	SlotMs int64
	// PhyOffset and Size locate the rmq_sys_wheel_timer message in the CommitLog.
	PhyOffset int64
	Size      int32
	// QueueOffset is the message's offset in rmq_sys_wheel_timer's queue 0.
	QueueOffset int64
	// StoreMs is the message's store time, raised to the highest store time of the records
	// before it (a clock that never goes back).
	StoreMs int64
}

// Field positions in an encoded record.
const (
	posMagic       = 0
	posFlags       = 4
	posPrev        = 8
	posSlot        = 16
	posPhyOffset   = 24
	posSize        = 32
	posQueueOffset = 40
	posStoreMs     = 48
	posCRC         = 60
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errBadRecord reports bytes that are not a whole, intact record.
var errBadRecord = errors.New("timer: not a valid record")

// encode writes r into b (at least RecordSize bytes).
func (r *Record) encode(b []byte) {
	be := binary.BigEndian
	clear(b[:RecordSize])
	be.PutUint32(b[posMagic:], recordMagic)
	be.PutUint32(b[posFlags:], r.Flags)
	be.PutUint64(b[posPrev:], uint64(r.Prev))
	be.PutUint64(b[posSlot:], uint64(r.SlotMs))
	be.PutUint64(b[posPhyOffset:], uint64(r.PhyOffset))
	be.PutUint32(b[posSize:], uint32(r.Size))
	be.PutUint64(b[posQueueOffset:], uint64(r.QueueOffset))
	be.PutUint64(b[posStoreMs:], uint64(r.StoreMs))
	be.PutUint32(b[posCRC:], crc32.Checksum(b[:posCRC], castagnoli))
}

// decodeRecord reads the record in b, checking its magic and checksum.
func decodeRecord(b []byte) (Record, error) {
	if len(b) < RecordSize {
		return Record{}, errBadRecord
	}
	be := binary.BigEndian
	if be.Uint32(b[posMagic:]) != recordMagic || be.Uint32(b[posCRC:]) != crc32.Checksum(b[:posCRC], castagnoli) {
		return Record{}, errBadRecord
	}
	return Record{
		Flags:       be.Uint32(b[posFlags:]),
		Prev:        int64(be.Uint64(b[posPrev:])),
		SlotMs:      int64(be.Uint64(b[posSlot:])),
		PhyOffset:   int64(be.Uint64(b[posPhyOffset:])),
		Size:        int32(be.Uint32(b[posSize:])),
		QueueOffset: int64(be.Uint64(b[posQueueOffset:])),
		StoreMs:     int64(be.Uint64(b[posStoreMs:])),
	}, nil
}
