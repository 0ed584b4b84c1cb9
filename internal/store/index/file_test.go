package index

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

const ts0 = int64(1_700_000_000_000)

var tinyLayout = Layout{HashSlotNum: 4, IndexNum: 8}

func createTestFile(t *testing.T, l Layout) *IndexFile {
	t.Helper()
	f, err := Create(vfs.Default, filepath.Join(t.TempDir(), "20240102030405006"), l, 0, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func put(t *testing.T, f *IndexFile, key string, phy, ts int64) {
	t.Helper()
	full, err := f.Put(key, phy, ts)
	require.NoError(t, err)
	require.False(t, full)
}

// The bytes of a small file, spelled out field by field without the codec.
func TestFileGoldenBytes(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	put(t, f, "Aa", 1000, ts0)      // hash 2112, slot 0
	put(t, f, "a", 1100, ts0+2500)  // hash 97, slot 1
	put(t, f, "BB", 1200, ts0+3000) // hash 2112, slot 0, chained to entry 1
	require.NoError(t, f.Flush())

	var want []byte
	be64 := func(v int64) { want = binary.BigEndian.AppendUint64(want, uint64(v)) }
	be32 := func(v int32) { want = binary.BigEndian.AppendUint32(want, uint32(v)) }
	be64(ts0)        // begin timestamp
	be64(ts0 + 3000) // end timestamp
	be64(1000)       // begin phy offset
	be64(1200)       // end phy offset
	be32(3)          // hashSlotCount (puts)
	be32(4)          // indexCount
	be32(3)          // slot 0 → entry 3
	be32(2)          // slot 1 → entry 2
	be32(0)
	be32(0)
	want = append(want, make([]byte, 20)...) // entry 0, unused
	be32(2112)
	be64(1000)
	be32(0)
	be32(0)
	be32(97)
	be64(1100)
	be32(2)
	be32(0)
	be32(2112)
	be64(1200)
	be32(3)
	be32(1)
	want = append(want, make([]byte, 4*20)...) // entries 4..7

	got, err := os.ReadFile(f.Path())
	require.NoError(t, err)
	require.Equal(t, int(tinyLayout.FileSize()), len(got))
	require.Equal(t, want, got)
}

func TestCreateAfterFullFileCarriesEnd(t *testing.T) {
	f, err := Create(vfs.Default, filepath.Join(t.TempDir(), "x"), tinyLayout, 5000, ts0)
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, Header{BeginTimestamp: ts0, EndTimestamp: ts0, BeginPhyOffset: 5000, EndPhyOffset: 5000, IndexCount: 1}, f.Header())
	// The first put takes over the begin values; its time difference is 0.
	put(t, f, "k", 6000, ts0+7000)
	h := f.Header()
	require.Equal(t, int64(6000), h.BeginPhyOffset)
	require.Equal(t, ts0+7000, h.BeginTimestamp)
	require.Equal(t, []int64{6000}, f.Select("k", 10, ts0+7000, ts0+7000))
}

func TestCreateRefusesExisting(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	_, err := Create(vfs.Default, f.Path(), tinyLayout, 0, 0)
	require.ErrorIs(t, err, os.ErrExist)
}

func TestSelectCollisions(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	// Different keys whose hashes share slot 1 of 4.
	var same []string
	for c := 'a'; len(same) < 3; c++ {
		if k := string(c); KeyHash(k)%4 == 1 {
			same = append(same, k)
		}
	}
	require.NotEqual(t, KeyHash(same[0]), KeyHash(same[1]))
	for i, k := range same {
		put(t, f, k, int64(100*(i+1)), ts0+int64(i)*1000)
	}
	put(t, f, same[0], 400, ts0+3000)
	require.Equal(t, []int64{400, 100}, f.Select(same[0], 10, 0, ts0+10_000))
	require.Equal(t, []int64{200}, f.Select(same[1], 10, 0, ts0+10_000))
	require.Equal(t, []int64{300}, f.Select(same[2], 10, 0, ts0+10_000))
	require.Empty(t, f.Select("missing-key-in-empty-slot"+same[0], 10, 0, ts0+10_000))

	// Equal hashes are indistinguishable: both keys answer with both offsets, as in Java.
	put(t, f, "Aa", 500, ts0+4000)
	put(t, f, "BB", 600, ts0+5000)
	require.Equal(t, []int64{600, 500}, f.Select("Aa", 10, 0, ts0+10_000))
	require.Equal(t, []int64{600, 500}, f.Select("BB", 10, 0, ts0+10_000))
}

func TestSelectTimeRange(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	put(t, f, "k", 100, ts0)      // time ts0
	put(t, f, "k", 200, ts0+1500) // stored as 1 s: time ts0+1000
	put(t, f, "k", 300, ts0+5000) // time ts0+5000
	all := func(b, e int64) []int64 { return f.Select("k", 10, b, e) }
	require.Equal(t, []int64{300, 200, 100}, all(ts0, ts0+5000))
	require.Equal(t, []int64{200}, all(ts0+1000, ts0+4999))
	require.Equal(t, []int64{300}, all(ts0+1001, ts0+5000)) // Java compares the truncated time
	require.Equal(t, []int64{300, 200}, all(ts0+1, ts0+5000))
	require.Equal(t, []int64{100}, all(0, ts0+999))
	require.Empty(t, all(ts0+5001, ts0+9999))
	require.Empty(t, all(ts0+2000, ts0+3000))
}

func TestSelectMaxNum(t *testing.T) {
	f := createTestFile(t, Layout{HashSlotNum: 4, IndexNum: 16})
	for i := int64(1); i <= 10; i++ {
		put(t, f, "k", i*100, ts0+i*1000)
	}
	require.Equal(t, []int64{1000, 900, 800}, f.Select("k", 3, 0, ts0+100_000))
	require.Len(t, f.Select("k", 100, 0, ts0+100_000), 10)
	require.Empty(t, f.Select("k", 0, 0, ts0+100_000))
}

func TestSelectSkipsRepeatedOffset(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	put(t, f, "k", 100, ts0)
	put(t, f, "k", 100, ts0) // the same record dispatched twice
	put(t, f, "k", 200, ts0)
	require.Equal(t, []int64{200, 100}, f.Select("k", 10, 0, ts0))
}

func TestPutUntilFull(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	for i := int64(1); i < int64(tinyLayout.IndexNum); i++ {
		put(t, f, "k", i, ts0)
	}
	require.True(t, f.IsFull())
	full, err := f.Put("k", 99, ts0)
	require.NoError(t, err)
	require.True(t, full)
	require.Equal(t, int32(tinyLayout.IndexNum), f.Header().IndexCount)
	require.Len(t, f.Select("k", 100, 0, ts0), tinyLayout.IndexNum-1)
}

func TestLoadRoundTrip(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	put(t, f, "k", 100, ts0)
	put(t, f, "j", 200, ts0+2000)
	require.NoError(t, f.Flush())
	h := f.Header()
	require.NoError(t, f.Close())
	require.ErrorIs(t, f.Flush(), ErrClosed)
	_, err := f.Put("k", 1, 1)
	require.ErrorIs(t, err, ErrClosed)
	require.Empty(t, f.Select("k", 10, 0, ts0+10_000))
	require.NoError(t, f.Close())

	g, err := Load(vfs.Default, f.Path(), tinyLayout)
	require.NoError(t, err)
	defer g.Close()
	require.Equal(t, h, g.Header())
	require.Equal(t, []int64{100}, g.Select("k", 10, 0, ts0+10_000))
	put(t, g, "k", 300, ts0+3000)
	require.Equal(t, []int64{300, 100}, g.Select("k", 10, 0, ts0+10_000))

	_, err = Load(vfs.Default, f.Path(), Layout{HashSlotNum: 5, IndexNum: 8})
	require.ErrorIs(t, err, ErrSizeMismatch)
}

func TestLoadJavaFreshHeader(t *testing.T) {
	// Java leaves indexCount 0 on disk until the first put; it reads as 1.
	path := filepath.Join(t.TempDir(), "20240102030405006")
	require.NoError(t, os.WriteFile(path, make([]byte, tinyLayout.FileSize()), 0o644))
	f, err := Load(vfs.Default, path, tinyLayout)
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, int32(1), f.Header().IndexCount)
	put(t, f, "k", 100, ts0)
	require.Equal(t, []int64{100}, f.Select("k", 10, 0, ts0))
}

