package timer

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

const testSeg = 4096 // 64 records per segment

func rec(i int64) Record {
	return Record{Flags: FlagDeliver, Prev: i - 1, SlotMs: 1000 * i, PhyOffset: 100 * i, Size: int32(i + 1),
		QueueOffset: i, StoreMs: 7 * i}
}

func openLog(t *testing.T, fsys vfs.FS, dir string) *Log {
	t.Helper()
	l, err := OpenLog(fsys, dir, testSeg)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func recoverAll(t *testing.T, l *Log, from int64) []Record {
	t.Helper()
	var got []Record
	first := int64(-1)
	_, err := l.Recover(from, func(pos int64, r Record) error {
		if first < 0 {
			first = pos
		}
		require.Equal(t, first+int64(len(got))*RecordSize, pos, "records are contiguous")
		require.Equal(t, rec(pos/RecordSize), r, "the record written at %d", pos)
		got = append(got, r)
		return nil
	})
	require.NoError(t, err)
	return got
}

func appendN(t *testing.T, l *Log, from, n int64) {
	t.Helper()
	for i := from; i < from+n; i++ {
		r := rec(i)
		pos, err := l.Append(&r)
		require.NoError(t, err)
		require.Equal(t, i*RecordSize, pos)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := Record{Flags: FlagRoll | FlagRecall, Prev: NoPos, SlotMs: 1<<41 + 500, PhyOffset: 1 << 40, Size: 4096,
		QueueOffset: 12345, StoreMs: 1<<41 - 3}
	var b [RecordSize]byte
	r.encode(b[:])
	got, err := decodeRecord(b[:])
	require.NoError(t, err)
	assert.Equal(t, r, got)
	for _, i := range []int{posMagic, posFlags, posPrev + 7, posStoreMs, posCRC + 3} {
		bad := b
		bad[i] ^= 0x10
		_, err := decodeRecord(bad[:])
		assert.ErrorIs(t, err, errBadRecord, "byte %d flipped", i)
	}
	_, err = decodeRecord(make([]byte, RecordSize))
	assert.ErrorIs(t, err, errBadRecord, "zeros are not a record")
}

// Records are readable at once (buffered), across segments, and after a reopen in order.
func TestLogAppendReadReopen(t *testing.T) {
	fsys := vfstest.New(t)
	dir := fsys.Path("log")
	l := openLog(t, fsys, dir)
	assert.Empty(t, recoverAll(t, l, 0))
	appendN(t, l, 0, 150) // 2 full segments and a part
	for _, i := range []int64{0, 63, 64, 149} {
		r, err := l.Read(i * RecordSize)
		require.NoError(t, err)
		assert.Equal(t, rec(i), r)
	}
	_, err := l.Read(150 * RecordSize)
	assert.Error(t, err, "past the end")
	require.NoError(t, l.Sync())
	require.NoError(t, l.Close())

	l2 := openLog(t, fsys, dir)
	got := recoverAll(t, l2, 0)
	require.Len(t, got, 150)
	assert.Equal(t, rec(149), got[149])
	assert.Equal(t, int64(150*RecordSize), l2.End())
	appendN(t, l2, 150, 1)
	r, err := l2.Read(150 * RecordSize)
	require.NoError(t, err)
	assert.Equal(t, rec(150), r)
}

// Recovery stops at the first damaged record and clears everything after it, so that intact
// records written before the damage cannot come back after the next crash.
func TestLogRecoverStopsAtDamageAndClearsTheTail(t *testing.T) {
	fsys := vfstest.New(t)
	dir := fsys.Path("log")
	l := openLog(t, fsys, dir)
	recoverAll(t, l, 0)
	appendN(t, l, 0, 100)
	require.NoError(t, l.Sync())
	require.NoError(t, l.Close())
	// Damage record 20: 21..63 in its segment stay intact on disk, 64..99 fill the next one.
	f, err := fsys.OpenReadWrite(filepath.Join(dir, segmentName(0)))
	require.NoError(t, err)
	_, err = f.WriteAt([]byte{0xFF}, 20*RecordSize+30)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	l2 := openLog(t, fsys, dir)
	assert.Len(t, recoverAll(t, l2, 0), 20)
	assert.Equal(t, int64(20*RecordSize), l2.End())
	ents, err := fsys.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "the segment past the damage is removed")
	// Append 2 records and "crash" (close without writing anything else): only those 2 follow.
	appendN(t, l2, 20, 2)
	require.NoError(t, l2.Close())
	l3 := openLog(t, fsys, dir)
	assert.Len(t, recoverAll(t, l3, 0), 22)
}

// Recovery from a position replays only the records from there on (the checkpoint's log end:
// what lies before it is already in the wheel file).
func TestLogRecoverFromPosition(t *testing.T) {
	fsys := vfstest.New(t)
	dir := fsys.Path("log")
	l := openLog(t, fsys, dir)
	recoverAll(t, l, 0)
	appendN(t, l, 0, 75)
	require.NoError(t, l.Close())
	l2 := openLog(t, fsys, dir)
	got := recoverAll(t, l2, 66*RecordSize+10) // rounded down to record 66
	require.Len(t, got, 75-66)
	assert.Equal(t, rec(66), got[0])
}

func TestLogDropBelowKeepsTheSegmentBeingWritten(t *testing.T) {
	fsys := vfstest.New(t)
	dir := fsys.Path("log")
	l := openLog(t, fsys, dir)
	recoverAll(t, l, 0)
	appendN(t, l, 0, 200) // segments 0..3, the last partly
	n, err := l.DropBelow(2*testSeg + 10)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, int64(2*testSeg), l.Oldest())
	_, err = l.Read(0)
	assert.Error(t, err)
	r, err := l.Read(2 * testSeg)
	require.NoError(t, err)
	assert.Equal(t, rec(128), r)
	n, err = l.DropBelow(1 << 40)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the newest segment stays")
	require.NoError(t, l.Close())
	l2 := openLog(t, fsys, dir)
	got := recoverAll(t, l2, 0)
	require.Len(t, got, 200-192)
	assert.Equal(t, rec(192), got[0])
}

