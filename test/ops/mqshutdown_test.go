package ops

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mqshutdown runs bin/mqshutdown with args and returns its output and exit code.
func mqshutdown(t testing.TB, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(bin(t, "mqshutdown"), args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

// TestMQShutdown: `mqshutdown broker` and `mqshutdown namesrv` (narrowed with -c to this test's
// servers: other tests' servers run on this host) find the process, send SIGTERM and, with --wait,
// return once it exited; the broker, stopped while a producer sends, leaves a clean store with
// every acknowledged message. With nothing left to stop it says so and exits 1, as Apache's does.
func TestMQShutdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ns := namesrvNode(t, filepath.Join(dir, "namesrv"), nil)
	n := startNamesrv(t, ns)
	br := brokerNode(t, filepath.Join(dir, "broker"), "broker-mqshutdown", ns.addr(), nil)
	b := startBroker(t, br)
	topic := "OpsMQShutdown"
	createTopic(t, ns.addr(), br.addr(), topic)
	s := startSender(t, ns.addr(), topic)
	s.waitAcked(t, 100)

	begin := time.Now()
	out, code := mqshutdown(t, "broker", "-c", br.conf, "--wait", "90s")
	require.Equal(t, 0, code, out)
	logStop(t, "mqshutdown broker --wait", time.Since(begin))
	require.Contains(t, out, fmt.Sprintf("The mqbroker(%d) is running...\n", b.pid()))
	require.Contains(t, out, fmt.Sprintf("Send shutdown request to mqbroker(%d) OK\n", b.pid()))
	require.Contains(t, out, fmt.Sprintf("mqbroker(%d) stopped after", b.pid()))
	require.NoError(t, b.wait(t, logTimeout), "the broker's exit status")
	require.NotEmpty(t, lines(b.log(), "shutting down on SIGTERM"))
	require.False(t, br.abortExists(t))
	s.stop()

	out, code = mqshutdown(t, "namesrv", "-c", ns.conf, "--wait", "90s")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, fmt.Sprintf("Send shutdown request to mqnamesrv(%d) OK\n", n.pid()))
	require.NoError(t, n.wait(t, logTimeout))

	out, code = mqshutdown(t, "broker", "-c", br.conf)
	require.Equal(t, 1, code)
	require.Equal(t, "No mqbroker running.\n", out)
	out, code = mqshutdown(t, "nameserver")
	require.Equal(t, 1, code)
	require.Contains(t, out, "Usage: mqshutdown broker | namesrv")

	startNamesrv(t, ns)
	b2 := startBroker(t, br)
	requireCleanRecovery(t, b2.log())
	requireAllStored(t, s.ackedIDs(), storedIDs(t, br.addr(), topic))
}
