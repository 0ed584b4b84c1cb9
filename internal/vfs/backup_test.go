package vfs_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

func decodeJSON(data []byte) error {
	var v map[string]any
	return json.Unmarshal(data, &v)
}

func TestWriteKeepsPreviousVersionAsBak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "topics.json")
	require.NoError(t, vfs.WriteWithBackup(vfs.Default, path, []byte(`{"v":1}`)))
	_, err := os.Stat(path + vfs.BakSuffix)
	require.True(t, errors.Is(err, os.ErrNotExist), "no backup before the second write")

	require.NoError(t, vfs.WriteWithBackup(vfs.Default, path, []byte(`{"v":2}`)))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, `{"v":2}`, string(got))
	bak, err := os.ReadFile(path + vfs.BakSuffix)
	require.NoError(t, err)
	require.Equal(t, `{"v":1}`, string(bak))

	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 2, "no temp files left behind")
}

func TestReadFallsBackToBak(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "consumerOffset.json")
	require.NoError(t, vfs.WriteWithBackup(vfs.Default, path, []byte(`{"v":1}`)))
	require.NoError(t, vfs.WriteWithBackup(vfs.Default, path, []byte(`{"v":2}`)))

	data, fromBak, err := vfs.ReadWithBackup(vfs.Default, path, decodeJSON)
	require.NoError(t, err)
	require.False(t, fromBak)
	require.Equal(t, `{"v":2}`, string(data))

	for name, corrupt := range map[string]func(){
		"torn":    func() { require.NoError(t, os.WriteFile(path, []byte(`{"v":`), 0o644)) },
		"empty":   func() { require.NoError(t, os.WriteFile(path, nil, 0o644)) },
		"missing": func() { require.NoError(t, os.Remove(path)) },
	} {
		t.Run(name, func(t *testing.T) {
			corrupt()
			data, fromBak, err := vfs.ReadWithBackup(vfs.Default, path, decodeJSON)
			require.NoError(t, err)
			require.True(t, fromBak)
			require.Equal(t, `{"v":1}`, string(data))
			require.NoError(t, os.WriteFile(path, []byte(`{"v":2}`), 0o644))
		})
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	_, _, err := vfs.ReadWithBackup(vfs.Default, path, decodeJSON)
	require.ErrorIs(t, err, vfs.ErrNotFound)

	require.NoError(t, os.WriteFile(path, nil, 0o644))
	_, _, err = vfs.ReadWithBackup(vfs.Default, path, decodeJSON)
	require.ErrorIs(t, err, vfs.ErrNotFound, "an empty file with no backup is a fresh start, as in Java")

	require.NoError(t, os.WriteFile(path, []byte("garbage"), 0o644))
	_, _, err = vfs.ReadWithBackup(vfs.Default, path, decodeJSON)
	require.Error(t, err)
	require.NotErrorIs(t, err, vfs.ErrNotFound, "a corrupt file with no backup must not look like a fresh start")

	require.NoError(t, os.WriteFile(path+vfs.BakSuffix, []byte("also garbage"), 0o644))
	_, _, err = vfs.ReadWithBackup(vfs.Default, path, decodeJSON)
	require.Error(t, err)
	require.NotErrorIs(t, err, vfs.ErrNotFound)

	data, _, err := vfs.ReadWithBackup(vfs.Default, path, nil)
	require.NoError(t, err, "nil decode accepts anything")
	require.Equal(t, "garbage", string(data))
}

func TestWriteFailsWhenDirectoryCannotExist(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notADir, []byte("x"), 0o644))
	err := vfs.WriteWithBackup(vfs.Default, filepath.Join(notADir, "config", "a.json"), []byte("{}"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "vfs: mkdir")

	// The target path is a directory: the rename fails and no temp file is left behind.
	dir := t.TempDir()
	target := filepath.Join(dir, "topics.json")
	require.NoError(t, os.Mkdir(target, 0o755))
	require.Error(t, vfs.WriteWithBackup(vfs.Default, target, []byte("{}")))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

func TestPersisterDropsOlderSnapshots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	p := vfs.NewPersister(vfs.Default, path)
	require.Equal(t, path, p.Path())
	require.NoError(t, p.Write([]byte("2"), 2))
	require.NoError(t, p.Write([]byte("1"), 1))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "2", string(got), "the older snapshot must not overwrite the newer one")
	require.NoError(t, p.Write([]byte("3"), 3))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "3", string(got))
}
