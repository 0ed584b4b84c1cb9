package consumequeue

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func openWith(t *testing.T, root string, qid int32, o Options) *ConsumeQueue {
	t.Helper()
	if o.EntriesPerFile == 0 {
		o.EntriesPerFile = perFile
	}
	o.Logger = zaptest.NewLogger(t)
	cq, err := Open(root, "T", qid, o)
	require.NoError(t, err)
	require.NoError(t, cq.Recover(false))
	t.Cleanup(cq.Close)
	return cq
}

// Under a cap of 3 mapped files, ten queues stay readable and writable: the
// least recently used are closed and mapped again on demand, their positions
// kept.
func TestResidencyCapsMappedFiles(t *testing.T) {
	fs := vfstest.New(t)
	r := NewResidency(3)
	var qs []*ConsumeQueue
	for i := range 10 {
		cq := openWith(t, fs.Root(), int32(i), Options{FS: fs, Residency: r})
		putRange(t, cq, 0, int64(10+i))
		qs = append(qs, cq)
		require.LessOrEqual(t, r.Open(), 3)
	}
	require.Positive(t, r.Closed())
	require.False(t, qs[0].Resident())
	require.Equal(t, 3, fs.Count(vfstest.OpMmap, "")-fs.Count(vfstest.OpMunmap, ""), "mappings alive")

	mmaps := fs.Count(vfstest.OpMmap, "")
	for round := range 2 {
		for i, cq := range qs {
			require.EqualValues(t, 10+i, cq.MaxOffset(), "known while closed")
			e, ok := cq.Get(int64(5 + i))
			require.True(t, ok, "queue %d", i)
			require.Equal(t, entry(int64(5+i)), e)
			require.LessOrEqual(t, r.Open(), 3)
		}
		if round == 0 {
			require.Equal(t, mmaps, fs.Count(vfstest.OpMmap, ""), "one read of a closed queue is a pread")
		}
	}
	require.Greater(t, fs.Count(vfstest.OpMmap, ""), mmaps, "a closed queue read again is mapped")
	for i, cq := range qs {
		require.NoError(t, cq.Put(int64(10+i), entry(int64(10+i))), "writes map a closed queue again")
		require.EqualValues(t, 11+i, cq.MaxOffset())
	}
	es, ok := qs[9].Entries(0)
	require.True(t, ok)
	for i, cq := range qs[:9] { // close queue 9 while its entries are held
		require.NoError(t, cq.Put(int64(11+i), entry(int64(11+i))))
	}
	require.False(t, qs[9].Resident())
	require.Equal(t, entry(3), es.At(3), "a reader's mapping outlives the close")
	es.Release()
}

// A queue closed with unflushed entries reports them without being mapped:
// DurableBelow names the first, FlushState says only a SyncFS can make them
// durable; MarkSynced clears them.
func TestClosedDirtyQueue(t *testing.T) {
	fs := vfstest.New(t)
	r := NewResidency(1)
	a := openWith(t, fs.Root(), 0, Options{FS: fs, Residency: r})
	putRange(t, a, 0, 5)
	require.NoError(t, a.Flush(0))
	putRange(t, a, 5, 8)
	b := openWith(t, fs.Root(), 1, Options{FS: fs, Residency: r})
	putRange(t, b, 0, 1) // closes a
	require.False(t, a.Resident())

	mmaps := fs.Count(vfstest.OpMmap, "")
	st := a.FlushState()
	require.Equal(t, FlushState{End: 8 * EntrySize, Flushed: 5 * EntrySize, Closed: true}, st)
	require.True(t, st.Dirty())
	require.True(t, st.NeedsSyncFS())
	require.EqualValues(t, 500, a.DurableBelow(1000), "entry 5 points at 500")
	require.Equal(t, mmaps, fs.Count(vfstest.OpMmap, ""), "nothing mapped to tell")

	bs := b.FlushState()
	require.EqualValues(t, 1, bs.Unsynced, "its file was never synced")
	require.False(t, bs.NeedsSyncFS(), "a Flush would do")
	require.EqualValues(t, 0, b.DurableBelow(1000), "entry 0: its file's creation is not durable")
	a.MarkSynced(st)
	b.MarkSynced(bs)
	require.False(t, a.FlushState().Dirty())
	require.False(t, b.FlushState().Dirty())
	require.EqualValues(t, 1000, a.DurableBelow(1000))
	require.EqualValues(t, 1000, b.DurableBelow(1000))
}

