package ops

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Deadlines of the waits in this suite (the machine may be loaded: they are bounds, not timings).
const (
	readyTimeout = 60 * time.Second // a server answers /readyz 200
	stopTimeout  = 90 * time.Second // a server exits after SIGTERM
	logTimeout   = 30 * time.Second // a line shows up in a log
)

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(m.Run())
}

// bin is the path of a binary of <repo>/bin (built by make build).
func bin(t testing.TB, name string) string { return cluster.Binary(t, name) }

func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := cluster.RepoRoot()
	require.NoError(t, err)
	return root
}

func freePort(t testing.TB) int {
	t.Helper()
	p, err := cluster.FreePort()
	require.NoError(t, err)
	return p
}

// writeConf writes a Java-properties file with sorted keys and returns its path.
func writeConf(t testing.TB, path string, props map[string]string) string {
	t.Helper()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# written by test/ops\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// node is the configuration of one server of a test: its directory, ports and conf file.
type node struct {
	dir         string
	conf        string
	port        int // listenPort
	metricsPort int
	props       map[string]string
}

func (n *node) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)) }

// url is http://127.0.0.1:<metricsPort><path>.
func (n *node) url(path string) string {
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(n.metricsPort)) + path
}

// namesrvNode configures a name server with metrics and probes on, props on top.
func namesrvNode(t testing.TB, dir string, props map[string]string) *node {
	t.Helper()
	n := &node{dir: dir, port: freePort(t), metricsPort: freePort(t)}
	n.props = map[string]string{
		"listenPort":              strconv.Itoa(n.port),
		"kvConfigPath":            filepath.Join(dir, "kvConfig.json"),
		"metricsExporterType":     "PROM",
		"metricsPromExporterHost": "127.0.0.1",
		"metricsPromExporterPort": strconv.Itoa(n.metricsPort),
	}
	for k, v := range props {
		n.props[k] = v
	}
	n.conf = writeConf(t, filepath.Join(dir, "namesrv.conf"), n.props)
	return n
}

// brokerNode configures a master broker registering with namesrvAddr, props on top.
func brokerNode(t testing.TB, dir, name, namesrvAddr string, props map[string]string) *node {
	t.Helper()
	n := &node{dir: dir, port: freePort(t), metricsPort: freePort(t)}
	store := filepath.Join(dir, "store")
	n.props = cluster.DefaultBrokerProps()
	for k, v := range map[string]string{
		"brokerClusterName":       "OpsCluster",
		"brokerName":              name,
		"namesrvAddr":             namesrvAddr,
		"listenPort":              strconv.Itoa(n.port),
		"haListenPort":            strconv.Itoa(freePort(t)),
		"storePathRootDir":        store,
		"storePathCommitLog":      filepath.Join(store, "commitlog"),
		"metricsExporterType":     "PROM",
		"metricsPromExporterHost": "127.0.0.1",
		"metricsPromExporterPort": strconv.Itoa(n.metricsPort),
	} {
		n.props[k] = v
	}
	for k, v := range props {
		n.props[k] = v
	}
	n.conf = writeConf(t, filepath.Join(dir, "broker.conf"), n.props)
	return n
}

func (n *node) storeDir() string { return n.props["storePathRootDir"] }

// abortExists reports whether the store's abort file is there (the last run did not close it).
func (n *node) abortExists(t testing.TB) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(n.storeDir(), "abort"))
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	require.NoError(t, err)
	return true
}

// proc is one run of a binary, its stdout and stderr in a log file.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

// start runs binary with args in dir, logging to dir/<name>.log (a new file per run); the process
// is killed when the test ends if it still runs, and when the test binary dies.
func start(t testing.TB, name, binary, dir string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = childEnv(dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return startCmd(t, name, cmd, dir)
}

// startCmd runs cmd in dir as start does.
func startCmd(t testing.TB, name string, cmd *exec.Cmd, dir string) *proc {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	logPath := filepath.Join(dir, name+".log")
	for i := 2; fileExists(logPath); i++ {
		logPath = filepath.Join(dir, fmt.Sprintf("%s.%d.log", name, i))
	}
	f, err := os.Create(logPath)
	require.NoError(t, err)
	if cmd.Dir == "" {
		cmd.Dir = dir
	}
	cmd.Stdout, cmd.Stderr = f, f
	require.NoError(t, cmd.Start(), "start %s", cmd.Path)
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		if p.running() {
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("==== %s (%s) ====\n%s", filepath.Base(p.logPath), p.status(), tail(p.log(), 60))
		}
	})
	return p
}

