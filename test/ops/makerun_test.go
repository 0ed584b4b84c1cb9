package ops

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMakeRunCtrlCWhileSending is Ctrl-C on `make run` while a producer sends: SIGINT to the whole
// process group of make (as a terminal sends it), then a second one. The broker must stop first
// (on the script's SIGTERM: it never sees the terminal's SIGINT), close its store, and only then
// the name server; every line is tagged with the process it came from. The next start finds no
// abort file, recovers on the normal path, and every acknowledged message is in the store.
func TestMakeRunCtrlCWhileSending(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, dir := repoRoot(t), t.TempDir()
	ns := namesrvNode(t, filepath.Join(dir, "namesrv"), nil)
	br := brokerNode(t, filepath.Join(dir, "broker"), "broker-run", ns.addr(), nil)

	// A shell that starts a job in the background with job control off makes it ignore SIGINT, and
	// bash cannot trap a signal ignored on entry: catching SIGINT here makes the children start
	// with the default action, as under a terminal.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT)
	defer signal.Stop(sigc)

	cmd := exec.Command("make", "-s", "-o", "build", "run")
	cmd.Dir = root
	cmd.Env = append(childEnv(dir), "BIN="+filepath.Join(root, "bin"), "NAMESRV_CONF="+ns.conf, "BROKER_CONF="+br.conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	mk := startCmd(t, "make-run", cmd, dir)
	killLeftovers(t, mk, ns.conf, br.conf)
	waitHTTP(t, mk, br.url("/readyz"), 200)
	waitHTTP(t, mk, ns.url("/readyz"), 200)

	topic := "OpsMakeRun"
	createTopic(t, ns.addr(), br.addr(), topic)
	s := startSender(t, ns.addr(), topic)
	s.waitAcked(t, 200)

	begin := time.Now()
	require.NoError(t, syscall.Kill(-mk.pid(), syscall.SIGINT), "Ctrl-C: SIGINT to make's process group")
	mk.waitLog(t, "[run-local] stopping the broker", logTimeout)
	_ = syscall.Kill(-mk.pid(), syscall.SIGINT) // an impatient second Ctrl-C
	_ = mk.wait(t, stopTimeout)                 // make itself reports the interrupt
	logStop(t, "make run after Ctrl-C (broker, then name server)", time.Since(begin))
	s.stop()

	out := mk.log()
	require.Contains(t, out, "[run-local] stopped (broker exit status 0, name server exit status 0)")
	requireTagged(t, out)
	brokerDone := indexOfLine(out, "[broker] ", "shutdown complete")
	namesrvStops := indexOfLine(out, "[namesrv] ", "shutting down on")
	require.Positive(t, brokerDone, "the broker logged its shutdown")
	require.Greater(t, namesrvStops, brokerDone, "the name server began stopping only after the broker had stopped")
	require.NotEmpty(t, lines(out, "message store closed"))
	require.Empty(t, grepBoth(out, "[broker] ", "shutting down on SIGINT"), "the terminal's SIGINT reached the broker")
	require.False(t, br.abortExists(t), "abort file left behind")

	acked := s.ackedIDs()
	t.Logf("%d sends acknowledged, %d failed while the servers stopped", len(acked), s.nFailed.Load())
	startNamesrv(t, ns)
	b2 := startBroker(t, br)
	requireCleanRecovery(t, b2.log())
	requireAllStored(t, acked, storedIDs(t, br.addr(), topic))
}

// requireTagged checks that every line of make run's output names the process it came from.
func requireTagged(t testing.TB, out string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "[namesrv] "), strings.HasPrefix(l, "[broker] "), strings.HasPrefix(l, "[run-local] "),
			strings.HasPrefix(l, "make: "), strings.HasPrefix(l, "make["):
		default:
			t.Errorf("untagged line in make run's output: %q", l)
		}
	}
}

// indexOfLine is the byte offset of the first line that starts with prefix and contains substr,
// or -1.
func indexOfLine(text, prefix, substr string) int {
	off := 0
	for _, l := range strings.SplitAfter(text, "\n") {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, substr) {
			return off
		}
		off += len(l)
	}
	return -1
}

// grepBoth returns the lines that start with prefix and contain substr.
func grepBoth(text, prefix, substr string) []string {
	var out []string
	for _, l := range lines(text, substr) {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

var serverPids = regexp.MustCompile(`mqnamesrv \(pid (\d+)\).*mqbroker \(pid (\d+)\)`)

// killLeftovers kills, when the test ends, the servers run-local.sh started (with one of confs)
// if they still run: they are in process groups of their own, out of reach of make's.
func killLeftovers(t testing.TB, mk *proc, confs ...string) {
	t.Cleanup(func() {
		m := serverPids.FindStringSubmatch(mk.log())
		for _, s := range m[min(1, len(m)):] {
			pid, _ := strconv.Atoi(s)
			cmdline, err := os.ReadFile("/proc/" + s + "/cmdline")
			for _, conf := range confs {
				if err == nil && strings.Contains(string(cmdline), conf) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	})
}
