package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"
	"golang.org/x/sys/unix"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// testClock gives every call a time 1 ms after the previous one.
func testClock() func() time.Time {
	var n atomic.Int64
	base := time.Date(2024, 1, 2, 3, 4, 5, 0, time.Local)
	return func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Millisecond) }
}

func testOptions() Options {
	return Options{HashSlotNum: 8, IndexNum: 16, CleanShutdown: true, Now: testClock()}
}

func openService(t *testing.T, dir string, opts Options) *Service {
	t.Helper()
	s, err := Open(dir, opts, zaptest.NewLogger(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// rec is a record of topic T stored at ts0 + phy ms.
func rec(phy int64, keys, uniq string) Request {
	return Request{Topic: "T", Keys: keys, UniqKey: uniq, PhyOffset: phy, StoreTimestamp: ts0 + phy}
}

func build(t *testing.T, s *Service, reqs ...Request) {
	t.Helper()
	for _, r := range reqs {
		require.NoError(t, s.BuildIndex(r))
	}
}

func query(s *Service, key string) []int64 {
	return s.Query("T", key, 1000, 0, ts0+1_000_000_000).PhyOffsets
}

func TestBuildIndexKeysAndUniqKey(t *testing.T) {
	s := openService(t, t.TempDir(), testOptions())
	build(t, s, rec(1000, "k1 k2  k3 ", "U1"), rec(2000, "k2", ""))
	require.Equal(t, []int64{1000}, query(s, "U1"))
	require.Equal(t, []int64{1000}, query(s, "k1"))
	require.Equal(t, []int64{2000, 1000}, query(s, "k2"))
	require.Equal(t, []int64{1000}, query(s, "k3"))
	require.Empty(t, query(s, ""))
	require.Empty(t, s.Query("Other", "k1", 10, 0, ts0+1_000_000).PhyOffsets)

	// Order on disk: the unique key first, then KEYS in order (Java's order).
	f := s.files[0]
	require.Equal(t, int32(6), f.Header().IndexCount)
	require.Equal(t, TopicKeyHash("T", "U1"), DecodeEntry(f.entryLocked(1)).KeyHash)
	require.Equal(t, TopicKeyHash("T", "k1"), DecodeEntry(f.entryLocked(2)).KeyHash)
	require.Equal(t, TopicKeyHash("T", "k3"), DecodeEntry(f.entryLocked(4)).KeyHash)
}

func TestBuildIndexTransactions(t *testing.T) {
	s := openService(t, t.TempDir(), testOptions())
	for i, flag := range []int32{0x0, 0x4, 0x8, 0xC, 0xC | 0x1, 0x8 | 0x2} {
		r := rec(int64(i+1)*100, "k", "")
		r.SysFlag = flag
		build(t, s, r)
	}
	// NOT, PREPARED and COMMIT are indexed; ROLLBACK (0xC, whatever the other bits) is not.
	require.Equal(t, []int64{600, 300, 200, 100}, query(s, "k"))
}

func TestBuildIndexSkipsAlreadyIndexed(t *testing.T) {
	s := openService(t, t.TempDir(), testOptions())
	build(t, s, rec(100, "k", ""), rec(200, "k", ""))
	build(t, s, rec(100, "k", ""), rec(150, "j", "")) // before the end: re-dispatch, skipped
	require.Equal(t, []int64{200, 100}, query(s, "k"))
	require.Empty(t, query(s, "j"))
	build(t, s, rec(200, "j", "")) // the newest indexed record again: skipped (Java would index it)
	require.Empty(t, query(s, "j"))
	require.Equal(t, []int64{200, 100}, query(s, "k"))
	require.Equal(t, int64(200), s.EndPhyOffset())
}

func TestRollToNextFile(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.IndexNum = 4 // 3 entries per file
	s := openService(t, dir, opts)
	build(t, s, rec(1000, "a b", ""), rec(2000, "a c", ""), rec(3000, "a", ""))
	require.Equal(t, 2, s.FileCount())
	first, second := s.files[0].Header(), s.files[1].Header()
	require.Equal(t, int32(4), first.IndexCount)
	require.Equal(t, int64(2000), first.EndPhyOffset) // "a" of 2000 filled it
	require.Equal(t, int32(3), second.IndexCount)     // "c" of 2000 and "a" of 3000
	require.Equal(t, int64(2000), second.BeginPhyOffset)
	require.Equal(t, ts0+2000, second.BeginTimestamp)

	require.Equal(t, []int64{3000, 2000, 1000}, query(s, "a"))
	require.Equal(t, []int64{2000}, query(s, "c"))
	require.Equal(t, []int64{3000, 2000}, s.Query("T", "a", 2, 0, ts0+10_000).PhyOffsets)

	res := s.Query("T", "a", 10, 0, ts0+10_000)
	require.Equal(t, ts0+3000, res.IndexLastUpdateTimestamp)
	require.Equal(t, int64(3000), res.IndexLastUpdatePhyoffset)

	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, names, 2)
	require.Less(t, names[0].Name(), names[1].Name())
	require.Equal(t, 2*Layout{8, 4}.FileSize(), s.TotalSize())
}

func TestQueryTimeRangeAcrossFiles(t *testing.T) {
	opts := testOptions()
	opts.IndexNum = 3 // 2 entries per file
	s := openService(t, t.TempDir(), opts)
	for i := int64(1); i <= 6; i++ {
		build(t, s, rec(i*10_000, "k", "")) // stored at ts0 + i×10 s
	}
	require.Equal(t, 3, s.FileCount())
	q := func(b, e int64) []int64 { return s.Query("T", "k", 100, ts0+b, ts0+e).PhyOffsets }
	require.Equal(t, []int64{60_000, 50_000, 40_000, 30_000, 20_000, 10_000}, q(0, 60_000))
	require.Equal(t, []int64{40_000, 30_000}, q(25_000, 45_000))
	require.Equal(t, []int64{30_000}, q(30_000, 30_000))
	require.Empty(t, q(61_000, 90_000))
	require.Empty(t, q(-90_000, -1))
}

func TestQueryMaxNumCapped(t *testing.T) {
	opts := testOptions()
	opts.IndexNum = 200
	opts.MaxQueryNum = 5
	s := openService(t, t.TempDir(), opts)
	for i := int64(1); i <= 20; i++ {
		build(t, s, rec(i, "k", ""))
	}
	require.Len(t, s.Query("T", "k", 32, 0, ts0+1000).PhyOffsets, 5)
	require.Len(t, s.Query("T", "k", 3, 0, ts0+1000).PhyOffsets, 3)
	res := s.Query("T", "k", 0, 0, ts0+1000)
	require.Empty(t, res.PhyOffsets)
	require.Equal(t, int64(20), res.IndexLastUpdatePhyoffset)
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.IndexNum = 4
	s, err := Open(dir, opts, nil)
	require.NoError(t, err)
	build(t, s, rec(1000, "a b", "u1"), rec(2000, "a", "u2"))
	require.NoError(t, s.Flush())
	want := query(s, "a")
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.BuildIndex(rec(3000, "a", "")), ErrClosed)
	require.Empty(t, query(s, "a"))

	s2 := openService(t, dir, opts)
	require.Equal(t, 2, s2.FileCount())
	require.Equal(t, want, query(s2, "a"))
	require.Equal(t, []int64{2000}, query(s2, "u2"))
	// Re-dispatch after recovery repeats the newest indexed record: it is not
	// indexed twice (Java would add its keys again).
	build(t, s2, rec(2000, "a", "u2"), rec(3000, "a", ""))
	require.Equal(t, []int64{2000}, query(s2, "u2"))
	require.Equal(t, append([]int64{3000}, want...), query(s2, "a"))
}

func TestOpenAfterUncleanShutdown(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.IndexNum = 3 // 2 entries per file
	s := openService(t, dir, opts)
	build(t, s, rec(1000, "a", ""), rec(2000, "a", ""), rec(3000, "a", ""), rec(4000, "a", ""), rec(5000, "a", ""))
	require.Equal(t, 3, s.FileCount())
	require.NoError(t, s.Flush())
	require.Equal(t, ts0+5000, s.LastFlushedTimestamp())
	require.NoError(t, s.Close())

	// The checkpoint says the index is durable up to the second file's end (ts0+4000): the third
	// file (end ts0+5000) is repaired; its only record's keys may be incomplete, so they go and
	// with them the file.
	opts.CleanShutdown = false
	opts.CheckpointTimestamp = ts0 + 4000
	s2 := openService(t, dir, opts)
	require.True(t, s2.LostOnLoad())
	require.Equal(t, 2, s2.FileCount())
	require.Equal(t, []int64{4000, 3000, 2000, 1000}, query(s2, "a"))
	require.Equal(t, ts0+4000, s2.LastFlushedTimestamp())
	require.Equal(t, int64(4000), s2.EndPhyOffset())
	build(t, s2, rec(4000, "a", ""), rec(5000, "a", "")) // re-dispatched by the store from 4000
	require.Equal(t, []int64{5000, 4000, 3000, 2000, 1000}, query(s2, "a"))
	require.NoError(t, s2.Close())

	// With no checkpoint every file is repaired: the full ones keep all their entries.
	opts.CheckpointTimestamp = 0
	s3 := openService(t, dir, opts)
	require.Equal(t, 2, s3.FileCount())
	require.Equal(t, []int64{4000, 3000, 2000, 1000}, query(s3, "a"))

	// After a clean stop nothing is lost.
	require.NoError(t, s3.Close())
	opts.CleanShutdown = true
	require.False(t, openService(t, dir, opts).LostOnLoad())
}

func TestOpenRejectsOtherLayout(t *testing.T) {
	dir := t.TempDir()
	s := openService(t, dir, testOptions())
	build(t, s, rec(1, "a", ""))
	require.NoError(t, s.Close())
	opts := testOptions()
	opts.HashSlotNum = 9
	_, err := Open(dir, opts, nil)
	require.ErrorIs(t, err, ErrSizeMismatch)
}

func TestOpenRemovesAbandonedCreation(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "20240102030405006"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "20240102030405007"), make([]byte, 100), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("not an index"), 0o644))
	s := openService(t, dir, testOptions())
	require.Zero(t, s.FileCount())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the foreign file is left")
	require.Equal(t, "README", entries[0].Name())
}

