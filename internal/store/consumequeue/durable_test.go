package consumequeue

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func TestDurableBelow(t *testing.T) {
	cq := openCQ(t, t.TempDir())
	require.EqualValues(t, 777, cq.DurableBelow(777), "empty: nothing to wait for")
	putRange(t, cq, 0, 10)
	require.EqualValues(t, 0, cq.DurableBelow(777), "entry 0 (offset 0) is not flushed")
	require.NoError(t, cq.Flush(0))
	require.EqualValues(t, 777, cq.DurableBelow(777))
	putRange(t, cq, 10, 20)
	require.EqualValues(t, 500, cq.DurableBelow(500), "capped")
	require.EqualValues(t, 1000, cq.DurableBelow(5000), "entry 10 points at 1000")
	require.NoError(t, cq.Put(30, entry(30))) // blanks 20..29
	require.NoError(t, cq.Flush(0))
	require.NoError(t, cq.Put(40, entry(40))) // unflushed blanks, then 4000
	require.EqualValues(t, 4000, cq.DurableBelow(5000), "blanks index no record")
}

func TestHolds(t *testing.T) {
	root := t.TempDir()
	cq := openCQ(t, root)
	putRange(t, cq, 0, 2500)
	require.True(t, cq.Holds(0))
	require.True(t, cq.Holds(2499))
	require.False(t, cq.Holds(2500))
	require.False(t, cq.Holds(-1))
	require.NoError(t, cq.Flush(0))
	cq.Close()
	require.NoError(t, os.Remove(filepath.Join(Dir(root, "TopicA", 3), mmapfile.FileName(perFile*EntrySize))))
	cq = openCQ(t, root)
	require.True(t, cq.Holds(999))
	require.False(t, cq.Holds(1500), "its file is missing")
	require.True(t, cq.Holds(2000))
}

// After a clean shutdown a queue ending in zeros is positioned without being
// zeroed; garbage past the end is zeroed whatever the shutdown.
func TestRecoverClean(t *testing.T) {
	root := t.TempDir()
	cq := openCQ(t, root)
	putRange(t, cq, 0, 50)
	require.NoError(t, cq.Flush(0))
	cq.Close()
	path := filepath.Join(Dir(root, "TopicA", 3), mmapfile.FileName(0))
	junk := make([]byte, EntrySize)
	junk[0] = 0xFF // offset < 0: invalid
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(junk, 50*EntrySize)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	cq, err = Open(root, "TopicA", 3, Options{EntriesPerFile: perFile, Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	defer cq.Close()
	require.NoError(t, cq.Recover(true))
	require.EqualValues(t, 50, cq.MaxOffset())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, make([]byte, EntrySize), b[50*EntrySize:51*EntrySize], "the invalid entry was zeroed")
	require.NoError(t, cq.Put(50, entry(50)))
	e, ok := cq.Get(50)
	require.True(t, ok)
	require.Equal(t, entry(50), e)
}

// An entry in a file whose creation is not durable is not durable, even
// flushed: a failed fsync of the new file leaves DurableBelow at it.
func TestDurableBelowWaitsForTheNewFile(t *testing.T) {
	fs := vfstest.New(t)
	cq := openWithFS(t, fs)
	defer cq.Close()
	putRange(t, cq, 0, 3)
	fail := fs.Fail(vfstest.OpSync, "TopicA/3/*", 0, syscall.EIO)
	require.ErrorIs(t, cq.Flush(0), syscall.EIO)
	require.Positive(t, fs.Count(vfstest.OpMsync, "TopicA/3/*"), "the entries were msynced")
	require.EqualValues(t, 0, cq.DurableBelow(777))
	require.EqualValues(t, 1, cq.FlushState().Unsynced)
	fail()
	cq.MarkSynced(cq.FlushState()) // what a SyncFS does
	require.EqualValues(t, 777, cq.DurableBelow(777))
}
