package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultStopTimeout is how long Stop waits after SIGTERM before it sends SIGKILL.
const DefaultStopTimeout = 20 * time.Second

// Process is one server process (a nameserver or a broker) that can be started several times with
// the same arguments; each run writes its stdout and stderr to its own log file in the directory.
type Process struct {
	Name        string        // "namesrv", "broker-a", ...
	StopTimeout time.Duration // how long Stop waits after SIGTERM before SIGKILL

	bin  string
	args []string
	dir  string
	env  []string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when the current run has exited
	waitErr error         // the current run's exit status, valid after done is closed
	logs    []string      // one log file per run, oldest first
	ended   bool          // the current run was ended on purpose (Stop or Kill)
}

func newProcess(name, bin, dir string, args []string) *Process {
	return &Process{Name: name, StopTimeout: DefaultStopTimeout, bin: bin, args: args, dir: dir, env: childEnv(dir)}
}

// childEnv is the test's environment with HOME pointed at dir, so that anything a server puts
// under ${user.home} stays in the test's temporary directory, and without NAMESRV_ADDR, so that
// only the conf file says where the nameserver is.
func childEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "NAMESRV_ADDR=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+dir)
}

// start launches a new run. It fails if a run is still alive.
func (p *Process) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !isClosed(p.done) {
		return fmt.Errorf("%s: already running (pid %d)", p.Name, p.cmd.Process.Pid)
	}
	logPath := filepath.Join(p.dir, fmt.Sprintf("%s.%d.log", p.Name, len(p.logs)+1))
	logFile, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("%s: create log: %w", p.Name, err)
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	// If the test binary dies (for instance on a `go test -timeout` panic) the servers die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return fmt.Errorf("%s: start %s: %w", p.Name, p.bin, err)
	}
	done := make(chan struct{})
	p.cmd, p.done, p.waitErr, p.ended = cmd, done, nil, false
	p.logs = append(p.logs, logPath)
	go func() {
		err := cmd.Wait()
		_ = logFile.Close()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// Exited is closed when the current run ends (nil before the first start).
func (p *Process) Exited() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Running reports whether the current run is alive.
func (p *Process) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && !isClosed(p.done)
}

// Pid is the process id of the current run.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// ExitStatus describes how the current run ended ("running" if it has not).
func (p *Process) ExitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return "never started"
	}
	if !isClosed(p.done) {
		return "running"
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// Stop sends SIGTERM and waits up to p.StopTimeout for a clean exit (status 0). A process that needs
// SIGKILL, or exits with another status, is an error; it is dead when Stop returns either way.
func (p *Process) Stop() error { return p.StopWith(syscall.SIGTERM) }

// StopWith is Stop with another signal, e.g. SIGINT.
func (p *Process) StopWith(sig syscall.Signal) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	if cmd != nil && !isClosed(done) {
		p.ended = true
	}
	p.mu.Unlock()
	if cmd == nil || isClosed(done) {
		return nil
	}
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: %s: %w", p.Name, sigName(sig), err)
	}
	select {
	case <-done:
	case <-time.After(p.StopTimeout):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s (pid %d) did not exit within %v of %s; killed it with SIGKILL",
			p.Name, cmd.Process.Pid, p.StopTimeout, sigName(sig))
	}
	p.mu.Lock()
	err := p.waitErr
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s (pid %d) did not stop cleanly on %s after %v: %v",
			p.Name, cmd.Process.Pid, sigName(sig), time.Since(start).Round(time.Millisecond), err)
	}
	return nil
}

// Kill sends SIGKILL and waits for the process to be gone: a crash, as far as the server can tell.
func (p *Process) Kill() error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	if cmd != nil && !isClosed(done) {
		p.ended = true
	}
	p.mu.Unlock()
	if cmd == nil || isClosed(done) {
		return nil
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: SIGKILL: %w", p.Name, err)
	}
	<-done
	return nil
}

// DiedUnexpectedly reports whether the current run has exited without Stop or Kill.
func (p *Process) DiedUnexpectedly() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil && isClosed(p.done) && !p.ended
}

// acceptExit records that the current run's exit, whatever it was, is expected.
func (p *Process) acceptExit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
}

// LogPaths lists the log files of every run, oldest first.
func (p *Process) LogPaths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.logs...)
}

// LogTail returns the last n lines of the current run's log.
func (p *Process) LogTail(n int) string {
	logs := p.LogPaths()
	if len(logs) == 0 {
		return ""
	}
	return tailFile(logs[len(logs)-1], n)
}

// Log returns the whole log of the current run.
func (p *Process) Log() string {
	logs := p.LogPaths()
	if len(logs) == 0 {
		return ""
	}
	b, err := os.ReadFile(logs[len(logs)-1])
	if err != nil {
		return fmt.Sprintf("<read %s: %v>", logs[len(logs)-1], err)
	}
	return string(b)
}

func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("<read %s: %v>", path, err)
	}
	b = bytes.TrimRight(b, "\n")
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > n {
		lines = append([][]byte{[]byte(fmt.Sprintf("... (%d earlier lines)", len(lines)-n))}, lines[len(lines)-n:]...)
	}
	return string(bytes.Join(lines, []byte("\n")))
}

func sigName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return sig.String()
}

func isClosed(ch chan struct{}) bool {
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