func TestOpenBadOptions(t *testing.T) {
	_, err := Open(t.TempDir(), Options{HashSlotNum: -1}, nil)
	require.ErrorIs(t, err, ErrBadLayout)
	_, err = Open(t.TempDir(), Options{MaxQueryNum: -1}, nil)
	require.Error(t, err)
}

func TestServiceTruncate(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.IndexNum = 4 // 3 entries per file
	s := openService(t, dir, opts)
	for i := int64(1); i <= 7; i++ {
		build(t, s, rec(i*1000, "k", fmt.Sprintf("u%d", i)))
	}
	// 14 entries, 3 per file: 5 files.
	require.Equal(t, 5, s.FileCount())
	require.Equal(t, []int64{7000, 6000, 5000, 4000, 3000, 2000, 1000}, query(s, "k"))

	require.NoError(t, s.Truncate(4500))
	require.Equal(t, []int64{4000, 3000, 2000, 1000}, query(s, "k"))
	require.Empty(t, query(s, "u5"))
	require.Equal(t, int64(4000), s.EndPhyOffset())
	for _, f := range s.files {
		require.Less(t, f.EndPhyOffset(), int64(4500))
	}
	// Re-dispatch after recovery rebuilds the tail.
	build(t, s, rec(4500, "k", "u45"))
	require.Equal(t, []int64{4500, 4000, 3000, 2000, 1000}, query(s, "k"))

	require.NoError(t, s.Truncate(4000)) // the boundary is a record: it goes too
	require.Equal(t, []int64{3000, 2000, 1000}, query(s, "k"))
	require.Empty(t, query(s, "u4"))

	require.NoError(t, s.Truncate(0))
	require.Zero(t, s.FileCount())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
	build(t, s, rec(1000, "k", ""))
	require.Equal(t, []int64{1000}, query(s, "k"))
}

