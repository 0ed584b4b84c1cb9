package mmapfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func fill(t *testing.T, q *Queue, n int) {
	t.Helper()
	for n > 0 {
		f, err := q.LastForWrite(q.MaxOffset())
		require.NoError(t, err)
		k := min(n, len(f.Tail()))
		for i := range k {
			f.Tail()[i] = byte(f.Start()/testSize + 1)
		}
		f.SetWrote(f.Wrote() + int64(k))
		n -= k
	}
}

func TestQueueGrowFindReload(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir, testSize, QueueOptions{})
	require.NoError(t, err)
	require.Nil(t, q.Last())
	require.Zero(t, q.MaxOffset())
	fill(t, q, 2*testSize+10)
	require.Equal(t, 3, q.Len())
	require.EqualValues(t, 2*testSize+10, q.MaxOffset())
	require.EqualValues(t, testSize, q.Find(testSize).Start())
	require.EqualValues(t, testSize, q.Find(2*testSize-1).Start())
	require.Nil(t, q.Find(3*testSize))
	require.EqualValues(t, 2*testSize, q.NextFileStart(testSize+5))

	f := q.AcquireAt(5)
	require.NotNil(t, f)
	f.Release()

	where, err := q.Flush(0)
	require.NoError(t, err)
	require.EqualValues(t, 2*testSize+10, where)
	q.Close()

	require.NoError(t, os.WriteFile(filepath.Join(dir, "junk"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName(3*testSize)+".tmp"), nil, 0o644))
	q, err = OpenQueue(dir, testSize, QueueOptions{})
	require.NoError(t, err)
	defer q.Close()
	require.Equal(t, 3, q.Len())
	require.EqualValues(t, 3*testSize, q.MaxOffset(), "loaded segments are full")
	_, err = os.Stat(filepath.Join(dir, FileName(3*testSize)+".tmp"))
	require.ErrorIs(t, err, os.ErrNotExist)

	require.NoError(t, q.Truncate(testSize+7))
	require.Equal(t, 2, q.Len())
	require.EqualValues(t, testSize+7, q.MaxOffset())
	require.EqualValues(t, testSize+7, q.FlushedWhere())
	_, err = os.Stat(filepath.Join(dir, FileName(2*testSize)))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Equal(t, make([]byte, testSize-7), q.Last().Bytes(7, testSize-7))
	require.Equal(t, []byte{2, 2, 2, 2, 2, 2, 2}, q.Last().Bytes(0, 7))
}

func TestQueueFlushLeastPages(t *testing.T) {
	fs := vfstest.New(t)
	syncs := func() int { return fs.Count(vfstest.OpMsync, "") }
	q, err := OpenQueue(fs.Path("q"), testSize, QueueOptions{FS: fs})
	require.NoError(t, err)
	defer q.Close()
	fill(t, q, 3*PageSize)
	where, err := q.Flush(4)
	require.NoError(t, err)
	require.Zero(t, where)
	require.Zero(t, syncs())
	fill(t, q, PageSize)
	where, err = q.Flush(4)
	require.NoError(t, err)
	require.EqualValues(t, 4*PageSize, where)
	require.Equal(t, 1, syncs())

	// A full segment is flushed even below the threshold; the flush crosses into the next.
	fill(t, q, testSize-4*PageSize+100)
	where, err = q.Flush(0)
	require.NoError(t, err)
	require.EqualValues(t, testSize+100, where)
	require.Equal(t, 3, syncs())
}

func TestQueueDelete(t *testing.T) {
	q, err := OpenQueue(t.TempDir(), testSize, QueueOptions{})
	require.NoError(t, err)
	defer q.Close()
	fill(t, q, 4*testSize)
	n, err := q.DeleteFirst(1, func(*MappedFile) bool { return true })
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.EqualValues(t, testSize, q.MinOffset())
	n, err = q.DeleteExpired(time.Hour, time.Now(), false, 0)
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = q.DeleteExpired(time.Hour, time.Now().Add(2*time.Hour), false, 0)
	require.NoError(t, err)
	require.Equal(t, 2, n, "never the newest segment")
	require.Equal(t, 1, q.Len())
	require.EqualValues(t, 3*testSize, q.MinOffset())
}

func TestQueuePreallocates(t *testing.T) {
	dir := t.TempDir()
	q, err := OpenQueue(dir, testSize, QueueOptions{Preallocate: true})
	require.NoError(t, err)
	q.Start()
	fill(t, q, 10)
	next := filepath.Join(dir, FileName(testSize))
	require.Eventually(t, func() bool { _, err := os.Stat(next); return err == nil }, 5*time.Second, time.Millisecond)
	fill(t, q, testSize)
	require.Equal(t, 2, q.Len())
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, FileName(2*testSize)))
		return err == nil
	}, 5*time.Second, time.Millisecond)
	q.Close()
	_, err = os.Stat(filepath.Join(dir, FileName(2*testSize)))
	require.ErrorIs(t, err, os.ErrNotExist, "an untaken preallocated segment is removed on Close")

	q, err = OpenQueue(dir, testSize, QueueOptions{Preallocate: true})
	require.NoError(t, err)
	require.Equal(t, 2, q.Len())
	require.NoError(t, q.Destroy())
	_, err = os.Stat(dir)
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestCreateAtRejectsMisaligned(t *testing.T) {
	q, err := OpenQueue(t.TempDir(), 20*1000, QueueOptions{})
	require.NoError(t, err)
	defer q.Close()
	_, err = q.CreateAt(20*1000*3 + 20)
	require.Error(t, err)
	f, err := q.CreateAt(20 * 1000 * 3)
	require.NoError(t, err)
	require.EqualValues(t, 60000, f.Start())
	_, err = q.CreateAt(0)
	require.Error(t, err, "must be past the newest")
}

// A segment written to its end and followed by a new one while its sync runs
// (the CommitLog's BLANK and the next segment) is synced to its end: its tail
// is not mistaken for a ConsumeQueue gap. Found by the power-loss double.
func TestQueueFlushSegmentClosedDuringSync(t *testing.T) {
	fs := vfstest.New(t)
	q, err := OpenQueue(fs.Path("q"), testSize, QueueOptions{FS: fs})
	require.NoError(t, err)
	defer q.Close()
	fill(t, q, 100)
	first := q.Last()
	once := false
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Before: func(vfstest.Op) {
		if once {
			return
		}
		once = true
		first.SetWrote(testSize)       // the writer closes the segment...
		_, err := q.CreateAt(testSize) // ...and moves on
		require.NoError(t, err)
	}})
	where, err := q.Flush(0)
	require.NoError(t, err)
	require.EqualValues(t, testSize, where)
	require.EqualValues(t, testSize, first.Flushed(), "the tail written during the sync is synced too")
	require.Equal(t, 2, fs.Count(vfstest.OpMsync, "q/"+FileName(0)))
}
