package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// CheckpointSize is the checkpoint file's length (Java StoreCheckpoint).
const CheckpointSize = 4096

// Checkpoint field positions. 0-39 are Java's; 64-99 are ours.
const (
	cpPhysicMsgTimestamp = 0  // Java: store time of the newest flushed CommitLog record
	cpLogicsMsgTimestamp = 8  // Java: store time of the newest record in flushed ConsumeQueues
	cpIndexMsgTimestamp  = 16 // Java: store time of the newest record in the flushed index
	cpMasterFlushed      = 24 // 5.x masterFlushedOffset (unused, 0)
	cpConfirmPhyOffset   = 32 // 5.x confirmPhyOffset (unused, 0)
	cpMagic              = 64 // checkpointMagic: the fields below are present
	cpFlushedOffset      = 72 // CommitLog offset up to which the log was durable
	cpDispatchedOffset   = 80 // every record below is in the flushed ConsumeQueues and index
	cpCRC                = 88 // CRC32-IEEE of bytes [0, 88) as uint32
	cpEnd                = 92
)

// checkpointMagic marks our extension ("RGCKPT01").
const checkpointMagic = 0x5247434b50543031

// Checkpoint is the content of the checkpoint file.
type Checkpoint struct {
	PhysicMsgTimestamp int64
	LogicsMsgTimestamp int64
	IndexMsgTimestamp  int64
	// HasOffsets reports that the two offsets below were read (our extension).
	HasOffsets       bool
	FlushedOffset    int64
	DispatchedOffset int64
}

// MinTimestamp is Java's StoreCheckpoint.getMinTimestamp: the older of the
// physic and logics times, minus 3 s.
func (c Checkpoint) MinTimestamp() int64 {
	return max(min(c.PhysicMsgTimestamp, c.LogicsMsgTimestamp)-3000, 0)
}

// Encode lays the checkpoint out in a 4096-byte block.
func (c Checkpoint) Encode() []byte {
	b := make([]byte, CheckpointSize)
	be := binary.BigEndian
	be.PutUint64(b[cpPhysicMsgTimestamp:], uint64(c.PhysicMsgTimestamp))
	be.PutUint64(b[cpLogicsMsgTimestamp:], uint64(c.LogicsMsgTimestamp))
	be.PutUint64(b[cpIndexMsgTimestamp:], uint64(c.IndexMsgTimestamp))
	be.PutUint64(b[cpMagic:], checkpointMagic)
	be.PutUint64(b[cpFlushedOffset:], uint64(c.FlushedOffset))
	be.PutUint64(b[cpDispatchedOffset:], uint64(c.DispatchedOffset))
	be.PutUint32(b[cpCRC:], crc32.ChecksumIEEE(b[:cpCRC]))
	return b
}

// DecodeCheckpoint reads a checkpoint block. Java's three timestamps are always
// read; our offsets only when the magic and CRC match.
func DecodeCheckpoint(b []byte) (Checkpoint, error) {
	if len(b) < 24 {
		return Checkpoint{}, fmt.Errorf("store: checkpoint of %d bytes is too short", len(b))
	}
	be := binary.BigEndian
	c := Checkpoint{
		PhysicMsgTimestamp: int64(be.Uint64(b[cpPhysicMsgTimestamp:])),
		LogicsMsgTimestamp: int64(be.Uint64(b[cpLogicsMsgTimestamp:])),
		IndexMsgTimestamp:  int64(be.Uint64(b[cpIndexMsgTimestamp:])),
	}
	if len(b) >= cpEnd && be.Uint64(b[cpMagic:]) == checkpointMagic &&
		be.Uint32(b[cpCRC:]) == crc32.ChecksumIEEE(b[:cpCRC]) {
		c.HasOffsets = true
		c.FlushedOffset = int64(be.Uint64(b[cpFlushedOffset:]))
		c.DispatchedOffset = int64(be.Uint64(b[cpDispatchedOffset:]))
	}
	return c, nil
}

// readCheckpoint loads the checkpoint file. A missing file is a zero
// Checkpoint; so is one that cannot be read or is too short, reported as the
// error: the checkpoint only narrows recovery, which then reads everything.
func readCheckpoint(fsys vfs.FS, path string) (Checkpoint, error) {
	b, err := vfs.ReadFile(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return Checkpoint{}, nil
	}
	if err != nil {
		return Checkpoint{}, fmt.Errorf("store: read checkpoint %s: %w", path, err)
	}
	return DecodeCheckpoint(b)
}

// writeCheckpoint replaces the checkpoint file atomically (vfs.WriteFile:
// temp file, fsync, rename, directory fsync).
func writeCheckpoint(fsys vfs.FS, path string, c Checkpoint) error {
	if err := vfs.WriteFile(fsys, path, c.Encode()); err != nil {
		return fmt.Errorf("store: write checkpoint: %w", err)
	}
	return nil
}
