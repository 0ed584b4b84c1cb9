package mqnamesrv

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeConf(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "namesrv.conf")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// TestPrintConfig: -p prints the effective configuration and exits.
func TestPrintConfig(t *testing.T) {
	cmd := NewCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"-c", writeConf(t, "listenPort = 19876\n"), "-p", "--log-level", "error"})
	require.NoError(t, cmd.Execute())
	require.Contains(t, out.String(), "listenPort=19876\n")
	require.Contains(t, out.String(), "tls.server.mode=permissive\n")
}

// TestBadConfigStopsStartUp: a bad value is an error naming the key.
func TestBadConfigStopsStartUp(t *testing.T) {
	cmd := NewCommand()
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs([]string{"-c", writeConf(t, "scanNotActiveBrokerInterval = soon\n"), "--log-level", "error"})
	require.ErrorContains(t, cmd.Execute(), "scanNotActiveBrokerInterval")
}
