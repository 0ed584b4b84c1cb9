package consumequeue

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func load(t *testing.T, fs *vfstest.FS, clean bool, minPhy int64) *ConsumeQueue {
	t.Helper()
	cq, err := Load(fs.Root(), "TopicA", 3, Options{EntriesPerFile: perFile, FS: fs, Logger: zaptest.NewLogger(t)}, clean, minPhy)
	require.NoError(t, err)
	t.Cleanup(cq.Close)
	return cq
}

func writtenQueue(t *testing.T, fs *vfstest.FS, n int64) string {
	t.Helper()
	cq := openWithFS(t, fs)
	putRange(t, cq, 0, n)
	require.NoError(t, cq.Flush(0))
	cq.Close()
	fs.ResetTrace()
	return Dir(fs.Root(), "TopicA", 3)
}

func openWithFS(t *testing.T, fs *vfstest.FS) *ConsumeQueue {
	t.Helper()
	cq, err := Open(fs.Root(), "TopicA", 3, Options{EntriesPerFile: perFile, FS: fs, Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	require.NoError(t, cq.Recover(false))
	return cq
}

// Load recovers a queue by reading it: nothing is mapped, written or synced
// until it is used, and then it reads as Open and Recover would have left it.
func TestLoadReadsWithoutMapping(t *testing.T) {
	for _, clean := range []bool{true, false} {
		fs := vfstest.New(t)
		writtenQueue(t, fs, 2500)
		cq := load(t, fs, clean, 300*100)
		for _, kind := range []string{vfstest.OpMmap, vfstest.OpOpenRW, vfstest.OpWriteAt, vfstest.OpSync, vfstest.OpPunchHole} {
			require.Zero(t, fs.Count(kind, ""), "%s (clean=%v)", kind, clean)
		}
		require.False(t, cq.Resident())
		require.EqualValues(t, 2500, cq.MaxOffset())
		require.EqualValues(t, 300, cq.MinOffset(), "corrected for the CommitLog's min offset")
		require.EqualValues(t, 2499*100+100, cq.MaxPhyOffset())
		require.True(t, cq.Holds(1500))
		require.False(t, cq.FlushState().Dirty())
		require.EqualValues(t, 77, cq.DurableBelow(77))

		e, ok := cq.Get(2222)
		require.True(t, ok)
		require.Equal(t, entry(2222), e)
		require.False(t, cq.Resident(), "read once: a pread")
		e, ok = cq.Get(1234)
		require.True(t, ok)
		require.Equal(t, entry(1234), e)
		require.True(t, cq.Resident(), "read again: mapped")
		require.NoError(t, cq.Put(2500, entry(2500)))
		require.EqualValues(t, 2501, cq.MaxOffset())
	}
}

// What Load cannot settle by reading it leaves to Open and Recover: a
// leftover .tmp, stale entries past a torn end.
func TestLoadFallsBack(t *testing.T) {
	t.Run("tmp", func(t *testing.T) {
		fs := vfstest.New(t)
		dir := writtenQueue(t, fs, 10)
		require.NoError(t, os.WriteFile(filepath.Join(dir, mmapfile.FileName(perFile*EntrySize)+".tmp"), nil, 0o644))
		cq := load(t, fs, true, 0)
		require.EqualValues(t, 10, cq.MaxOffset())
		require.NoFileExists(t, filepath.Join(dir, mmapfile.FileName(perFile*EntrySize)+".tmp"))
	})
	t.Run("stale entries after a torn end", func(t *testing.T) {
		fs := vfstest.New(t)
		dir := writtenQueue(t, fs, 1200)
		path := filepath.Join(dir, mmapfile.FileName(perFile*EntrySize))
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
		_, err = f.WriteAt(make([]byte, EntrySize), 100*EntrySize) // 1100 torn, 1101.. stale
		require.NoError(t, err)
		require.NoError(t, f.Close())
		cq := load(t, fs, false, 0)
		require.EqualValues(t, 1100, cq.MaxOffset())
		require.Positive(t, fs.Count(vfstest.OpPunchHole, ""), "the stale entries are cleared")
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, make([]byte, 100*EntrySize), b[100*EntrySize:200*EntrySize])
	})
	t.Run("files past the end", func(t *testing.T) {
		fs := vfstest.New(t)
		dir := writtenQueue(t, fs, 2500)
		path := filepath.Join(dir, mmapfile.FileName(perFile*EntrySize))
		require.NoError(t, os.WriteFile(path, make([]byte, perFile*EntrySize), 0o644)) // the middle file zeroed
		cq := load(t, fs, true, 0)
		require.EqualValues(t, 1000, cq.MaxOffset())
		require.NoFileExists(t, filepath.Join(dir, mmapfile.FileName(2*perFile*EntrySize)))
	})
}

// A full last file ends the queue at its end; a file past a clean end that
// holds only zeros leaves the queue closed.
func TestLoadEdges(t *testing.T) {
	fs := vfstest.New(t)
	writtenQueue(t, fs, 2000)
	cq := load(t, fs, false, 0)
	require.False(t, cq.Resident())
	require.EqualValues(t, 2000, cq.MaxOffset())
	require.NoError(t, cq.Put(2000, entry(2000)), "the next file is created")
	e, ok := cq.Get(2000)
	require.True(t, ok)
	require.Equal(t, entry(2000), e)
}
