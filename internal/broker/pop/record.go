package pop

import (
	"encoding/binary"
	"errors"
	"math"
)

// The revive log: POP's state is a sequence of records in the revive topic
// (rmq_sys_REVIVE_LOG_<cluster>), ordinary messages of the CommitLog, so that recovery after a
// crash and replication to a slave come from the store (docs/pop.md draws the layout). A record's
// body is one of these kinds; its TAGS property names the kind as Apache's do (ck, ack, bAck),
// and a revived record is tagged rv.
const (
	kindCheckpoint byte = 1 // messages were popped: their offsets and invisible time
	kindAck        byte = 2 // some of a checkpoint's messages were acknowledged
	kindRevived    byte = 3 // some of a checkpoint's messages went to the retry topic or the DLQ
)

// recordVersion is the first byte of every record body.
const recordVersion byte = 1

// maxCheckpointMessages is the most messages one checkpoint covers (a POP takes at most 32).
const maxCheckpointMessages = 32

// recordHeaderLen is the fixed part of a record: version, kind, count, queueId, startOffset,
// popTime.
const recordHeaderLen = 24

// errRecord reports a record body that is not one of ours.
var errRecord = errors.New("pop: malformed revive record")

// record is a decoded revive record. Offsets are absolute queue offsets: a checkpoint's popped
// messages, or the messages an ack or revived record settles.
type record struct {
	kind          byte
	key           key
	invisibleTime int64 // checkpoint only
	nextOffset    int64 // checkpoint only: the queue's pop offset after this pop
	offsets       []int64
}

// appendRecord appends the body of r to dst. Offsets are written as 32-bit distances from the
// checkpoint's start offset (Java's PopCheckPoint keeps int diffs too); ok is false when one does
// not fit, or for more offsets than a record holds.
func appendRecord(dst []byte, r *record) (out []byte, ok bool) {
	if len(r.offsets) == 0 || len(r.offsets) > math.MaxUint16 ||
		(r.kind == kindCheckpoint && len(r.offsets) > maxCheckpointMessages) {
		return dst, false
	}
	dst = append(dst, recordVersion, r.kind)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(r.offsets)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(r.key.queueID))
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.key.start))
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.key.popTime))
	dst = appendName(dst, r.key.topic)
	dst = appendName(dst, r.key.group)
	if r.kind == kindCheckpoint {
		dst = binary.BigEndian.AppendUint64(dst, uint64(r.invisibleTime))
		dst = binary.BigEndian.AppendUint64(dst, uint64(r.nextOffset))
	}
	for _, o := range r.offsets {
		d := o - r.key.start
		if d < 0 || d > math.MaxInt32 {
			return dst, false
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(d))
	}
	return dst, true
}

func appendName(dst []byte, s string) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s)))
	return append(dst, s...)
}

// parseRecord decodes a record body. Names are copied: the body is a slice of a mapped file.
func parseRecord(b []byte) (record, error) {
	var r record
	if len(b) < recordHeaderLen || b[0] != recordVersion || b[1] < kindCheckpoint || b[1] > kindRevived {
		return r, errRecord
	}
	r.kind = b[1]
	n := int(binary.BigEndian.Uint16(b[2:]))
	r.key.queueID = int32(binary.BigEndian.Uint32(b[4:]))
	r.key.start = int64(binary.BigEndian.Uint64(b[8:]))
	r.key.popTime = int64(binary.BigEndian.Uint64(b[16:]))
	rest := b[recordHeaderLen:]
	var ok1, ok2 bool
	r.key.topic, rest, ok1 = parseName(rest)
	r.key.group, rest, ok2 = parseName(rest)
	if !ok1 || !ok2 || n == 0 || (r.kind == kindCheckpoint && n > maxCheckpointMessages) {
		return record{}, errRecord
	}
	if r.kind == kindCheckpoint {
		if len(rest) < 16 {
			return record{}, errRecord
		}
		r.invisibleTime = int64(binary.BigEndian.Uint64(rest))
		r.nextOffset = int64(binary.BigEndian.Uint64(rest[8:]))
		rest = rest[16:]
	}
	if len(rest) != 4*n {
		return record{}, errRecord
	}
	r.offsets = make([]int64, n)
	for i := range r.offsets {
		r.offsets[i] = r.key.start + int64(binary.BigEndian.Uint32(rest[4*i:]))
	}
	return r, nil
}

func parseName(b []byte) (string, []byte, bool) {
	if len(b) < 2 {
		return "", nil, false
	}
	n := int(binary.BigEndian.Uint16(b))
	if len(b) < 2+n || n == 0 {
		return "", nil, false
	}
	return string(b[2 : 2+n]), b[2+n:], true
}

// recordTags are the TAGS properties of each kind, the whole properties string of a record.
var recordTags = [...]string{
	kindCheckpoint: "TAGS\x01ck\x02",
	kindAck:        "TAGS\x01ack\x02",
	kindRevived:    "TAGS\x01rv\x02",
}
