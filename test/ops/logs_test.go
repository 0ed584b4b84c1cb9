package ops

import (
	"bufio"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestLogRotationAndSIGHUP: --log-file in a directory that does not exist yet is created; past
// --log-max-size the file is rotated and only --log-max-backups rotated files stay; after the file
// was moved away, SIGHUP makes the server write a new one at the path (logrotate's "create"). The
// lines come from a name server at debug level answering requests of a code it does not serve.
func TestLogRotationAndSIGHUP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logDir := filepath.Join(dir, "logs", "rocketgo")
	logFile := filepath.Join(logDir, "namesrv.log")
	ns := namesrvNode(t, filepath.Join(dir, "namesrv"), nil)
	n := startNamesrv(t, ns, "--log-file", logFile, "--log-max-size", "1", "--log-max-backups", "2", "--log-level", "debug")
	require.FileExists(t, logFile)
	require.Empty(t, strings.TrimSpace(n.log()), "the log goes to the file, not stderr")

	floodUnsupported(t, ns.addr(), 30000) // ~200 bytes of debug log each: several rotations
	require.Eventually(t, func() bool {
		backups, _ := filepath.Glob(filepath.Join(logDir, "namesrv-*.log"))
		return len(backups) == 2
	}, logTimeout, 50*time.Millisecond, "two rotated files kept")
	st, err := os.Stat(logFile)
	require.NoError(t, err)
	require.LessOrEqual(t, st.Size(), int64(1<<20), "the current file stays under --log-max-size")

	moved := filepath.Join(dir, "namesrv.log.moved")
	require.NoError(t, os.Rename(logFile, moved))
	n.signal(t, syscall.SIGHUP)
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(logFile)
		return err == nil && strings.Contains(string(b), "SIGHUP: log file reopened")
	}, logTimeout, 50*time.Millisecond, "a new log file after SIGHUP")
	require.True(t, n.running(), "SIGHUP does not stop the server")
	n.stop(t, syscall.SIGTERM)
	b, err := os.ReadFile(logFile)
	require.NoError(t, err)
	require.Contains(t, string(b), "shutdown complete", "the reopened file gets the lines that follow")
	old, err := os.ReadFile(moved)
	require.NoError(t, err)
	require.NotContains(t, string(old), "shutdown complete")
}

// floodUnsupported sends n requests of a code the name server does not serve over one connection,
// reading the answers.
func floodUnsupported(t testing.TB, addr string, n int) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer c.Close()
	read := make(chan int64, 1)
	go func() {
		got, _ := io.Copy(io.Discard, c)
		read <- got
	}()
	w := bufio.NewWriter(c)
	for i := range n {
		frame, err := cluster.EncodeRequest(9999, int32(i), map[string]string{"log": "rotation test"}, nil)
		require.NoError(t, err)
		_, err = w.Write(frame)
		require.NoError(t, err)
	}
	require.NoError(t, w.Flush())
	time.Sleep(500 * time.Millisecond)
	_ = c.(*net.TCPConn).CloseWrite()
	select {
	case <-read:
	case <-time.After(logTimeout):
		t.Fatalf("the name server did not answer %d requests within %v", n, logTimeout)
	}
}

// TestLogKeysInConf: the log keys of namesrv.conf configure the logger, and what was logged while
// the file loaded (an unknown key) reaches the file too, under the "namesrv.config" logger, before
// the effective configuration.
func TestLogKeysInConf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "var", "log", "namesrv.log")
	ns := namesrvNode(t, filepath.Join(dir, "namesrv"), map[string]string{"logFile": logFile,
		"logFormat": "json", "noSuchKey": "1"})
	n := startNamesrv(t, ns)
	n.stop(t, syscall.SIGTERM)
	require.Empty(t, strings.TrimSpace(n.log()), "nothing on stderr")
	b, err := os.ReadFile(logFile)
	require.NoError(t, err)
	text := string(b)
	unknown := lines(text, "unknown key ignored")
	require.Len(t, unknown, 1)
	require.Contains(t, unknown[0], `"logger":"namesrv.config"`)
	require.Contains(t, unknown[0], `"key":"noSuchKey"`)
	require.Less(t, strings.Index(text, "unknown key ignored"), strings.Index(text, "effective namesrv configuration"))
	require.Contains(t, text, `logFile=`+logFile)
}