// A full disk when a ConsumeQueue block or file is allocated fails the Put
// before anything is written: no entry, no SIGBUS, the same Put succeeds once
// there is room.
func TestPutFullDisk(t *testing.T) {
	fs := vfstest.New(t)
	cq := openWith(t, fs.Root(), 0, Options{FS: fs, EntriesPerFile: 1000})
	full := fs.Fail(vfstest.OpFallocate, "T/", 0, syscall.ENOSPC)
	require.ErrorIs(t, cq.Put(0, entry(0)), syscall.ENOSPC, "the first file")
	require.Zero(t, cq.MaxOffset())
	full()
	perPage := int64(mmapfile.PageSize / EntrySize)
	putRange(t, cq, 0, perPage+1) // the first page, and one into the second
	full = fs.Fail(vfstest.OpFallocate, "T/", 0, syscall.ENOSPC)
	var err error
	next := perPage + 1
	for ; err == nil; next++ {
		err = cq.Put(next, entry(next))
	}
	next--
	require.ErrorIs(t, err, syscall.ENOSPC, "a block ahead")
	require.Equal(t, next, cq.MaxOffset(), "nothing written for the failed entry")
	_, ok := cq.Get(next)
	require.False(t, ok)
	full()
	require.NoError(t, cq.Put(next, entry(next)))
	e, ok := cq.Get(next)
	require.True(t, ok)
	require.Equal(t, entry(next), e)
}

// A queue with one entry takes one page of disk, its file the full logical
// length (what Apache's MappedFileQueue.load checks).
func TestSparseFilesOnDisk(t *testing.T) {
	root := t.TempDir()
	for i := range 8 {
		cq := openWith(t, root, int32(i), Options{EntriesPerFile: DefaultEntriesPerFile})
		require.NoError(t, cq.Put(0, entry(0)))
		require.NoError(t, cq.Flush(0))
	}
	for i := range 8 {
		path := filepath.Join(Dir(root, "T", int32(i)), mmapfile.FileName(0))
		st, err := os.Stat(path)
		require.NoError(t, err)
		require.EqualValues(t, DefaultEntriesPerFile*EntrySize, st.Size())
		require.EqualValues(t, mmapfile.PageSize, st.Sys().(*syscall.Stat_t).Blocks*512, fmt.Sprint(i))
	}
}

// Readers, a writer and a flusher on queues that keep being closed to make
// room: every entry read is the one written.
func TestResidencyConcurrent(t *testing.T) {
	r := NewResidency(2)
	root := t.TempDir()
	var qs []*ConsumeQueue
	for i := range 6 {
		qs = append(qs, openWith(t, root, int32(i), Options{Residency: r}))
	}
	const n = 1500 // crosses a file
	done := make(chan struct{})
	errc := make(chan error, 3)
	read := func() {
		for {
			select {
			case <-done:
				errc <- nil
				return
			default:
			}
			for _, cq := range qs {
				max := cq.MaxOffset()
				if max == 0 {
					continue
				}
				off := max - 1
				if e, ok := cq.Get(off); !ok || e != entry(off) {
					errc <- fmt.Errorf("%d/%d: %v %v", cq.QueueID(), off, e, ok)
					return
				}
			}
		}
	}
	go read()
	go read()
	go func() {
		for {
			select {
			case <-done:
				errc <- nil
				return
			default:
			}
			for _, cq := range qs {
				if err := cq.Flush(0); err != nil {
					errc <- err
					return
				}
				cq.DurableBelow(1 << 40)
			}
		}
	}()
	for i := int64(0); i < n; i++ {
		for _, cq := range qs {
			require.NoError(t, cq.Put(i, entry(i)))
		}
	}
	close(done)
	for range 3 {
		require.NoError(t, <-errc)
	}
	require.LessOrEqual(t, r.Open(), 2+2, "over by busy queues the sweep had to skip, at most")
	for _, cq := range qs {
		e, ok := cq.Get(n - 1)
		require.True(t, ok)
		require.Equal(t, entry(n-1), e)
	}
}

// A queue closed after its file was synced and some entries flushed names its
// first unflushed entry.
func TestClosedQueueDurableBelow(t *testing.T) {
	r := NewResidency(1)
	root := t.TempDir()
	a := openWith(t, root, 0, Options{Residency: r})
	putRange(t, a, 0, 5)
	require.NoError(t, a.Flush(0))
	putRange(t, a, 5, 8)
	b := openWith(t, root, 1, Options{Residency: r})
	putRange(t, b, 0, 1)
	require.False(t, a.Resident())
	require.EqualValues(t, 500, a.DurableBelow(1000), "entry 5 points at 500")
	require.NoError(t, a.Flush(0), "maps it again to msync")
	require.EqualValues(t, 1000, a.DurableBelow(1000))
}
