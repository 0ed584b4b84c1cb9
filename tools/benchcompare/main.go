package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// config is the command line.
type config struct {
	bin, natsBin, doc, dir string
	messages               int // async produce at 256 in flight, then consumed
	senders16              int // 16 synchronous senders, ASYNC_FLUSH / NATS default
	sync16                 int // 16 synchronous senders, SYNC_FLUSH / sync_interval: always
	single                 int // one synchronous sender, SYNC_FLUSH (its p99)
	goClient               int // official Go client async sends
	fsyncs                 int // fdatasync probe rounds
	keep                   bool
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "bin", "directory of mqnamesrv, mqbroker, mqbench, stubbroker and goclientbench")
	flag.StringVar(&c.natsBin, "nats-bin", "bin/nats", "directory of nats-server and natsbench")
	flag.StringVar(&c.doc, "doc", "", "write the figures into this Markdown file's bench-compare section (e.g. docs/benchmarks.md)")
	flag.StringVar(&c.dir, "dir", "", "data directory (default: a new one under $TMPDIR, removed afterwards)")
	flag.IntVar(&c.messages, "messages", 300000, "messages of the async produce at 256 in flight (and read back by consume)")
	flag.IntVar(&c.senders16, "senders16-messages", 100000, "messages of 16 synchronous senders under ASYNC_FLUSH / NATS default")
	flag.IntVar(&c.sync16, "sync16-messages", 40000, "messages of 16 synchronous senders under SYNC_FLUSH / sync_interval: always")
	flag.IntVar(&c.single, "single-messages", 3000, "messages of one synchronous sender under SYNC_FLUSH")
	flag.IntVar(&c.goClient, "goclient-messages", 100000, "messages of the official Go client's async send")
	flag.IntVar(&c.fsyncs, "fdatasyncs", 2000, "rounds of the device's write+fdatasync probe")
	flag.BoolVar(&c.keep, "keep", false, "keep the data directory and the servers' logs")
	flag.Parse()
	if err := runAll(c); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

func runAll(c config) error {
	var err error
	if c.dir == "" {
		if c.dir, err = os.MkdirTemp("", "rocketgo-benchcompare."); err != nil {
			return err
		}
	}
	if !c.keep {
		defer os.RemoveAll(c.dir)
	}
	if c.bin, err = filepath.Abs(c.bin); err != nil {
		return err
	}
	if c.natsBin, err = filepath.Abs(c.natsBin); err != nil {
		return err
	}
	r := &results{Started: time.Now(), LoadStart: loadAvg(), Config: c}
	b := &bench{c: c, r: r}
	for _, step := range []func() error{b.device, b.oursAsync, b.oursSync, b.stub, b.natsDefault, b.natsAlways} {
		if err := step(); err != nil {
			return err
		}
	}
	r.LoadEnd, r.Elapsed = loadAvg(), time.Since(r.Started)
	table := r.markdown()
	fmt.Print(table)
	if c.doc == "" {
		return nil
	}
	return writeSection(c.doc, table)
}

// bench runs the steps; each fills its part of r.
type bench struct {
	c config
	r *results
}

// newDir makes a fresh directory for one server.
func (b *bench) newDir(name string) (string, error) {
	d := filepath.Join(b.c.dir, name)
	return d, os.MkdirAll(d, 0o755)
}

func (b *bench) mqbench(s *server, args ...string) []string {
	return append([]string{filepath.Join(b.c.bin, "mqbench"), "-n", s.nsAddr, "--json", "--progress", "0",
		"--size", "1024"}, args...)
}

func n(v int) string { return strconv.Itoa(v) }

// produce256 is the async produce: one connection with 256 requests in flight.
func (b *bench) produce256(s *server, topic string, msgs int) (figures, error) {
	return measure(s, parseMqbench, b.mqbench(s, "produce", "--topic", topic, "--create-topic", "--queues", "8",
		"--messages", n(msgs), "--concurrency", "1", "--window", "256")...)
}

// senders runs k synchronous senders (one request in flight each, a connection each).
func (b *bench) senders(s *server, topic string, k, msgs int) (figures, error) {
	return measure(s, parseMqbench, b.mqbench(s, "produce", "--topic", topic, "--create-topic", "--queues", "8",
		"--messages", n(msgs), "--concurrency", n(k), "--window", "1")...)
}

func (b *bench) goClient(s *server, topic string) (figures, error) {
	return measure(s, parseFlat, filepath.Join(b.c.bin, "goclientbench"), "-n", s.nsAddr, "-topic", topic,
		"-messages", n(b.c.goClient), "-window", "256")
}

func (b *bench) device() error {
	fmt.Fprintln(os.Stderr, "device: write+fdatasync in", b.c.dir)
	out, err := run(filepath.Join(b.c.bin, "mqbench"), "fdatasync", "--json", "--dir", b.c.dir,
		"--count", n(b.c.fsyncs), "--size", "1024")
	if err != nil {
		return err
	}
	b.r.Fsync, err = parseSyncReport(out)
	return err
}

