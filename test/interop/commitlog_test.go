package interop

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// CommitLog record magics (Apache's MessageDecoder): a message, a 5.x message with a 2-byte topic
// length, and the blank that fills a segment's end.
const (
	magicMessage   = -626843481
	magicMessageV2 = -626843477
	magicBlank     = -875286124
)

// segmentSize is the suite's mappedFileSizeCommitLog.
var segmentSize = func() int64 {
	n, _ := strconv.ParseInt(storeGeometry["mappedFileSizeCommitLog"], 10, 64)
	return n
}()

// commitLogRange reads [from, to) of the CommitLog of the store at storeDir, across segments.
func commitLogRange(storeDir string, from, to int64) ([]byte, error) {
	out := make([]byte, 0, to-from)
	for off := from; off < to; {
		seg := off - off%segmentSize
		n := min(to, seg+segmentSize) - off
		buf := make([]byte, n)
		f, err := os.Open(filepath.Join(storeDir, "commitlog", fmt.Sprintf("%020d", seg)))
		if err != nil {
			return nil, err
		}
		_, err = f.ReadAt(buf, off-seg)
		_ = f.Close()
		if err != nil && err != io.EOF {
			return nil, err
		}
		out = append(out, buf...)
		off += n
	}
	return out, nil
}

// commitLogEnd walks the CommitLog of the store from offset 0, record by record, and returns where
// its data ends: the first position holding no record (a zero size or an unknown magic).
func commitLogEnd(storeDir string) (int64, error) {
	var off int64
	for {
		head, err := commitLogRange(storeDir, off, off+8)
		if err != nil {
			if os.IsNotExist(err) {
				return off, nil
			}
			return 0, err
		}
		size := int64(int32(binary.BigEndian.Uint32(head[:4])))
		switch int32(binary.BigEndian.Uint32(head[4:])) {
		case magicMessage, magicMessageV2:
			if size <= 0 {
				return off, nil
			}
			off += size
		case magicBlank:
			off += segmentSize - off%segmentSize
		default:
			return off, nil
		}
	}
}

// physOffset is the CommitLog offset an offsetMsgId names (its last 8 bytes).
func physOffset(t *testing.T, offsetMsgID string) int64 {
	t.Helper()
	raw, err := hex.DecodeString(offsetMsgID)
	if err != nil || len(raw) < 8 {
		t.Fatalf("interop: offsetMsgId %q is not hex", offsetMsgID)
	}
	return int64(binary.BigEndian.Uint64(raw[len(raw)-8:]))
}

// recordAt is the whole record at off in the store's CommitLog.
func recordAt(t *testing.T, storeDir string, off int64) []byte {
	t.Helper()
	head, err := commitLogRange(storeDir, off, off+4)
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	size := int64(binary.BigEndian.Uint32(head))
	if size <= 0 || size > 4<<20 {
		return head
	}
	rec, err := commitLogRange(storeDir, off, off+size)
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	return rec
}

// requireSameCommitLog requires both stores' CommitLogs to end at the same offset and to hold the
// same bytes up to it, and returns that offset.
func requireSameCommitLog(t *testing.T, a, b *broker) int64 {
	t.Helper()
	endA, errA := commitLogEnd(a.StoreDir)
	endB, errB := commitLogEnd(b.StoreDir)
	if errA != nil || errB != nil {
		t.Fatalf("interop: %v %v", errA, errB)
	}
	if endA != endB {
		t.Fatalf("interop: the %s CommitLog ends at %d, the %s one at %d", a.label(), endA, b.label(), endB)
	}
	bytesA, errA := commitLogRange(a.StoreDir, 0, endA)
	bytesB, errB := commitLogRange(b.StoreDir, 0, endB)
	if errA != nil || errB != nil {
		t.Fatalf("interop: %v %v", errA, errB)
	}
	if i := firstDifference(bytesA, bytesB); i >= 0 {
		t.Fatalf("interop: the CommitLogs of %s and %s differ first at byte %d of %d", a.label(), b.label(), i, endA)
	}
	return endA
}

func firstDifference(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// label names a broker in messages: "Apache 4.9.7 master", "Go slave" (ours).
func (b *broker) label() string {
	role := "master"
	if b.ID > 0 {
		role = "slave"
	}
	if b.apache() {
		return "Apache " + b.kind + " " + role
	}
	return "Go " + role
}
