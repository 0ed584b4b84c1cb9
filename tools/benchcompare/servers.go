package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// freePort asks the kernel for a free loopback port.
func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("no free port: %v", err))
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// proc is a started server.
type proc struct {
	name  string
	cmd   *exec.Cmd
	exitc chan error
}

// spawn starts bin with args, its output in dir/name.log; the server dies with this process.
func spawn(dir, name, bin string, args ...string) (*proc, error) {
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &proc{name: name, cmd: cmd, exitc: make(chan error, 1)}
	go func() { p.exitc <- cmd.Wait(); log.Close() }()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// stop sends SIGTERM and waits up to 30 s, then kills.
func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exitc:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exitc
	}
}

// waitPort waits until a accepts connections or p exits.
func waitPort(p *proc, a string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.exitc:
			p.exitc <- err
			return fmt.Errorf("%s exited: %v (see its log)", p.name, err)
		default:
		}
		if c, err := net.DialTimeout("tcp", a, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%s does not listen on %s", p.name, a)
}

// server is one system under test: its process, the name server in front of it (RocketMQ) and
// where it keeps its data.
type server struct {
	kind     string // "ours", "stub", "nats"
	proc     *proc
	namesrv  *proc
	nsAddr   string // RocketMQ name server
	url      string // NATS
	dataDir  string
	metrics  string // our broker's /metrics URL
	stopOnce bool
}

func (s *server) stop() {
	if s.stopOnce {
		return
	}
	s.stopOnce = true
	s.proc.stop()
	if s.namesrv != nil {
		s.namesrv.stop()
	}
}

// startNamesrv starts bin/mqnamesrv in dir.
func startNamesrv(bin, dir string) (*proc, string, error) {
	port := freePort()
	conf := filepath.Join(dir, "namesrv.conf")
	text := fmt.Sprintf("listenPort=%d\nkvConfigPath=%s\n", port, filepath.Join(dir, "kvConfig.json"))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return nil, "", err
	}
	p, err := spawn(dir, "namesrv", filepath.Join(bin, "mqnamesrv"), "-c", conf)
	if err != nil {
		return nil, "", err
	}
	return p, addr(port), waitPort(p, addr(port))
}

// startOurs starts a name server and bin/mqbroker with flushDiskType flush and /metrics on.
func startOurs(bin, dir, flush string) (*server, error) {
	ns, nsAddr, err := startNamesrv(bin, dir)
	if err != nil {
		return nil, err
	}
	s := &server{kind: "ours", namesrv: ns, nsAddr: nsAddr, dataDir: filepath.Join(dir, "store")}
	br, mp := freePort(), freePort()
	s.metrics = "http://" + addr(mp) + "/metrics"
	conf := filepath.Join(dir, "broker.conf")
	text := fmt.Sprintf("brokerClusterName=BenchCluster\nbrokerName=bench-a\nbrokerId=0\nbrokerIP1=127.0.0.1\n"+
		"listenPort=%d\nhaListenPort=%d\nstorePathRootDir=%s\nflushDiskType=%s\n"+
		"metricsExporterType=PROM\nmetricsPromExporterHost=127.0.0.1\nmetricsPromExporterPort=%d\n",
		br, freePort(), s.dataDir, flush, mp)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return s, err
	}
	if s.proc, err = spawn(dir, "broker", filepath.Join(bin, "mqbroker"), "-c", conf, "-n", nsAddr); err != nil {
		return s, err
	}
	return s, waitPort(s.proc, addr(br))
}

// startStub starts a name server and tools/stubbroker registering topics.
func startStub(bin, dir, topics string) (*server, error) {
	ns, nsAddr, err := startNamesrv(bin, dir)
	if err != nil {
		return nil, err
	}
	s := &server{kind: "stub", namesrv: ns, nsAddr: nsAddr, dataDir: dir}
	a := addr(freePort())
	if s.proc, err = spawn(dir, "stub", filepath.Join(bin, "stubbroker"), "-addr", a, "-n", nsAddr, "-topics", topics); err != nil {
		return s, err
	}
	return s, waitPort(s.proc, a)
}

// startNATS starts nats-server with JetStream in dir; syncAlways sets sync_interval: always.
func startNATS(natsServer, dir string, syncAlways bool) (*server, error) {
	port := freePort()
	s := &server{kind: "nats", url: "nats://" + addr(port), dataDir: filepath.Join(dir, "jetstream")}
	text := fmt.Sprintf("listen: %s\njetstream {\n  store_dir: %q\n", addr(port), s.dataDir)
	if syncAlways {
		text += "  sync_interval: always\n"
	}
	text += "}\n"
	conf := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return nil, err
	}
	var err error
	if s.proc, err = spawn(dir, "nats", natsServer, "-c", conf); err != nil {
		return nil, err
	}
	return s, waitPort(s.proc, addr(port))
}

// scrape returns our broker's /metrics text (nil for other servers or on failure).
func (s *server) scrape() []byte {
	if s.metrics == "" {
		return nil
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(s.metrics)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}
