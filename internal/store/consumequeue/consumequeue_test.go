package consumequeue

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const perFile = 1000

func openCQ(t *testing.T, root string) *ConsumeQueue { return openCQWith(t, root, false) }

// openCQWith opens the test queue writing its entries through the mapping or, with through,
// with pwrite (Options.WriteThrough, SYNC_FLUSH stores).
func openCQWith(t *testing.T, root string, through bool) *ConsumeQueue {
	t.Helper()
	cq, err := Open(root, "TopicA", 3, Options{EntriesPerFile: perFile, Logger: zaptest.NewLogger(t), WriteThrough: through})
	require.NoError(t, err)
	require.NoError(t, cq.Recover(false))
	t.Cleanup(cq.Close)
	return cq
}

func entry(i int64) Entry { return Entry{Offset: i * 100, Size: 100, TagsCode: i} }

func putRange(t *testing.T, cq *ConsumeQueue, from, to int64) {
	t.Helper()
	for i := from; i < to; i++ {
		require.NoError(t, cq.Put(i, entry(i)))
	}
}

// writeModes runs test with entries stored to the mapping and written with pwrite.
func writeModes(t *testing.T, test func(t *testing.T, through bool)) {
	t.Run("mapping", func(t *testing.T) { test(t, false) })
	t.Run("pwrite", func(t *testing.T) { test(t, true) })
}

func TestPutReadReopen(t *testing.T) { writeModes(t, testPutReadReopen) }

func testPutReadReopen(t *testing.T, through bool) {
	root := t.TempDir()
	cq := openCQWith(t, root, through)
	require.Zero(t, cq.MaxOffset())
	putRange(t, cq, 0, 2500)
	require.EqualValues(t, 2500, cq.MaxOffset())
	require.EqualValues(t, 0, cq.MinOffset())
	require.EqualValues(t, 2499*100+100, cq.MaxPhyOffset())
	_, err := os.Stat(filepath.Join(root, "TopicA", "3", mmapfile.FileName(2*perFile*EntrySize)))
	require.NoError(t, err, "files named by start byte offset")

	es, ok := cq.Entries(990)
	require.True(t, ok)
	require.Equal(t, 10, es.Len(), "a run ends at its file's end")
	require.EqualValues(t, 990, es.First())
	require.Equal(t, entry(995), es.At(5))
	es.Release()
	es, ok = cq.Entries(2400)
	require.True(t, ok)
	require.Equal(t, 100, es.Len())
	es.Release()
	_, ok = cq.Entries(2500)
	require.False(t, ok)
	e, ok := cq.Get(1234)
	require.True(t, ok)
	require.Equal(t, entry(1234), e)
	require.EqualValues(t, 2000, cq.RollNextFile(1234))

	// Re-putting present entries is skipped (re-dispatch after a crash).
	require.NoError(t, cq.Put(1234, Entry{Offset: 1, Size: 1}))
	e, _ = cq.Get(1234)
	require.Equal(t, entry(1234), e)

	require.NoError(t, cq.Flush(0))
	cq.Close()
	cq2 := openCQWith(t, root, through)
	require.EqualValues(t, 2500, cq2.MaxOffset())
	require.EqualValues(t, 2499*100+100, cq2.MaxPhyOffset())
	putRange(t, cq2, 2500, 2600)
	e, _ = cq2.Get(2550)
	require.Equal(t, entry(2550), e)
}

func TestPreBlankAndGaps(t *testing.T) {
	root := t.TempDir()
	cq := openCQ(t, root)
	require.NoError(t, cq.Put(1500, entry(1500)))
	require.EqualValues(t, 1500, cq.MinOffset())
	require.EqualValues(t, 1501, cq.MaxOffset())
	_, ok := cq.Entries(10)
	require.False(t, ok, "the file before the first entry is not created")
	e, ok := cq.Get(1000)
	require.True(t, ok)
	require.True(t, e.IsBlank())
	e, _ = cq.Get(1500)
	require.Equal(t, entry(1500), e)

	putRange(t, cq, 1501, 1510)
	require.NoError(t, cq.Put(4200, entry(4200))) // gap over files 2000 and 3000
	require.EqualValues(t, 4201, cq.MaxOffset())
	e, _ = cq.Get(1999)
	require.True(t, e.IsBlank(), "the rest of the current file is blank-filled")
	_, ok = cq.Get(2500)
	require.False(t, ok, "files inside the gap are not created")
	e, _ = cq.Get(4100)
	require.True(t, e.IsBlank())
	require.NoError(t, cq.Flush(0))
	cq.Close()

	cq = openCQ(t, root)
	require.EqualValues(t, 4201, cq.MaxOffset())
	cq.CorrectMinOffset(0)
	require.EqualValues(t, 1500, cq.MinOffset(), "blanks are never the min")
	require.EqualValues(t, 4200*100+100, cq.MaxPhyOffset())
}

func TestRecoverStopsAtInvalidEntry(t *testing.T) {
	root := t.TempDir()
	cq := openCQ(t, root)
	putRange(t, cq, 0, 1200)
	require.NoError(t, cq.Flush(0))
	cq.Close()
	// A torn entry (size 0) at 1100 and stale data after it.
	path := filepath.Join(root, "TopicA", "3", mmapfile.FileName(perFile*EntrySize))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(make([]byte, EntrySize), 100*EntrySize)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	cq = openCQ(t, root)
	require.EqualValues(t, 1100, cq.MaxOffset())
	require.EqualValues(t, 1099*100+100, cq.MaxPhyOffset())
}