// childEnv is the environment with HOME in dir and without NAMESRV_ADDR.
func childEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "NAMESRV_ADDR=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+dir)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig), "%s to %s", sig, p.name)
}

// wait waits for the process to exit and returns its exit error (nil for status 0).
func (p *proc) wait(t testing.TB, timeout time.Duration) error {
	t.Helper()
	select {
	case <-p.done:
		return p.waitErr
	case <-time.After(timeout):
		t.Fatalf("%s (pid %d) still running %v later", p.name, p.pid(), timeout)
		return nil
	}
}

// stop sends SIGTERM and requires a clean exit (status 0) within stopTimeout; it returns how long
// the process took to exit.
func (p *proc) stop(t testing.TB, sig syscall.Signal) time.Duration {
	t.Helper()
	begin := time.Now()
	p.signal(t, sig)
	require.NoError(t, p.wait(t, stopTimeout), "%s did not exit cleanly on %s", p.name, sig)
	return time.Since(begin)
}

func (p *proc) status() string {
	if p.running() {
		return "running"
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

func (p *proc) log() string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return fmt.Sprintf("<read %s: %v>", p.logPath, err)
	}
	return string(b)
}

// waitLog waits until the log holds substr, failing when the process exits first.
func (p *proc) waitLog(t testing.TB, substr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(p.log(), substr) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %q in its log within %v", p.name, substr, timeout)
		}
		select {
		case <-p.done:
			if !strings.Contains(p.log(), substr) {
				t.Fatalf("%s exited (%s) without logging %q", p.name, p.status(), substr)
			}
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// startNamesrv starts a name server of n and waits until it is ready.
func startNamesrv(t testing.TB, n *node, extra ...string) *proc {
	t.Helper()
	p := start(t, "namesrv", bin(t, cluster.NamesrvBinary), n.dir, append([]string{"-c", n.conf}, extra...)...)
	waitHTTP(t, p, n.url("/readyz"), http.StatusOK)
	return p
}

// startBroker starts a broker of n and waits until it is ready (registered).
func startBroker(t testing.TB, n *node, extra ...string) *proc {
	t.Helper()
	p := start(t, "broker", bin(t, cluster.BrokerBinary), n.dir, append([]string{"-c", n.conf}, extra...)...)
	waitHTTP(t, p, n.url("/readyz"), http.StatusOK)
	return p
}

// get is one GET: the status code and the body.
func get(url string) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// waitHTTP waits until url answers code, failing if p exits first.
func waitHTTP(t testing.TB, p *proc, url string, code int) string {
	t.Helper()
	deadline := time.Now().Add(readyTimeout)
	last := "no answer yet"
	for time.Now().Before(deadline) {
		if p != nil && !p.running() {
			t.Fatalf("%s exited (%s) while waiting for %s to answer %d", p.name, p.status(), url, code)
		}
		got, body, err := get(url)
		if err == nil && got == code {
			return body
		}
		if err != nil {
			last = err.Error()
		} else {
			last = fmt.Sprintf("%d %q", got, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s did not answer %d within %v; last: %s", url, code, readyTimeout, last)
	return ""
}

// lines returns the lines of text that contain substr.
func lines(text, substr string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), substr) {
			out = append(out, sc.Text())
		}
	}
	return out
}

func tail(text string, n int) string {
	ls := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(ls) > n {
		ls = append([]string{fmt.Sprintf("... (%d earlier lines)", len(ls)-n)}, ls[len(ls)-n:]...)
	}
	return strings.Join(ls, "\n")
}

// requireCleanRecovery checks a broker log's start: the last run closed the store cleanly
// (lastExitOK) and recovery took the normal path ("clean": true).
func requireCleanRecovery(t testing.TB, log string) {
	t.Helper()
	opened := lines(log, "opening message store")
	require.NotEmpty(t, opened, "no 'opening message store' line")
	require.Contains(t, opened[0], `"lastExitOK": true`, "the previous run left the abort file")
	recovered := lines(log, "store recovered")
	require.NotEmpty(t, recovered, "no 'store recovered' line")
	require.Contains(t, recovered[0], `"clean": true`, "recovery took the abnormal path")
}

// logStop reports a measured stop time in the test's log.
func logStop(t testing.TB, what string, d time.Duration) {
	t.Helper()
	t.Logf("stop time: %s took %v", what, d.Round(time.Millisecond))
}