func TestServiceTruncateNeverReturnsBeyondEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		opts := testOptions()
		opts.IndexNum = 2 + r.IntN(10)
		opts.HashSlotNum = 1 + r.IntN(5)
		s := openService(t, t.TempDir(), opts)
		phy := int64(0)
		indexed := map[string][]int64{} // key → offsets, newest first
		for i := 0; i < 50; i++ {
			phy += int64(1 + r.IntN(3))
			a, b := fmt.Sprintf("k%d", r.IntN(4)), fmt.Sprintf("k%d", r.IntN(4))
			build(t, s, rec(phy, a+" "+b, ""))
			for _, k := range []string{a, b} {
				if o := indexed[k]; len(o) == 0 || o[0] != phy {
					indexed[k] = append([]int64{phy}, o...)
				}
			}
		}
		limit := int64(r.IntN(int(phy) + 2))
		require.NoError(t, s.Truncate(limit))
		for k := 0; k < 4; k++ {
			key := fmt.Sprintf("k%d", k)
			var want []int64
			for _, p := range indexed[key] {
				if p < limit {
					want = append(want, p)
				}
			}
			got := query(s, key)
			require.True(t, sort.SliceIsSorted(got, func(i, j int) bool { return got[i] > got[j] }))
			require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "key %s after Truncate(%d): entries below the end are kept", key, limit)
		}
		require.NoError(t, s.Close())
	}
}

