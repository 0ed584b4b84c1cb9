package logging

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	require.NoError(t, lg.Sync())

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
	require.NoError(t, lg2.Sync())
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

	lg, err = New(Options{Level: "debug", Output: "stdout"})
	require.NoError(t, err)
	require.True(t, lg.Core().Enabled(zapcore.DebugLevel))
}

func TestBadOptions(t *testing.T) {
	_, err := New(Options{Level: "loud"})
	require.ErrorContains(t, err, `level "loud"`)
	_, err = New(Options{Format: "xml"})
	require.ErrorContains(t, err, `format "xml"`)
	_, err = New(Options{Output: filepath.Join(t.TempDir(), "no", "such", "dir", "x.log")})
	require.ErrorContains(t, err, "open output")
}
