package vfstest_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestTraceIsRelativeToTheRoot(t *testing.T) {
	fs := vfstest.New(t)
	require.NoError(t, vfs.MkdirAll(fs, fs.Path("config")))
	require.NoError(t, vfs.WriteFile(fs, fs.Path("config", "a.json"), []byte("{}")))
	require.Equal(t, []string{
		"stat: config",
		"stat: .",
		"mkdir: config",
		"syncdir: .",
		"create: config/a.json.tmp",
		"write: config/a.json.tmp 2",
		"sync: config/a.json.tmp",
		"close: config/a.json.tmp",
		"rename: config/a.json.tmp -> config/a.json",
		"syncdir: config",
	}, fs.Trace())
	require.Equal(t, 2, fs.Count(vfstest.OpSyncDir, ""))
	require.Equal(t, 1, fs.Count(vfstest.OpSyncDir, "config"))
}

func TestFailNthOperation(t *testing.T) {
	fs := vfstest.New(t)
	fs.Fail(vfstest.OpSync, "*.tmp", 2, syscall.EIO)
	p := fs.Path("f")
	require.NoError(t, vfs.WriteFile(fs, p, []byte("1")))
	err := vfs.WriteFile(fs, p, []byte("2"))
	require.ErrorIs(t, err, syscall.EIO)
	require.Equal(t, "1", read(t, p), "a failed write leaves the old content")
	require.False(t, exists(p+".tmp"), "and no temp file")
	require.NoError(t, vfs.WriteFile(fs, p, []byte("3")), "only the second sync fails")
	require.Contains(t, fs.Trace(), "sync: f.tmp = injected input/output error")
}

func TestFailUntilRemoved(t *testing.T) {
	fs := vfstest.New(t)
	remove := fs.Fail(vfstest.OpFallocate, "seg/", 0, syscall.ENOSPC)
	require.NoError(t, fs.Mkdir(fs.Path("seg")))
	_, err := vfs.CreateAllocated(fs, fs.Path("seg", "a"), 8192)
	require.ErrorIs(t, err, syscall.ENOSPC)
	require.False(t, exists(fs.Path("seg", "a.tmp")))
	remove()
	f, err := vfs.CreateAllocated(fs, fs.Path("seg", "a"), 8192)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	st, err := os.Stat(fs.Path("seg", "a"))
	require.NoError(t, err)
	require.EqualValues(t, 8192, st.Size())
}

func TestBeforeRunsOnSelectedOperations(t *testing.T) {
	fs := vfstest.New(t)
	var seen []string
	fs.Inject(vfstest.Rule{Kind: vfstest.OpRename, Before: func(op vfstest.Op) { seen = append(seen, op.Line) }})
	require.NoError(t, vfs.WriteFile(fs, fs.Path("x"), nil))
	require.Equal(t, []string{"rename: x.tmp -> x"}, seen)
}

