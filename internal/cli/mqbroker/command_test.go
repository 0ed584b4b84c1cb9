package mqbroker

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeConf(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "broker.conf")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// TestPrintConfig: -p prints the effective configuration and exits, as Apache's mqbroker -p does.
func TestPrintConfig(t *testing.T) {
	path := writeConf(t, "brokerName = broker-p\nlistenPort = 10999\n")
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-c", path, "-p", "--log-level", "error"})
	require.NoError(t, cmd.Execute())
	require.Contains(t, out.String(), "brokerName=broker-p\n")
	require.Contains(t, out.String(), "listenPort=10999\n")
	require.Contains(t, out.String(), "flushDiskType=ASYNC_FLUSH\n")
}

// TestBadConfigStopsStartUp: a bad value is an error naming the key.
func TestBadConfigStopsStartUp(t *testing.T) {
	path := writeConf(t, "flushDiskType = SOMETIMES\n")
	cmd := NewCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"-c", path, "--log-level", "error"})
	err := cmd.Execute()
	require.Error(t, err)
	require.Contains(t, err.Error(), "flushDiskType")
}