func (b *bench) oursAsync() (err error) {
	fmt.Fprintln(os.Stderr, "our broker, ASYNC_FLUSH")
	dir, err := b.newDir("ours-async")
	if err != nil {
		return err
	}
	s, err := startOurs(b.c.bin, dir, "ASYNC_FLUSH")
	if s != nil {
		defer s.stop()
	}
	if err != nil {
		return err
	}
	r := b.r
	if r.OursAsync256, err = b.produce256(s, "Async", b.c.messages); err != nil {
		return err
	}
	if r.OursMem, r.OursDisk, err = footprint(s); err != nil {
		return err
	}
	if r.OursAsync16, err = b.senders(s, "Senders16", 16, b.c.senders16); err != nil {
		return err
	}
	if r.OursConsume, err = measure(s, parseMqbench, b.mqbench(s, "consume", "--topic", "Async",
		"--messages", n(b.c.messages), "--group", "benchcompare")...); err != nil {
		return err
	}
	r.OursGo, err = b.goClient(s, "Async")
	return err
}

func (b *bench) oursSync() error {
	fmt.Fprintln(os.Stderr, "our broker, SYNC_FLUSH")
	dir, err := b.newDir("ours-sync")
	if err != nil {
		return err
	}
	s, err := startOurs(b.c.bin, dir, "SYNC_FLUSH")
	if s != nil {
		defer s.stop()
	}
	if err != nil {
		return err
	}
	r := b.r
	if r.OursSync256, err = b.produce256(s, "Async", b.c.messages); err != nil {
		return err
	}
	if r.OursSync16, err = b.senders(s, "Senders16", 16, b.c.sync16); err != nil {
		return err
	}
	r.OursSingle, err = b.senders(s, "Single", 1, b.c.single)
	return err
}

func (b *bench) stub() error {
	fmt.Fprintln(os.Stderr, "stub broker")
	dir, err := b.newDir("stub")
	if err != nil {
		return err
	}
	s, err := startStub(b.c.bin, dir, "Async")
	if s != nil {
		defer s.stop()
	}
	if err != nil {
		return err
	}
	time.Sleep(time.Second) // the first registration
	if b.r.StubAsync256, err = b.produce256(s, "Async", b.c.messages); err != nil {
		return err
	}
	b.r.StubGo, err = b.goClient(s, "Async")
	return err
}

func (b *bench) natsbench(s *server, args ...string) []string {
	return append([]string{filepath.Join(b.c.natsBin, "natsbench"), args[0], "-url", s.url, "-size", "1024"}, args[1:]...)
}

func (b *bench) natsDefault() error {
	fmt.Fprintln(os.Stderr, "NATS JetStream, default sync_interval")
	dir, err := b.newDir("nats-default")
	if err != nil {
		return err
	}
	s, err := startNATS(filepath.Join(b.c.natsBin, "nats-server"), dir, false)
	if s != nil {
		defer s.stop()
	}
	if err != nil {
		return err
	}
	r := b.r
	if r.NatsAsync256, err = measure(s, parseFlat, b.natsbench(s, "publish", "-messages", n(b.c.messages), "-window", "256")...); err != nil {
		return err
	}
	if r.NatsMem, r.NatsDisk, err = footprint(s); err != nil {
		return err
	}
	if r.NatsDefault16, err = measure(s, parseFlat, b.natsbench(s, "publish", "-messages", n(b.c.senders16),
		"-senders", "16", "-window", "1")...); err != nil {
		return err
	}
	r.NatsConsume, err = measure(s, parseFlat, b.natsbench(s, "consume", "-messages", n(b.c.messages))...)
	return err
}

func (b *bench) natsAlways() error {
	fmt.Fprintln(os.Stderr, "NATS JetStream, sync_interval: always")
	dir, err := b.newDir("nats-always")
	if err != nil {
		return err
	}
	s, err := startNATS(filepath.Join(b.c.natsBin, "nats-server"), dir, true)
	if s != nil {
		defer s.stop()
	}
	if err != nil {
		return err
	}
	r := b.r
	if r.NatsAlways16, err = measure(s, parseFlat, b.natsbench(s, "publish", "-messages", n(b.c.sync16),
		"-senders", "16", "-window", "1")...); err != nil {
		return err
	}
	r.NatsAlways256, err = measure(s, parseFlat, b.natsbench(s, "publish", "-messages", n(b.c.messages/3), "-window", "256")...)
	return err
}

// footprint is the server's memory now and the size of its data on disk.
func footprint(s *server) (memory, int64, error) {
	m, err := procMemory(s.proc.pid())
	if err != nil {
		return m, 0, err
	}
	return m, diskUsage(s.dataDir), nil
}

// diskUsage sums the allocated blocks of the files under dir.
func diskUsage(dir string) int64 {
	var total int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil {
			total += allocated(info)
		}
		return nil
	})
	return total
}