func TestPowerLossKeepsOnlyWhatWasSynced(t *testing.T) {
	fs := vfstest.New(t)
	// Present before the FS saw it: durable.
	require.NoError(t, os.WriteFile(fs.Path("old"), []byte("old"), 0o644))
	// Atomically replaced: durable.
	require.NoError(t, vfs.WriteFile(fs, fs.Path("cp"), []byte("v1")))
	require.NoError(t, vfs.MkdirAll(fs, fs.Path("u")))
	require.NoError(t, vfs.MkdirAll(fs, fs.Path("rn")))
	// Written and synced, but its directory entry never synced: gone.
	f, err := fs.Create(fs.Path("u", "unlinked"))
	require.NoError(t, err)
	_, err = f.Write([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	// A rename without a directory sync: the old name stays.
	require.NoError(t, vfs.WriteFile(fs, fs.Path("rn", "r.tmp"), []byte("r")))
	require.NoError(t, fs.Rename(fs.Path("rn", "r.tmp"), fs.Path("rn", "r")))
	// An overwrite after the last sync: lost.
	g, err := fs.OpenReadWrite(fs.Path("cp"))
	require.NoError(t, err)
	_, err = g.WriteAt([]byte("XX"), 0)
	require.NoError(t, err)
	require.NoError(t, g.Close())
	// A directory made without vfs.MkdirAll's parent sync: gone with what is in it.
	require.NoError(t, fs.Mkdir(fs.Path("d")))
	require.NoError(t, vfs.WriteFile(fs, fs.Path("d", "in"), []byte("in")))

	after, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crash"))
	require.NoError(t, err)
	require.Equal(t, "old", read(t, after.Path("old")))
	require.Equal(t, "v1", read(t, after.Path("cp")))
	require.Equal(t, "XX", read(t, fs.Path("cp")), "the live FS is untouched")
	require.True(t, exists(after.Path("u")))
	require.False(t, exists(after.Path("u", "unlinked")))
	require.Equal(t, "r", read(t, after.Path("rn", "r.tmp")))
	require.False(t, exists(after.Path("rn", "r")))
	require.False(t, exists(after.Path("d")))
}

func TestPowerLossKeepsMsyncedRanges(t *testing.T) {
	fs := vfstest.New(t)
	f, err := vfs.CreateAllocated(fs, fs.Path("seg"), 3*vfs.PageSize)
	require.NoError(t, err)
	m, err := f.Map(3 * vfs.PageSize)
	require.NoError(t, err)
	b := m.Bytes()
	copy(b, "synced")
	copy(b[vfs.PageSize:], "lost")
	copy(b[2*vfs.PageSize:], "synced too")
	require.NoError(t, m.Sync(0, 10))
	require.NoError(t, m.Sync(2*vfs.PageSize, vfs.PageSize))

	after, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crash"))
	require.NoError(t, err)
	got := []byte(read(t, after.Path("seg")))
	require.Len(t, got, 3*vfs.PageSize, "the preallocated size was synced")
	require.Equal(t, "synced", string(got[:6]))
	require.Equal(t, make([]byte, 4), got[vfs.PageSize:vfs.PageSize+4])
	require.Equal(t, "synced too", string(got[2*vfs.PageSize:2*vfs.PageSize+10]))

	require.NoError(t, f.Sync(), "an fsync makes pages written through the mapping durable too")
	after2, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crash2"))
	require.NoError(t, err)
	require.Equal(t, "lost", read(t, after2.Path("seg"))[vfs.PageSize:vfs.PageSize+4])
	require.NoError(t, m.Unmap())
	require.NoError(t, f.Close())
}

func TestPowerLossRemembersRemovedFiles(t *testing.T) {
	fs := vfstest.New(t)
	require.NoError(t, vfs.MkdirAll(fs, fs.Path("q", "0")))
	require.NoError(t, vfs.WriteFile(fs, fs.Path("q", "0", "f"), []byte("f")))
	require.NoError(t, vfs.WriteFile(fs, fs.Path("a"), []byte("a")))
	require.NoError(t, fs.Remove(fs.Path("a")))
	require.NoError(t, fs.RemoveAll(fs.Path("q")))
	after, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crash"))
	require.NoError(t, err)
	require.Equal(t, "a", read(t, after.Path("a")), "the removal was not synced")
	require.Equal(t, "f", read(t, after.Path("q", "0", "f")))

	require.NoError(t, fs.SyncDir(fs.Root()))
	after2, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crash2"))
	require.NoError(t, err)
	require.False(t, exists(after2.Path("a")))
	require.False(t, exists(after2.Path("q")))
}

// SyncFS makes everything durable: unsynced new directories, files, renames
// and writes through a mapping survive a power loss after it.
func TestPowerLossAfterSyncFS(t *testing.T) {
	fs := vfstest.New(t)
	require.NoError(t, vfs.MkdirAllNoSync(fs, fs.Path("q", "0")))
	f, err := vfs.CreateSparse(fs, fs.Path("q", "0", "seg"), 2*vfs.PageSize, vfs.PageSize)
	require.NoError(t, err)
	m, err := f.Map(2 * vfs.PageSize)
	require.NoError(t, err)
	copy(m.Bytes(), "entry")

	after, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crash"))
	require.NoError(t, err)
	require.False(t, exists(after.Path("q")), "nothing was synced")

	root, err := fs.Open(fs.Root())
	require.NoError(t, err)
	require.NoError(t, root.SyncFS())
	require.NoError(t, root.Close())
	copy(m.Bytes()[vfs.PageSize:], "later")
	after2, err := fs.PowerLoss(filepath.Join(t.TempDir(), "crash2"))
	require.NoError(t, err)
	got := read(t, after2.Path("q", "0", "seg"))
	require.Len(t, got, 2*vfs.PageSize)
	require.Equal(t, "entry", got[:5])
	require.Equal(t, make([]byte, 5), []byte(got[vfs.PageSize:vfs.PageSize+5]), "written after the syncfs")
	require.NoError(t, m.Unmap())
	require.NoError(t, f.Close())
	require.Equal(t, 1, fs.Count(vfstest.OpSyncFS, ""))
}
