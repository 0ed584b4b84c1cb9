package vfs_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// Moved from mmapfile: the production FS measures the disk as df does.
func TestDiskUsageLikeDf(t *testing.T) {
	total, free, err := vfs.Default.DiskUsage(t.TempDir())
	require.NoError(t, err)
	require.Positive(t, total)
	require.LessOrEqual(t, free, total)
}

func TestCreateAllocatedZeroFillFallback(t *testing.T) {
	fs := vfstest.New(t)
	fs.Fail(vfstest.OpFallocate, "", 0, vfs.ErrUnsupported)
	const size = 3<<20 + 100 // more than one zero chunk
	f, err := vfs.CreateAllocated(fs, fs.Path("f"), size)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(fs.Path("f"), &st))
	require.EqualValues(t, size, st.Size)
	require.GreaterOrEqual(t, st.Blocks*512, int64(size), "zero fill allocates every block")
	require.Equal(t, 4, fs.Count(vfstest.OpWriteAt, "f.tmp"))
}

func TestAllocateKeepsTheBytesBefore(t *testing.T) {
	fs := vfstest.New(t)
	require.NoError(t, os.WriteFile(fs.Path("f"), []byte("keep"), 0o644))
	f, err := fs.OpenReadWrite(fs.Path("f"))
	require.NoError(t, err)
	fs.Fail(vfstest.OpFallocate, "", 0, vfs.ErrUnsupported)
	require.NoError(t, vfs.Allocate(f, 4, 10))
	require.NoError(t, f.Close())
	b, err := os.ReadFile(fs.Path("f"))
	require.NoError(t, err)
	require.Equal(t, append([]byte("keep"), make([]byte, 6)...), b)
}

func TestMkdirAllSyncsEachNewParent(t *testing.T) {
	fs := vfstest.New(t)
	require.NoError(t, os.Mkdir(fs.Path("a"), 0o755))
	require.NoError(t, vfs.MkdirAll(fs, filepath.Join(fs.Root(), "a", "b", "c")))
	require.Equal(t, []string{
		"stat: a/b/c", "stat: a/b", "stat: a",
		"mkdir: a/b", "syncdir: a",
		"mkdir: a/b/c", "syncdir: a/b",
	}, fs.Trace())
	fs.ResetTrace()
	require.NoError(t, vfs.MkdirAll(fs, fs.Path("a", "b", "c")))
	require.Equal(t, []string{"stat: a/b/c"}, fs.Trace(), "an existing directory costs one stat")
	require.NoError(t, os.WriteFile(fs.Path("file"), nil, 0o644))
	require.Error(t, vfs.MkdirAll(fs, fs.Path("file")))
}

func TestWriteFileFailureKeepsTheOldContent(t *testing.T) {
	for _, kind := range []string{vfstest.OpWrite, vfstest.OpSync, vfstest.OpRename} {
		t.Run(kind, func(t *testing.T) {
			fs := vfstest.New(t)
			p := fs.Path("f")
			require.NoError(t, vfs.WriteFile(fs, p, []byte("old")))
			fs.Fail(kind, "", 0, syscall.ENOSPC)
			require.ErrorIs(t, vfs.WriteFile(fs, p, []byte("new")), syscall.ENOSPC)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, "old", string(b))
			_, err = os.Stat(p + vfs.TempSuffix)
			require.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}
