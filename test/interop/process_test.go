package interop

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// stopTimeout is how long stop waits after SIGTERM before it kills; Apache's broker may take a few
// seconds to flush and unmap its files.
const stopTimeout = 40 * time.Second

// process is one server process of a scenario, Apache's or ours, that can be started several
// times with the same command; each run logs stdout and stderr to its own file in dir.
type process struct {
	name string
	dir  string // working directory, and HOME / user.home of the process
	argv []string
	// javaExit: the JVM answers SIGTERM by running its shutdown hooks and exiting with status 143.
	javaExit bool
	// extraLogs are log files the process writes itself (Apache's broker.log), shown on failure.
	extraLogs []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	logs []string
	// ended: the current run was stopped or killed on purpose.
	ended bool
}

// start launches a new run.
func (p *process) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	logPath := filepath.Join(p.dir, fmt.Sprintf("%s.%d.out", p.name, len(p.logs)+1))
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = childEnv(p.dir)
	cmd.Stdout, cmd.Stderr = f, f
	// The servers die with the test binary, e.g. on a `go test -timeout` panic.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return fmt.Errorf("%s: start %s: %w", p.name, p.argv[0], err)
	}
	done := make(chan struct{})
	p.cmd, p.done, p.err, p.ended = cmd, done, nil, false
	p.logs = append(p.logs, logPath)
	go func() {
		err := cmd.Wait()
		_ = f.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// childEnv is the test's environment with HOME at dir and without NAMESRV_ADDR or ROCKETMQ_HOME,
// so that only the files the test writes configure the servers.
func childEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "NAMESRV_ADDR" || k == "ROCKETMQ_HOME" || k == "JAVA_TOOL_OPTIONS" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+dir)
}

// exited is closed when the current run has ended.
func (p *process) exited() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

func (p *process) running() bool {
	select {
	case <-p.exited():
		return false
	default:
		return true
	}
}

// stop sends SIGTERM and waits for a clean exit: status 0, or 143 from a JVM. Anything else, or
// needing SIGKILL, is an error.
func (p *process) stop() error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.ended = true
	p.mu.Unlock()
	if cmd == nil || isDone(done) {
		return nil
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: SIGTERM: %w", p.name, err)
	}
	select {
	case <-done:
	case <-time.After(stopTimeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s did not exit within %v of SIGTERM; killed it", p.name, stopTimeout)
	}
	p.mu.Lock()
	err := p.err
	p.mu.Unlock()
	var ee *exec.ExitError
	if err == nil || (p.javaExit && errors.As(err, &ee) && ee.ExitCode() == 143) {
		return nil
	}
	return fmt.Errorf("%s did not stop cleanly on SIGTERM: %v\n%s", p.name, err, p.tail(30))
}

// exitErr is the current run's exit status once it has ended.
func (p *process) exitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// kill ends the current run with SIGKILL.
func (p *process) kill() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.ended = true
	p.mu.Unlock()
	if cmd == nil || isDone(done) {
		return
	}
	_ = cmd.Process.Kill()
	<-done
}

// diedOnItsOwn reports whether the current run ended without stop or kill.
func (p *process) diedOnItsOwn() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && isDone(p.done) && !p.ended
}

// tail is the last n lines of the current run's output and of every extra log.
func (p *process) tail(n int) string {
	p.mu.Lock()
	paths := append([]string(nil), p.logs...)
	p.mu.Unlock()
	if len(paths) > 0 {
		paths = paths[len(paths)-1:]
	}
	var sb strings.Builder
	for _, path := range append(paths, p.extraLogs...) {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		fmt.Fprintf(&sb, "---- %s\n%s\n", path, lastLines(string(bytes.TrimRight(b, "\n")), n))
	}
	for _, path := range p.extraLogs {
		if b, err := os.ReadFile(path); err == nil {
			fmt.Fprintf(&sb, "---- first errors in %s\n%s\n", path, errorLines(string(b), 12))
		}
	}
	return sb.String()
}

// errorLines is the first n distinct lines of a Java log that report an error or an exception
// (lines that differ only in digits, such as times and ports, count once).
func errorLines(s string, n int) string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(s, "\n") {
		key := digits.ReplaceAllString(line, "")
		if len(out) < n && !seen[key] && (strings.Contains(line, "ERROR") || strings.Contains(line, "Exception")) {
			seen[key] = true
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

var digits = regexp.MustCompile(`[0-9]+`)

func isDone(ch chan struct{}) bool {
	if ch == nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// group owns every process of a test: t.Cleanup stops them in reverse start order, fails the test
// for one that died on its own or did not stop cleanly, and prints their logs when the test failed.
type group struct {
	t     *testing.T
	mu    sync.Mutex
	procs []*process
}

func newGroup(t *testing.T) *group {
	g := &group{t: t}
	// The first TempDir registers the removal of the test's directories; cleanups run last
	// registered first, so the processes stop (and their logs are read) before it.
	_ = t.TempDir()
	t.Cleanup(g.cleanup)
	return g
}

func (g *group) add(p *process) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.procs = append(g.procs, p)
}

func (g *group) cleanup() {
	g.mu.Lock()
	procs := append([]*process(nil), g.procs...)
	g.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		p := procs[i]
		if p.diedOnItsOwn() {
			g.t.Errorf("interop: %s exited on its own during the test", p.name)
			continue
		}
		if err := p.stop(); err != nil {
			g.t.Errorf("interop: cleanup: %v", err)
		}
	}
	if g.t.Failed() || os.Getenv("INTEROP_LOGS") != "" {
		for _, p := range procs {
			g.t.Logf("==== %s ====\n%s", p.name, p.tail(60))
		}
	}
}

// Ports. Apache's broker listens on listenPort, on listenPort-2 (the "fast" channel) and on
// listenPort+1 (HA; 4.9 ignores haListenPort), all on every interface, so a broker gets a block
// of four ports that are free on the wildcard address.
var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

// freeBlock returns p such that p-2 .. p+1 were free a moment ago and were never handed out
// before in this test binary. The ports are picked below Linux's ephemeral range (32768 and up by
// default), where no outgoing connection of another process takes one as its source port in the
// seconds an Apache broker needs to start and bind them (a 4.9.7 slave once found its HA port,
// listenPort+1, taken so).
func freeBlock(t *testing.T) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 200 {
		p := 20000 + rand.IntN(12000)
		block := []int{p - 2, p - 1, p, p + 1}
		if anyHandedOut(block) || !allFree(block) {
			continue
		}
		for _, q := range block {
			handedOut[q] = true
		}
		return p
	}
	t.Fatalf("interop: no block of four free ports below 32000 after 200 tries")
	return 0
}

func anyHandedOut(ports []int) bool {
	for _, p := range ports {
		if handedOut[p] {
			return true
		}
	}
	return false
}

func allFree(ports []int) bool {
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
		if err != nil {
			return false
		}
		_ = l.Close()
	}
	return true
}

// writeProps writes a Java properties file with sorted keys.
func writeProps(t *testing.T, path string, props map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString("# written by test/interop\n")
	for _, k := range keys {
		sb.WriteString(k + "=" + props[k] + "\n")
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatalf("interop: %v", err)
	}
}
