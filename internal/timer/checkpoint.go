package timer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"slices"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// checkpointMagic starts the checkpoint file ("TMC1").
const checkpointMagic uint32 = 0x544D4331

// maxTopicLen bounds a topic name in the checkpoint (RocketMQ topics are shorter).
const maxTopicLen = 1 << 10

// Checkpoint is the timer's durable progress, written atomically (vfs.WriteFile) as one file.
type Checkpoint struct {
	// PrecisionMs and Slots are the wheel's shape when the checkpoint was written.
	PrecisionMs int64
	Slots       int64
	// ReadMs is the start of the next slot to process; ReadDone how many of its records (in
	// processing order: newest first) were processed.
	ReadMs   int64
	ReadDone int64
	// DedupFrom is a CommitLog offset: every message the processed records wrote ends below it.
	DedupFrom int64
	// QueueOffset is the next rmq_sys_wheel_timer offset to take into the log.
	QueueOffset int64
	// LogEnd is the timer log position below which records are durable and in the wheel file;
	// StoreMs is the StoreMs of the record before it.
	LogEnd  int64
	StoreMs int64
	// Version counts checkpoints (RocketMQ's DataVersion: state version, timestamp, counter).
	StateVersion, VersionTimestamp, VersionCounter int64
	// Flags: FromSlave when a slave wrote it (its delivery position is its master's).
	Flags int64
	// Pending counts the records to deliver that are not processed yet, per real topic.
	Pending map[string]int64
}

// FromSlave marks a checkpoint a slave wrote.
const FromSlave int64 = 1

// fixedFields is the number of int64 fields before the pending counts.
const fixedFields = 12

// Encode is the checkpoint file's content.
func (c *Checkpoint) Encode() []byte {
	be := binary.BigEndian
	b := make([]byte, 8, 8+fixedFields*8+4+len(c.Pending)*32+4)
	be.PutUint32(b, checkpointMagic)
	be.PutUint32(b[4:], 1)
	for _, v := range c.fixed() {
		b = be.AppendUint64(b, uint64(*v))
	}
	topics := slices.Sorted(maps.Keys(c.Pending))
	b = be.AppendUint32(b, uint32(len(topics)))
	for _, t := range topics {
		b = be.AppendUint16(b, uint16(len(t)))
		b = append(b, t...)
		b = be.AppendUint64(b, uint64(c.Pending[t]))
	}
	return be.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func (c *Checkpoint) fixed() [fixedFields]*int64 {
	return [...]*int64{&c.PrecisionMs, &c.Slots, &c.ReadMs, &c.ReadDone, &c.DedupFrom, &c.QueueOffset,
		&c.LogEnd, &c.StoreMs, &c.StateVersion, &c.VersionTimestamp, &c.VersionCounter, &c.Flags}
}

// errBadCheckpoint reports a checkpoint file that does not decode.
var errBadCheckpoint = errors.New("timer: checkpoint file is damaged")

// DecodeCheckpoint reads a checkpoint file's content.
func DecodeCheckpoint(b []byte) (Checkpoint, error) {
	be := binary.BigEndian
	var c Checkpoint
	if len(b) < 8+fixedFields*8+8 || be.Uint32(b) != checkpointMagic ||
		be.Uint32(b[len(b)-4:]) != crc32.Checksum(b[:len(b)-4], castagnoli) {
		return c, errBadCheckpoint
	}
	p := b[8 : len(b)-4]
	for _, v := range c.fixed() {
		*v = int64(be.Uint64(p))
		p = p[8:]
	}
	n := be.Uint32(p)
	p = p[4:]
	c.Pending = make(map[string]int64, min(n, 1024))
	for range n {
		if len(p) < 2 || int(be.Uint16(p)) > maxTopicLen || len(p) < 2+int(be.Uint16(p))+8 {
			return Checkpoint{}, errBadCheckpoint
		}
		l := int(be.Uint16(p))
		c.Pending[string(p[2:2+l])] = int64(be.Uint64(p[2+l:]))
		p = p[2+l+8:]
	}
	if len(p) != 0 {
		return Checkpoint{}, errBadCheckpoint
	}
	return c, nil
}

// SaveCheckpoint replaces the checkpoint file atomically.
func SaveCheckpoint(fsys vfs.FS, path string, c *Checkpoint) error {
	if err := vfs.WriteFile(fsys, path, c.Encode()); err != nil {
		return fmt.Errorf("timer: save checkpoint: %w", err)
	}
	return nil
}

// LoadCheckpoint reads the checkpoint file; found is false when there is none.
func LoadCheckpoint(fsys vfs.FS, path string) (c Checkpoint, found bool, err error) {
	b, err := vfs.ReadFile(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return Checkpoint{}, false, nil
	}
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("timer: read checkpoint: %w", err)
	}
	c, err = DecodeCheckpoint(b)
	if err != nil {
		return Checkpoint{}, false, fmt.Errorf("%w: %s", err, path)
	}
	return c, true, nil
}
