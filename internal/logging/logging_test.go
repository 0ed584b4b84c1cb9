package logging

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

func TestJSONToFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broker.log")
	lg, err := New(Options{Level: "WARN", Format: "json", Output: path})
	require.NoError(t, err)
	lg.Info("dropped below the level")
	lg.Warn("disk almost full", zap.String("store", "/data"))
	require.NoError(t, lg.Close())

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 1)
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &entry))
	require.Equal(t, "warn", entry["level"])
	require.Equal(t, "disk almost full", entry["msg"])
	require.Equal(t, "/data", entry["store"])
	require.Contains(t, entry, "ts")
	require.Contains(t, entry, "caller")

	// A second logger appends to the same file.
	lg2, err := New(Options{Format: "console", Output: path})
	require.NoError(t, err)
	lg2.Info("started")
	require.NoError(t, lg2.Close())
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), "INFO")
	require.Contains(t, string(data), "started")
	require.Equal(t, 2, strings.Count(string(data), "\n"))
}

func TestDefaults(t *testing.T) {
	lg, err := New(Options{})
	require.NoError(t, err)
	require.True(t, lg.Core().Enabled(zapcore.InfoLevel))
	require.False(t, lg.Core().Enabled(zapcore.DebugLevel))
	require.Empty(t, lg.File())
	require.NoError(t, lg.Reopen(), "reopening stderr does nothing")

	lg, err = New(Options{Level: "debug", Output: "stdout"})
	require.NoError(t, err)
	require.True(t, lg.Core().Enabled(zapcore.DebugLevel))
}

func TestBadOptions(t *testing.T) {
	_, err := New(Options{Level: "loud"})
	require.ErrorContains(t, err, `level "loud"`)
	_, err = New(Options{Format: "xml"})
	require.ErrorContains(t, err, `format "xml"`)
	_, err = New(Options{Levels: "store"})
	require.ErrorContains(t, err, `component level "store"`)
	_, err = New(Options{Levels: "store=chatty"})
	require.ErrorContains(t, err, `component level "store=chatty"`)
	_, err = New(Options{Output: filepath.Join(t.TempDir(), "x.log"), Rotate: Rotation{MaxBackups: -1}})
	require.ErrorContains(t, err, "must not be negative")
	blocker := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	_, err = New(Options{Output: filepath.Join(blocker, "x.log")})
	require.ErrorContains(t, err, "create the directory")
}

// TestCreatesDirectory: a log file in a directory that does not exist yet gets it, at New.
func TestCreatesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "rocketmq", "broker.log")
	lg, err := New(Options{Output: path})
	require.NoError(t, err)
	_, err = os.Stat(path)
	require.NoError(t, err, "the file exists before the first line")
	require.Equal(t, path, lg.File())
	require.NoError(t, lg.Close())
}

// TestNames: the root name and the components' names are on every line.
func TestNames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.log")
	lg, err := New(Options{Output: path, Format: "json", Name: "broker"})
	require.NoError(t, err)
	lg.Named("store").Info("x")
	require.NoError(t, lg.Close())
	var entry map[string]any
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &entry))
	require.Equal(t, "broker.store", entry["logger"])
}

// TestComponentLevels: a component's level applies to its logger and those below it; the longest
// matching name wins; others keep the default level.
func TestComponentLevels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "levels.log")
	lg, err := New(Options{Output: path, Name: "broker", Level: "info",
		Levels: "store=debug; remoting=warn, store.index=error"})
	require.NoError(t, err)
	store, remoting := lg.Named("store"), lg.Named("remoting")
	store.Debug("store debug")
	store.Named("commitlog").Debug("commitlog debug")
	store.Named("index").Warn("index warn")
	store.Named("index").Error("index error")
	remoting.Info("remoting info")
	remoting.With(zap.Int("conn", 1)).Warn("remoting warn")
	lg.Named("storex").Debug("storex debug")
	lg.Debug("root debug")
	lg.Info("root info")
	require.NoError(t, lg.Close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	got := string(data)
	for _, want := range []string{"store debug", "commitlog debug", "index error", "remoting warn", "root info"} {
		require.Contains(t, got, want)
	}
	for _, not := range []string{"index warn", "remoting info", "storex debug", "root debug"} {
		require.NotContains(t, got, not)
	}
}

// TestRotation: past MaxSizeMB the file is renamed with a timestamp and a new one started; only
// MaxBackups rotated files stay.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "broker.log")
	lg, err := New(Options{Output: path, Rotate: Rotation{MaxSizeMB: 1, MaxBackups: 2}})
	require.NoError(t, err)
	line := strings.Repeat("x", 1000)
	for range 4 * 1100 { // about 4.4 MB: four rotations
		lg.Info(line)
	}
	require.NoError(t, lg.Close())
	require.Eventually(t, func() bool { // old files are deleted in lumberjack's own goroutine
		matches, _ := filepath.Glob(filepath.Join(dir, "broker-*.log"))
		return len(matches) == 2
	}, 10*time.Second, 10*time.Millisecond, "two rotated files kept")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.LessOrEqual(t, st.Size(), int64(1<<20))
}

// TestReopen: after the file was moved away, Reopen makes the next line create it again; the
// moved file keeps what was written before.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "namesrv.log")
	lg, err := New(Options{Output: path})
	require.NoError(t, err)
	lg.Info("before the move")
	require.NoError(t, os.Rename(path, path+".1"))
	lg.Info("after the move, before reopen")
	require.NoError(t, lg.Reopen())
	lg.Info("after reopen")
	require.NoError(t, lg.Close())

	old, err := os.ReadFile(path + ".1")
	require.NoError(t, err)
	require.Contains(t, string(old), "before the move")
	require.Contains(t, string(old), "after the move, before reopen")
	cur, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(cur), "after reopen")
	require.NotContains(t, string(cur), "before")

	// Reopen without a move appends to the same file.
	lg, err = New(Options{Output: path})
	require.NoError(t, err)
	require.NoError(t, lg.Reopen())
	lg.Info("appended")
	require.NoError(t, lg.Close())
	cur, err = os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(cur), "after reopen")
	require.Contains(t, string(cur), "appended")
}
