package mmapfile

import (
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

const sparseSize = 6_000_000 // a default ConsumeQueue file

// diskBytes is what a file takes on disk, as du counts it.
func diskBytes(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return st.Blocks * 512
}

// reserveAndWrite writes n bytes of v at the write position, reserving first.
func reserveAndWrite(t *testing.T, f *MappedFile, n int, v byte) {
	t.Helper()
	require.NoError(t, f.Reserve(f.Wrote()+int64(n)))
	for i := range n {
		f.Tail()[i] = v
	}
	f.SetWrote(f.Wrote() + int64(n))
}

func openSparse(t *testing.T, fs *vfstest.FS) *Queue {
	t.Helper()
	q, err := OpenQueue(fs.Path("cq", "T", "0"), sparseSize, QueueOptions{Sparse: true, FS: fs})
	require.NoError(t, err)
	return q
}

// A sparse segment has its full length and one page of blocks; creating it
// syncs nothing, and the directory is made with it. Reserve allocates ahead
// in doubling chunks.
func TestSparseSegmentGrowsAsWritten(t *testing.T) {
	fs := vfstest.New(t)
	q := openSparse(t, fs)
	defer q.Close()
	require.Equal(t, []string{"readdir: cq/T/0"}, fs.Trace(), "no directory before the first segment")
	f, err := q.LastForWrite(0)
	require.NoError(t, err)
	require.Equal(t, []string{
		"readdir: cq/T/0",
		"stat: cq/T/0", "stat: cq/T", "stat: cq", "stat: .", "mkdir: cq", "mkdir: cq/T", "mkdir: cq/T/0",
		"create: cq/T/0/00000000000000000000.tmp",
		"truncate: cq/T/0/00000000000000000000.tmp 6000000",
		"fallocate: cq/T/0/00000000000000000000.tmp 0 4096",
		"rename: cq/T/0/00000000000000000000.tmp -> cq/T/0/00000000000000000000",
		"writeat: cq/T/0/00000000000000000000 0 4096", // into the page cache
		"mmap: cq/T/0/00000000000000000000 6000000",
	}, fs.Trace())
	require.EqualValues(t, 1, q.Unsynced())
	st, err := os.Stat(f.Path())
	require.NoError(t, err)
	require.EqualValues(t, sparseSize, st.Size())
	require.EqualValues(t, PageSize, diskBytes(t, f.Path()))

	fs.ResetTrace()
	reserveAndWrite(t, f, 4000, 1)
	require.Empty(t, fs.Trace(), "inside the first page")
	reserveAndWrite(t, f, 200, 2)
	require.Equal(t, []string{
		"fallocate: cq/T/0/00000000000000000000 4096 8192",
		"writeat: cq/T/0/00000000000000000000 4096 8192",
	}, fs.Trace())
	reserveAndWrite(t, f, 8000, 3)
	require.EqualValues(t, 12288, f.Allocated(), "a page past the write's end")
	reserveAndWrite(t, f, 100, 4)
	require.EqualValues(t, 16384+12288, f.Allocated(), "the chunk doubles")
	require.EqualValues(t, 16384+12288, diskBytes(t, f.Path()))
}

// A full disk when a block is reserved is an error before anything is
// written; the write succeeds once there is room.
func TestSparseReserveFullDisk(t *testing.T) {
	fs := vfstest.New(t)
	q := openSparse(t, fs)
	defer q.Close()
	f, err := q.LastForWrite(0)
	require.NoError(t, err)
	reserveAndWrite(t, f, PageSize, 1)
	full := fs.Fail(vfstest.OpFallocate, "cq/", 0, syscall.ENOSPC)
	require.ErrorIs(t, f.Reserve(PageSize+20), syscall.ENOSPC)
	require.EqualValues(t, PageSize, f.Wrote())
	require.EqualValues(t, PageSize, f.Allocated())
	full()
	reserveAndWrite(t, f, 20, 2)
	require.EqualValues(t, PageSize+20, q.MaxOffset())
}

// Cutting a sparse queue whose tail is zeros already writes and syncs
// nothing; stale bytes past the cut are zeroed, their blocks given back, and
// the file synced.
func TestSparseCut(t *testing.T) {
	fs := vfstest.New(t)
	q := openSparse(t, fs)
	f, err := q.LastForWrite(0)
	require.NoError(t, err)
	reserveAndWrite(t, f, 3*PageSize+100, 7)
	q.Close()

	q = openSparse(t, fs)
	defer q.Close()
	fs.ResetTrace()
	require.NoError(t, q.Truncate(3*PageSize+100))
	for _, kind := range []string{vfstest.OpWriteAt, vfstest.OpPunchHole, vfstest.OpZeroRange, vfstest.OpSync, vfstest.OpMsync} {
		require.Zero(t, fs.Count(kind, ""), "a zero tail: nothing written or synced (%s)", kind)
	}
	require.Positive(t, fs.Count(vfstest.OpSeekData, ""), "the tail is found zero by seeking over holes")
	require.EqualValues(t, 3*PageSize+100, q.MaxOffset())

	fs.ResetTrace()
	require.NoError(t, q.Truncate(PageSize+10)) // the entries after it are stale now
	require.Equal(t, []string{
		"writeat: cq/T/0/00000000000000000000 4106 4086",
		"punchhole: cq/T/0/00000000000000000000 8192 5991808",
		"sync: cq/T/0/00000000000000000000",
	}, fs.Trace())
	last := q.Last()
	require.Equal(t, byte(7), last.Bytes(PageSize+9, 1)[0])
	require.Equal(t, make([]byte, 3*PageSize), last.Bytes(PageSize+10, 3*PageSize), "zeros after the cut")
	require.EqualValues(t, 2*PageSize, diskBytes(t, last.Path()))
	require.LessOrEqual(t, last.Allocated(), int64(2*PageSize))
	reserveAndWrite(t, last, 20, 9)
	require.EqualValues(t, PageSize+30, q.MaxOffset())
}

// A sparse newest segment cut short is given its length back as a hole.
func TestSparseExtendsShortNewest(t *testing.T) {
	fs := vfstest.New(t)
	q := openSparse(t, fs)
	f, err := q.LastForWrite(0)
	require.NoError(t, err)
	reserveAndWrite(t, f, 100, 1)
	path := f.Path()
	q.Close()
	require.NoError(t, os.Truncate(path, 50))
	fs.ResetTrace()
	q = openSparse(t, fs)
	defer q.Close()
	require.Contains(t, fs.Trace(), "truncate: cq/T/0/00000000000000000000 6000000")
	require.Zero(t, fs.Count(vfstest.OpFallocate, ""))
	require.EqualValues(t, PageSize, diskBytes(t, path))
}

// A queue closed and reopened from its State has its positions back without
// listing the directory; MarkFlushed advances what is durable.
func TestQueueStateReopen(t *testing.T) {
	fs := vfstest.New(t)
	q := openSparse(t, fs)
	f, err := q.LastForWrite(0)
	require.NoError(t, err)
	reserveAndWrite(t, f, 300, 1)
	_, err = q.Flush(0)
	require.NoError(t, err)
	reserveAndWrite(t, f, 100, 2)
	st := q.State()
	require.Equal(t, QueueState{Starts: []int64{0}, End: 400, Flushed: 300, Allocated: PageSize, Unsynced: 1}, st)
	q.Close()

	fs.ResetTrace()
	q, err = Reopen(fs.Path("cq", "T", "0"), sparseSize, st, QueueOptions{Sparse: true, FS: fs})
	require.NoError(t, err)
	defer q.Close()
	require.Equal(t, []string{
		"openrw: cq/T/0/00000000000000000000", "stat: cq/T/0/00000000000000000000",
		"mmap: cq/T/0/00000000000000000000 6000000",
	}, fs.Trace())
	require.Equal(t, st, q.State())
	require.EqualValues(t, 300, q.Last().Flushed())

	q.MarkFlushed(400)
	require.EqualValues(t, 400, q.FlushedWhere())
	require.EqualValues(t, 400, q.Last().Flushed())
	fs.ResetTrace()
	where, err := q.Flush(0)
	require.NoError(t, err)
	require.EqualValues(t, 400, where)
	require.Empty(t, fs.Trace(), "nothing left to sync")
	q.MarkSynced(st.Unsynced)
	require.Zero(t, q.Unsynced())
}

// A segment opened again does not know its extents: the next write
// allocates up to its own page end only, so an idle queue written once more
// after a restart keeps one page.
func TestSparseReserveAfterReopen(t *testing.T) {
	fs := vfstest.New(t)
	q := openSparse(t, fs)
	f, err := q.LastForWrite(0)
	require.NoError(t, err)
	reserveAndWrite(t, f, 20, 1)
	path := f.Path()
	q.Close()

	q = openSparse(t, fs)
	defer q.Close()
	require.NoError(t, q.SetEnd(20))
	f = q.Last()
	require.Zero(t, f.Allocated(), "unknown")
	reserveAndWrite(t, f, 20, 2)
	require.EqualValues(t, PageSize, f.Allocated())
	require.EqualValues(t, PageSize, diskBytes(t, path))
	reserveAndWrite(t, f, PageSize, 3)
	require.EqualValues(t, 3*PageSize, f.Allocated(), "then ahead, doubling")
}