func TestTruncateAfter(t *testing.T) {
	cq := openCQ(t, t.TempDir())
	putRange(t, cq, 0, 2500)
	n, err := cq.TruncateAfter(2500 * 100)
	require.NoError(t, err)
	require.Zero(t, n, "nothing past the end")
	n, err = cq.TruncateAfter(2150*100 + 50)
	require.NoError(t, err)
	require.EqualValues(t, 350, n)
	require.EqualValues(t, 2150, cq.MaxOffset())
	require.EqualValues(t, 2150*100, cq.MaxPhyOffset())
	n, err = cq.TruncateAfter(2000 * 100) // exactly a file start: the file is emptied
	require.NoError(t, err)
	require.EqualValues(t, 150, n)
	require.EqualValues(t, 2000, cq.MaxOffset())
	putRange(t, cq, 2000, 2010)
	e, _ := cq.Get(2005)
	require.Equal(t, entry(2005), e)
	n, err = cq.TruncateAfter(0)
	require.NoError(t, err)
	require.EqualValues(t, 2010, n)
	require.Zero(t, cq.MaxOffset())
	require.Zero(t, cq.MinOffset())
}

func TestDeleteBelow(t *testing.T) {
	cq := openCQ(t, t.TempDir())
	putRange(t, cq, 0, 3500)
	n, err := cq.DeleteBelow(1500 * 100)
	require.NoError(t, err)
	require.Equal(t, 1, n, "only files whose last entry is below the min go")
	require.EqualValues(t, 1500, cq.MinOffset())
	n, err = cq.DeleteBelow(10_000 * 100)
	require.NoError(t, err)
	require.Equal(t, 2, n, "never the newest file")
	require.EqualValues(t, 3500, cq.MinOffset(), "min = max when nothing is live")
	require.EqualValues(t, 3500, cq.MaxOffset())
}

func TestOffsetByTime(t *testing.T) {
	cq := openCQ(t, t.TempDir())
	putRange(t, cq, 0, 2100)
	// Record i was stored at 1000 + 10i, except that 500..502 share one time.
	storeTime := func(off int64, _ int32) int64 {
		i := off / 100
		if i >= 500 && i <= 502 {
			return 1000 + 10*500
		}
		return 1000 + 10*i
	}
	for _, tc := range []struct {
		name   string
		ts     int64
		minPhy int64
		want   int64
	}{
		{"exact", 1000 + 10*1234, 0, 1234},
		{"exact, first of equal times", 1000 + 10*500, 0, 500},
		{"nearer left", 1000 + 10*700 + 4, 0, 700},
		{"nearer right", 1000 + 10*700 + 6, 0, 701},
		{"tie goes left", 1000 + 10*700 + 5, 0, 700},
		{"before all", 5, 0, 0},
		{"after all", 1 << 40, 0, 2099},
		{"below min phy skipped", 1000 + 10*3, 50 * 100, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, cq.OffsetByTime(tc.ts, tc.minPhy, storeTime))
		})
	}
	require.Zero(t, cq.OffsetByTime(1500, 0, func(int64, int32) int64 { return -1 }))
	require.EqualValues(t, 1000+10*7, cq.StoreTimeAt(7, storeTime))
	require.EqualValues(t, -1, cq.StoreTimeAt(9999, storeTime))
	empty, err := Open(t.TempDir(), "E", 0, Options{EntriesPerFile: perFile})
	require.NoError(t, err)
	defer empty.Close()
	require.Zero(t, empty.OffsetByTime(1, 0, storeTime))
}

func TestDestroy(t *testing.T) {
	root := t.TempDir()
	cq := openCQ(t, root)
	putRange(t, cq, 0, 10)
	require.NoError(t, cq.Destroy())
	_, err := os.Stat(Dir(root, "TopicA", 3))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestGetDoesNotAllocate(t *testing.T) {
	cq := openCQ(t, t.TempDir())
	putRange(t, cq, 0, 100)
	next := int64(100)
	allocs := testing.AllocsPerRun(100, func() {
		es, ok := cq.Entries(50)
		if !ok || es.At(3) != entry(53) {
			t.Fatal("bad entry")
		}
		es.Release()
		if err := cq.Put(next, entry(next)); err != nil {
			t.Fatal(err)
		}
		next++
	})
	require.Zero(t, allocs)
}

// TestReadersSeeNoEntryBeyondMaxOffset reads while a writer puts: an entry a
// reader gets must already be counted by MaxOffset (a timer or POP reader that
// saw MaxOffset below what it read took the entry in twice).
func TestReadersSeeNoEntryBeyondMaxOffset(t *testing.T) {
	writeModes(t, testReadersSeeNoEntryBeyondMaxOffset)
}

func testReadersSeeNoEntryBeyondMaxOffset(t *testing.T, through bool) {
	cq := openCQWith(t, t.TempDir(), through)
	const n = 20000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := int64(0); i < n; i++ {
			if err := cq.Put(i, entry(i)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	next := int64(0)
	for next < n {
		es, ok := cq.Entries(next)
		if !ok {
			continue
		}
		last := es.First() + int64(es.Len())
		es.Release()
		if m := cq.MaxOffset(); last > m {
			t.Fatalf("read up to %d while MaxOffset said %d", last, m)
		}
		next = last
	}
	<-done
}