func TestTruncate(t *testing.T) {
	f := createTestFile(t, Layout{HashSlotNum: 4, IndexNum: 16})
	put(t, f, "a", 100, ts0)
	put(t, f, "b", 100, ts0)
	put(t, f, "a", 200, ts0+1000)
	put(t, f, "a", 300, ts0+2000)
	put(t, f, "b", 300, ts0+2000)
	put(t, f, "c", 400, ts0+3000)
	before := f.Header()

	n, err := f.Truncate(300)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	h := f.Header()
	require.Equal(t, int32(4), h.IndexCount)
	require.Equal(t, int64(200), h.EndPhyOffset)
	require.Equal(t, ts0+1000, h.EndTimestamp)
	require.Equal(t, before.HashSlotCount-3, h.HashSlotCount)
	require.Equal(t, []int64{200, 100}, f.Select("a", 10, 0, ts0+10_000))
	require.Equal(t, []int64{100}, f.Select("b", 10, 0, ts0+10_000))
	require.Empty(t, f.Select("c", 10, 0, ts0+10_000))

	// Re-adding the same records gives the same bytes as never having removed them.
	put(t, f, "a", 300, ts0+2000)
	put(t, f, "b", 300, ts0+2000)
	put(t, f, "c", 400, ts0+3000)
	require.Equal(t, before, f.Header())
	g := createTestFile(t, Layout{HashSlotNum: 4, IndexNum: 16})
	for _, p := range []struct {
		k      string
		phy, t int64
	}{{"a", 100, 0}, {"b", 100, 0}, {"a", 200, 1000}, {"a", 300, 2000}, {"b", 300, 2000}, {"c", 400, 3000}} {
		put(t, g, p.k, p.phy, ts0+p.t)
	}
	require.Equal(t, g.data, f.data)

	n, err = f.Truncate(1_000_000) // nothing beyond
	require.NoError(t, err)
	require.Equal(t, 6, n)
	n, err = f.Truncate(0)
	require.NoError(t, err)
	require.Zero(t, n)
	require.Equal(t, Header{IndexCount: 1}, f.Header())
	empty := make([]byte, len(f.data))
	EncodeHeader((*[HeaderSize]byte)(empty), Header{IndexCount: 1})
	require.Equal(t, empty, f.data, "a file truncated to nothing reads as a new one")
}

