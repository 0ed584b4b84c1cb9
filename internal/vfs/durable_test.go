package vfs_test

import (
	"io"
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

// blocks is the disk space of path in bytes, as du counts it.
func blocks(t *testing.T, path string) int64 {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Stat(path, &st))
	return st.Blocks * 512
}

// A sparse file has its full length but only the allocated blocks; its
// creation syncs nothing.
func TestCreateSparse(t *testing.T) {
	fs := vfstest.New(t)
	const size = 6_000_000
	f, err := vfs.CreateSparse(fs, fs.Path("cq"), size, vfs.PageSize)
	require.NoError(t, err)
	defer f.Close()
	st, err := os.Stat(fs.Path("cq"))
	require.NoError(t, err)
	require.EqualValues(t, size, st.Size(), "the full logical length, as Apache's MappedFileQueue.load wants")
	require.Equal(t, int64(vfs.PageSize), blocks(t, fs.Path("cq")))
	require.Equal(t, []string{
		"create: cq.tmp",
		"truncate: cq.tmp 6000000",
		"fallocate: cq.tmp 0 4096",
		"rename: cq.tmp -> cq",
	}, fs.Trace())

	fs.Fail(vfstest.OpFallocate, "", 0, syscall.ENOSPC)
	_, err = vfs.CreateSparse(fs, fs.Path("full"), size, vfs.PageSize)
	require.ErrorIs(t, err, syscall.ENOSPC)
	require.NoFileExists(t, fs.Path("full"))
	require.NoFileExists(t, fs.Path("full"+vfs.TempSuffix))
}

// PunchHole gives the blocks back; NextData finds what is left.
func TestPunchHoleAndNextData(t *testing.T) {
	fs := vfstest.New(t)
	const size = 64 * vfs.PageSize
	f, err := vfs.CreateSparse(fs, fs.Path("f"), size, 0)
	require.NoError(t, err)
	defer f.Close()
	_, _, err = f.NextData(0)
	require.ErrorIs(t, err, io.EOF, "nothing but a hole")

	_, err = f.WriteAt([]byte("x"), 10*vfs.PageSize+5)
	require.NoError(t, err)
	start, end, err := f.NextData(0)
	require.NoError(t, err)
	require.EqualValues(t, 10*vfs.PageSize, start)
	require.Greater(t, end, start)
	require.LessOrEqual(t, end, int64(size))

	require.NoError(t, f.PunchHole(10*vfs.PageSize, vfs.PageSize))
	require.Zero(t, blocks(t, fs.Path("f")))
	_, _, err = f.NextData(0)
	require.ErrorIs(t, err, io.EOF)
	b := make([]byte, 1)
	_, err = f.ReadAt(b, 10*vfs.PageSize+5)
	require.NoError(t, err)
	require.Zero(t, b[0], "a punched range reads as zeros")
	st, err := f.Stat()
	require.NoError(t, err)
	require.EqualValues(t, size, st.Size())
}

func TestMkdirAllNoSync(t *testing.T) {
	fs := vfstest.New(t)
	require.NoError(t, vfs.MkdirAllNoSync(fs, fs.Path("a", "b")))
	require.Equal(t, []string{"stat: a/b", "stat: a", "stat: .", "mkdir: a", "mkdir: a/b"}, fs.Trace())
	require.DirExists(t, fs.Path("a", "b"))
}
