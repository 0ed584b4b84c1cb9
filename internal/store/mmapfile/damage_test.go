package mmapfile

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// A newest segment cut short (a copy cut short, a torn truncate) is extended
// with zeros and keeps its bytes; a shorter segment before it is refused.
func TestQueueExtendsShortNewestSegment(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir, testSize, QueueOptions{})
	require.NoError(t, err)
	fill(t, q, testSize+300)
	_, err = q.Flush(0)
	require.NoError(t, err)
	q.Close()

	newest := filepath.Join(dir, FileName(testSize))
	require.NoError(t, os.Truncate(newest, 200))
	q, err = OpenQueue(dir, testSize, QueueOptions{})
	require.NoError(t, err)
	require.Equal(t, 2, q.Len())
	st, err := os.Stat(newest)
	require.NoError(t, err)
	require.EqualValues(t, testSize, st.Size())
	last := q.Last()
	require.Equal(t, byte(2), last.Bytes(199, 1)[0], "bytes before the cut are kept")
	require.Equal(t, make([]byte, testSize-200), last.Bytes(200, testSize-200), "zeros after it")
	q.Close()

	require.NoError(t, os.Truncate(filepath.Join(dir, FileName(0)), 100))
	_, err = OpenQueue(dir, testSize, QueueOptions{})
	require.ErrorContains(t, err, fmt.Sprintf("is 100 bytes, want %d", testSize))
}

// SetEnd positions like Truncate without zeroing; both remove later segments.
func TestQueueSetEnd(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir, testSize, QueueOptions{})
	require.NoError(t, err)
	defer q.Close()
	fill(t, q, 2*testSize+10)
	require.NoError(t, q.SetEnd(testSize+5))
	require.Equal(t, 2, q.Len())
	require.EqualValues(t, testSize+5, q.MaxOffset())
	require.EqualValues(t, testSize+5, q.FlushedWhere())
	require.Equal(t, byte(2), q.Last().Bytes(5, 1)[0], "not zeroed")
	require.NoError(t, q.Truncate(testSize+2))
	require.Equal(t, byte(0), q.Last().Bytes(2, 1)[0], "zeroed")
}

// A full disk at segment creation (ENOSPC from fallocate) serves synchronous
// creation and preallocation alike; a failure leaves the queue as it was, and
// creation works again afterwards.
func TestQueueCreateFullDisk(t *testing.T) {
	for _, prealloc := range []bool{false, true} {
		t.Run(fmt.Sprintf("preallocate=%v", prealloc), func(t *testing.T) {
			fs := vfstest.New(t)
			q, err := OpenQueue(fs.Path("q"), testSize, QueueOptions{Preallocate: prealloc, FS: fs})
			require.NoError(t, err)
			defer q.Close()
			full := fs.Fail(vfstest.OpFallocate, "q/", 0, syscall.ENOSPC)
			_, err = q.LastForWrite(0)
			require.ErrorIs(t, err, syscall.ENOSPC)
			require.Zero(t, q.Len())
			_, err = os.Stat(fs.Path("q", FileName(0)+".tmp"))
			require.ErrorIs(t, err, os.ErrNotExist, "a failed creation leaves nothing behind")
			full()
			f, err := q.LastForWrite(0)
			require.NoError(t, err)
			require.Zero(t, f.Start())
			require.Equal(t, 2, fs.Count(vfstest.OpFallocate, "q/"))
		})
	}
}

func TestDeleteFirstFilesKeepsMappingsForReaders(t *testing.T) {
	q, err := OpenQueue(t.TempDir(), testSize, QueueOptions{})
	require.NoError(t, err)
	defer q.Close()
	fill(t, q, 3*testSize)
	held := q.AcquireAt(0)
	gone, err := q.DeleteFirstFiles(0, func(*MappedFile) bool { return true })
	require.NoError(t, err)
	require.Len(t, gone, 2, "never the newest")
	require.Equal(t, held, gone[0])
	require.EqualValues(t, 1, held.Refs(), "the owner's reference went, the reader's is left")
	held.Release()
	require.NoError(t, held.Wait())
	require.Zero(t, gone[0].Refs())
}
