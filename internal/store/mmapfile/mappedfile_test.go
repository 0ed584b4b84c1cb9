package mmapfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testSize = 64 << 10

func write(t *testing.T, f *MappedFile, b []byte) {
	t.Helper()
	n := copy(f.Tail(), b)
	require.Equal(t, len(b), n)
	f.SetWrote(f.Wrote() + int64(n))
}

func TestCreateWriteFlushReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName(testSize))
	f, err := Create(vfs.Default, path, testSize, testSize)
	require.NoError(t, err)
	require.Equal(t, "00000000000000065536", filepath.Base(f.Path()))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.EqualValues(t, testSize, st.Size())
	_, err = os.Stat(path + ".tmp")
	require.ErrorIs(t, err, os.ErrNotExist)

	write(t, f, []byte("hello"))
	write(t, f, []byte(" world"))
	require.EqualValues(t, 11, f.Wrote())
	require.EqualValues(t, 0, f.Flushed())
	pos, err := f.Flush()
	require.NoError(t, err)
	require.EqualValues(t, 11, pos)
	require.EqualValues(t, 11, f.Flushed())
	f.Close()
	require.NoError(t, f.Wait())

	g, err := Open(vfs.Default, path, testSize, testSize)
	require.NoError(t, err)
	defer g.Close()
	require.Equal(t, "hello world", string(g.Bytes(0, 11)))
	require.True(t, g.IsFull(), "a loaded segment starts full until recovery trims it")

	_, err = Open(vfs.Default, path, testSize, testSize*2)
	require.ErrorContains(t, err, "want 131072")
}

func TestFailedSyncKeepsFlushedPosition(t *testing.T) {
	fs := vfstest.New(t)
	f, err := Create(fs, fs.Path(FileName(0)), 0, testSize)
	require.NoError(t, err)
	defer f.Close()
	write(t, f, bytes.Repeat([]byte{1}, 5000))
	fs.ResetTrace()
	fs.Fail(vfstest.OpMsync, "", 1, syscall.EIO)
	pos, err := f.Flush()
	require.ErrorIs(t, err, syscall.EIO)
	require.EqualValues(t, 0, pos)
	require.EqualValues(t, 0, f.Flushed())
	require.Equal(t, []string{"msync: 00000000000000000000 0 5000 = injected input/output error"}, fs.Trace())

	pos, err = f.Flush()
	require.NoError(t, err)
	require.EqualValues(t, 5000, pos)
	write(t, f, []byte{2})
	// The next flush starts at the page holding the flushed position.
	fs.ResetTrace()
	_, err = f.Flush()
	require.NoError(t, err)
	require.Equal(t, []string{fmt.Sprintf("msync: 00000000000000000000 %d %d", PageSize, 5001-PageSize)}, fs.Trace())
}

func TestReferencesDelayUnmap(t *testing.T) {
	f, err := Create(vfs.Default, filepath.Join(t.TempDir(), FileName(0)), 0, testSize)
	require.NoError(t, err)
	write(t, f, []byte("data"))
	require.True(t, f.Acquire())
	require.NoError(t, f.Destroy())
	_, err = os.Stat(f.Path())
	require.ErrorIs(t, err, os.ErrNotExist, "Destroy unlinks at once")
	require.False(t, f.Acquire(), "no new readers once closing")
	select {
	case <-f.freed:
		t.Fatal("unmapped under a reader")
	default:
	}
	require.Equal(t, "data", string(f.Bytes(0, 4)), "reader still sees the mapping")
	f.Release()
	require.NoError(t, f.Wait())
	require.EqualValues(t, 0, f.Refs())
	f.Close() // idempotent
}

func TestZeroFrom(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName(0))
	f, err := Create(vfs.Default, path, 0, testSize)
	require.NoError(t, err)
	write(t, f, bytes.Repeat([]byte{0xAB}, testSize))
	_, err = f.Flush()
	require.NoError(t, err)
	require.NoError(t, f.ZeroFrom(100))
	require.EqualValues(t, 100, f.Wrote())
	require.EqualValues(t, 100, f.Flushed())
	require.Equal(t, bytes.Repeat([]byte{0xAB}, 100), f.Bytes(0, 100))
	require.Equal(t, make([]byte, testSize-100), f.Bytes(100, testSize-100))
	f.Close()
	require.NoError(t, f.Wait())
	disk, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, make([]byte, testSize-100), disk[100:])
	require.Equal(t, bytes.Repeat([]byte{0xAB}, 100), disk[:100])
}

func TestCatchFault(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName(0))
	f, err := Create(vfs.Default, path, 0, testSize)
	require.NoError(t, err)
	defer f.Close()
	// Shrinking the file under the mapping makes reads past EOF fault (SIGBUS).
	require.NoError(t, os.Truncate(path, 0))
	var sink byte
	err = CatchFault(func() error {
		sink = f.Bytes(PageSize*2, 1)[0]
		return nil
	})
	require.Zero(t, sink)
	require.ErrorContains(t, err, "memory fault")
	require.NoError(t, CatchFault(func() error { return nil }))
	require.Panics(t, func() { _ = CatchFault(func() error { panic("other") }) })
}

func TestFileName(t *testing.T) {
	require.Equal(t, "00000000001073741824", FileName(1<<30))
	v, ok := ParseFileName("00000000001073741824")
	require.True(t, ok)
	require.EqualValues(t, 1<<30, v)
	for _, bad := range []string{"1073741824", "0000000000107374182x", "-0000000000000000001"} {
		_, ok := ParseFileName(bad)
		require.False(t, ok, bad)
	}
}