func TestFlushErrorIsSticky(t *testing.T) {
	fs := vfstest.New(t)
	f, err := Create(fs, fs.Path("20240102030405006"), tinyLayout, 0, 0)
	require.NoError(t, err)
	defer f.Close()
	fs.Fail(vfstest.OpMsync, "", 0, unix.EIO)
	put(t, f, "k", 1, ts0)
	require.ErrorIs(t, f.Flush(), unix.EIO)
	put(t, f, "k", 2, ts0)
	require.ErrorIs(t, f.Flush(), unix.EIO)
	require.Equal(t, 1, fs.Count(vfstest.OpMsync, ""), "a failed msync is never retried")
}

func TestFlushOnlyWhenDirty(t *testing.T) {
	fs := vfstest.New(t)
	f, err := Create(fs, fs.Path("20240102030405006"), tinyLayout, 0, 0)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, f.Flush(), "a new file is dirty (its header)")
	calls := func() int { return fs.Count(vfstest.OpMsync, "") }
	require.Equal(t, 1, calls())
	require.NoError(t, f.Flush())
	require.Equal(t, 1, calls())
	put(t, f, "k", 1, ts0)
	require.NoError(t, f.Flush())
	require.NoError(t, f.Flush())
	require.Equal(t, 2, calls())
}

func TestCreateZeroFillFallback(t *testing.T) {
	fs := vfstest.New(t)
	path := fs.Path("20240102030405006")
	fs.Fail(vfstest.OpFallocate, "", 0, vfs.ErrUnsupported)
	l := Layout{HashSlotNum: 100_000, IndexNum: 100_000} // larger than one zero chunk
	f, err := Create(fs, path, l, 0, 0)
	require.NoError(t, err)
	defer f.Close()
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, l.FileSize(), st.Size())
	var stat unix.Stat_t
	require.NoError(t, unix.Stat(path, &stat))
	require.GreaterOrEqual(t, stat.Blocks*512, l.FileSize(), "zero fill allocates every block")
	put(t, f, "k", 1, ts0)
	require.Equal(t, []int64{1}, f.Select("k", 1, 0, ts0))
}

func TestCreateDiskFull(t *testing.T) {
	fs := vfstest.New(t)
	path := fs.Path("20240102030405006")
	fs.Fail(vfstest.OpFallocate, "", 0, unix.ENOSPC)
	_, err := Create(fs, path, tinyLayout, 0, 0)
	require.ErrorIs(t, err, unix.ENOSPC)
	for _, p := range []string{path, path + ".tmp"} {
		_, statErr := os.Stat(p)
		require.True(t, errors.Is(statErr, os.ErrNotExist), "a failed create leaves no file")
	}
}

func TestLoadDiskFullIsReadOnly(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	put(t, f, "k", 1, ts0)
	require.NoError(t, f.Close())
	fs := vfstest.NewAt(filepath.Dir(f.Path()))
	fs.Fail(vfstest.OpFallocate, "", 0, unix.ENOSPC)
	g, err := Load(fs, f.Path(), tinyLayout)
	require.NoError(t, err)
	defer g.Close()
	require.True(t, g.IsFull())
	full, err := g.Put("k", 2, ts0)
	require.NoError(t, err)
	require.True(t, full)
	require.Equal(t, []int64{1}, g.Select("k", 10, 0, ts0))
	_, err = g.Truncate(0)
	require.ErrorIs(t, err, ErrSealed)
}

func TestDestroy(t *testing.T) {
	f := createTestFile(t, tinyLayout)
	require.NoError(t, f.Destroy())
	_, err := os.Stat(f.Path())
	require.ErrorIs(t, err, os.ErrNotExist)
}