// A full disk is an error at segment creation (preallocated), not a fault later.
func TestLogFullDiskIsAnError(t *testing.T) {
	fsys := vfstest.New(t)
	dir := fsys.Path("log")
	l := openLog(t, fsys, dir)
	recoverAll(t, l, 0)
	appendN(t, l, 0, 64)
	fsys.Fail(vfstest.OpFallocate, "log/*", 0, syscall.ENOSPC)
	r := rec(64)
	_, err := l.Append(&r)
	assert.ErrorIs(t, err, syscall.ENOSPC)
	assert.Equal(t, int64(64*RecordSize), l.End(), "nothing appended")
}

// What was synced survives a power loss; what was only written may not, and never half.
func TestLogPowerLoss(t *testing.T) {
	fsys := vfstest.New(t)
	dir := fsys.Path("log")
	l := openLog(t, fsys, dir)
	recoverAll(t, l, 0)
	appendN(t, l, 0, 40)
	require.NoError(t, l.Sync())
	appendN(t, l, 40, 30)
	require.NoError(t, l.Flush())
	lost, err := fsys.PowerLoss(t.TempDir())
	require.NoError(t, err)
	l2 := openLog(t, lost, lost.Path("log"))
	got := recoverAll(t, l2, 0)
	assert.Len(t, got, 40)
}

func TestOpenLogRefusesForeignFiles(t *testing.T) {
	fsys := vfstest.New(t)
	dir := fsys.Path("log")
	require.NoError(t, vfs.MkdirAll(fsys, dir))
	require.NoError(t, vfs.WriteFile(fsys, filepath.Join(dir, "junk"), []byte("x")))
	_, err := OpenLog(fsys, dir, testSeg)
	assert.ErrorContains(t, err, "not a log segment")
	_, err = OpenLog(fsys, fsys.Path("other"), 1000)
	assert.ErrorContains(t, err, "multiple of 4096")
}
