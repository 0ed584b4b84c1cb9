package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// proc is a started binary.
type proc struct {
	name  string
	cmd   *exec.Cmd
	start time.Time
	exitc chan error
}

// spawn starts bin with args, its output appended to dir/name.log.
func spawn(dir, name, bin string, args ...string) (*proc, error) {
	log, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	// The servers die with the tool, even when it is killed (or its output
	// pipe closed) before it stops them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p := &proc{name: name, cmd: cmd, start: time.Now(), exitc: make(chan error, 1)}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() { p.exitc <- cmd.Wait(); log.Close() }()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// stop sends SIGTERM and returns how long the process took to exit.
func (p *proc) stop(timeout time.Duration) (time.Duration, error) {
	begin := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case err := <-p.exitc:
		return time.Since(begin), exitErr(err)
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.exitc
		return time.Since(begin), fmt.Errorf("%s did not exit within %v of SIGTERM (killed)", p.name, timeout)
	}
}

// kill sends SIGKILL and waits for the exit.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exitc
}

// exitErr ignores the exit status of a process stopped by SIGTERM.
func exitErr(err error) error {
	if ee, ok := err.(*exec.ExitError); ok {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && (ws.Signaled() || ws.ExitStatus() == 0) {
			return nil
		}
	}
	return err
}

// waitPort waits until addr accepts connections or p exits.
func waitPort(p *proc, addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.exitc:
			p.exitc <- err
			return fmt.Errorf("%s exited: %v (see its log)", p.name, err)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("%s does not listen on %s after %v", p.name, addr, timeout)
}

// cluster is a name server and a broker on free loopback ports, with their
// config and store under dir.
type cluster struct {
	dir, bin         string
	nsAddr, brAddr   string
	namesrv, broker  *proc
	brokerName, conf string
	brokerArgs       []string
}

// extraConf is appended to broker.conf.
func newCluster(dir, bin string, brokerArgs []string, extraConf string) (*cluster, error) {
	ns, err := freePort()
	if err != nil {
		return nil, err
	}
	br, err := freePort()
	if err != nil {
		return nil, err
	}
	ha, err := freePort()
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, bin: bin, nsAddr: "127.0.0.1:" + strconv.Itoa(ns), brAddr: "127.0.0.1:" + strconv.Itoa(br),
		brokerName: "scale-a", conf: filepath.Join(dir, "broker.conf"), brokerArgs: brokerArgs}
	nsConf := fmt.Sprintf("listenPort=%d\nkvConfigPath=%s\nmetricsExporterType=DISABLE\n", ns, filepath.Join(dir, "kvConfig.json"))
	if err := os.WriteFile(filepath.Join(dir, "namesrv.conf"), []byte(nsConf), 0o644); err != nil {
		return nil, err
	}
	brConf := fmt.Sprintf("brokerClusterName=ScaleCluster\nbrokerName=%s\nbrokerId=0\nbrokerIP1=127.0.0.1\n"+
		"listenPort=%d\nhaListenPort=%d\nstorePathRootDir=%s\nflushDiskType=ASYNC_FLUSH\n",
		c.brokerName, br, ha, filepath.Join(dir, "store"))
	return c, os.WriteFile(c.conf, []byte(brConf+extraConf), 0o644)
}

func (c *cluster) startNamesrv() error {
	p, err := spawn(c.dir, "namesrv", filepath.Join(c.bin, "mqnamesrv"), "-c", filepath.Join(c.dir, "namesrv.conf"))
	if err != nil {
		return err
	}
	c.namesrv = p
	return waitPort(p, c.nsAddr, 10*time.Second)
}

// startBroker starts the broker and returns at once.
func (c *cluster) startBroker() error {
	args := append([]string{"-c", c.conf, "-n", c.nsAddr}, c.brokerArgs...)
	p, err := spawn(c.dir, "broker", filepath.Join(c.bin, "mqbroker"), args...)
	if err != nil {
		return err
	}
	c.broker = p
	return nil
}

func (c *cluster) shutdown() {
	for _, p := range []*proc{c.broker, c.namesrv} {
		if p != nil {
			select {
			case err := <-p.exitc:
				p.exitc <- err
			default:
				_, _ = p.stop(30 * time.Second)
			}
		}
	}
}