func TestDeleteExpired(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.IndexNum = 3 // 2 entries per file
	s := openService(t, dir, opts)
	for i := int64(1); i <= 8; i++ {
		build(t, s, rec(i*1000, "k", ""))
	}
	require.Equal(t, 4, s.FileCount()) // ends 2000, 4000, 6000, 8000

	n, err := s.DeleteExpired(2000) // nothing ends below 2000
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = s.DeleteExpired(4001)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, []int64{8000, 7000, 6000, 5000}, query(s, "k"))
	n, err = s.DeleteExpired(1 << 40) // never the newest file
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 1, s.FileCount())
	require.Equal(t, []int64{8000, 7000}, query(s, "k"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

func TestServiceFlush(t *testing.T) {
	fs := vfstest.New(t)
	opts := testOptions()
	opts.CheckpointTimestamp = 5
	opts.FS = fs
	s := openService(t, fs.Root(), opts)
	require.Equal(t, int64(5), s.LastFlushedTimestamp())
	require.NoError(t, s.Flush()) // nothing yet
	require.Equal(t, int64(5), s.LastFlushedTimestamp())

	build(t, s, rec(1000, "k", ""))
	require.NoError(t, s.Flush())
	require.Equal(t, ts0+1000, s.LastFlushedTimestamp())

	build(t, s, rec(2000, "k", ""))
	fs.Fail(vfstest.OpMsync, fs.Rel(s.files[0].Path()), 0, unix.EIO)
	require.ErrorIs(t, s.Flush(), unix.EIO)
	require.ErrorIs(t, s.Flush(), unix.EIO)
	require.Equal(t, ts0+1000, s.LastFlushedTimestamp(), "a failed flush does not advance")
}

func TestBuildIndexDiskFull(t *testing.T) {
	fs := vfstest.New(t)
	opts := testOptions()
	opts.FS = fs
	fs.Fail(vfstest.OpFallocate, "", 0, unix.ENOSPC)
	s := openService(t, fs.Root(), opts)
	require.ErrorIs(t, s.BuildIndex(rec(1000, "k", "")), unix.ENOSPC)
	require.Zero(t, s.FileCount())
	require.Empty(t, query(s, "k"))
}

// One dispatcher fills small files while readers query: every answer holds only offsets that
// were indexed for the key, newest first, and a reader that started after a record was indexed
// sees it.
// With no disk space, a reopened file that still had room is read-only: Truncate deletes it
// whole instead of writing to it, and BuildIndex fails to roll with ENOSPC.
func TestServiceDiskFullAfterReopen(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.IndexNum = 4 // 3 entries per file
	s := openService(t, dir, opts)
	build(t, s, rec(1000, "a b", ""), rec(2000, "a c", ""), rec(3000, "a", ""))
	require.NoError(t, s.Close())

	fs := vfstest.NewAt(dir)
	fs.Fail(vfstest.OpFallocate, "", 0, unix.ENOSPC)
	opts.FS = fs
	s2 := openService(t, dir, opts)
	require.Equal(t, 2, s2.FileCount())
	require.False(t, s2.files[0].sealed, "a full file needs no reservation")
	require.True(t, s2.files[1].sealed)
	require.Equal(t, []int64{3000, 2000, 1000}, query(s2, "a"))

	require.ErrorIs(t, s2.BuildIndex(rec(4000, "a", "")), unix.ENOSPC)
	require.NoError(t, s2.Truncate(2500))
	require.Equal(t, 1, s2.FileCount())
	require.Equal(t, []int64{2000, 1000}, query(s2, "a"))
	require.Empty(t, query(s2, "c"), "c of 2000 was in the deleted file")
}

func TestConcurrentBuildAndQuery(t *testing.T) {
	opts := testOptions()
	opts.IndexNum = 64
	opts.HashSlotNum = 16
	s := openService(t, t.TempDir(), opts)
	const records, keys = 3000, 7
	var indexed atomic.Int64 // highest phy offset fully indexed

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for indexed.Load() < records {
				done := indexed.Load()
				k := int(done) % keys
				got := s.Query("T", fmt.Sprintf("k%d", k), 64, 0, ts0+records).PhyOffsets
				for i, p := range got {
					if p%keys != int64(k) || p < 1 || p > records || (i > 0 && got[i-1] <= p) {
						errs <- fmt.Errorf("key k%d: bad answer %v", k, got)
						return
					}
				}
				if done >= keys && (len(got) == 0 || got[0] < done-keys+1) {
					errs <- fmt.Errorf("key k%d: newest %v misses records up to %d", k, got, done)
					return
				}
			}
		}()
	}
	for p := int64(1); p <= records; p++ {
		if err := s.BuildIndex(Request{Topic: "T", Keys: fmt.Sprintf("k%d", p%keys), PhyOffset: p, StoreTimestamp: ts0 + p}); err != nil {
			t.Fatal(err)
		}
		indexed.Store(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.Greater(t, s.FileCount(), 10)
}

func TestFileNames(t *testing.T) {
	at := time.Date(2024, 1, 31, 23, 59, 59, 42_000_000, time.Local)
	require.Equal(t, "20240131235959042", FileName(at))
	back, err := ParseFileName("20240131235959042")
	require.NoError(t, err)
	require.True(t, at.Equal(back))
	_, err = ParseFileName("2024013123595904x")
	require.Error(t, err)

	require.Equal(t, "20240131235959042", nextFileName(at, ""))
	require.Equal(t, "20240131235959043", nextFileName(at, "20240131235959042"))
	require.Equal(t, "20240201000000000", nextFileName(at, "20240131235959999"))
	require.Equal(t, "20240131235959042", nextFileName(at, "20240131235959041"))
	require.Equal(t, "20240131235959042", nextFileName(at, "garbage"))
}

// A creation a crash interrupted leaves <name>.tmp: Open removes it.
func TestOpenRemovesInterruptedCreation(t *testing.T) {
	dir := t.TempDir()
	tmp := filepath.Join(dir, "20240102030405006.tmp")
	require.NoError(t, os.WriteFile(tmp, []byte("partial"), 0o644))
	other := filepath.Join(dir, "notes.tmp")
	require.NoError(t, os.WriteFile(other, nil, 0o644))
	s := openService(t, dir, testOptions())
	require.Zero(t, s.FileCount())
	_, err := os.Stat(tmp)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(other)
	require.NoError(t, err, "a file that is not an index file's temp is left alone")
}
