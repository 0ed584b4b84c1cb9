// Command scale measures one broker carrying many topics (docs/benchmarks.md,
// "Many topics on one broker"): it starts bin/mqnamesrv and bin/mqbroker on
// free loopback ports with a fresh store, creates -topics topics of -queues
// queues, sends one message to every queue, reads every queue back, and
// measures the consume queue disk use (du), the broker's RssAnon, open file
// descriptors and mappings (/proc), the time a SIGTERM stop takes, and the
// time to ready (route served by the name server, every queue readable with
// its message) after a clean restart and after kill -9. With -commitlog-gib it
// measures instead the kill -9 restart of a broker holding one topic and a
// CommitLog of that many GiB. With -connections N it opens instead N client
// connections that heartbeat as Go clients do (conns.go) and measures a probe's
// send and pull latency meanwhile and the broker's memory per connection. It
// prints a Markdown table.
//
// It speaks the remoting protocol through pkg/protocol only: a pipelined
// connection of its own (client.go), no product client.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type config struct {
	bin          string
	topics       int
	queues       int
	conns        int
	window       int
	commitLogGiB int
	keep         bool
	dir          string
	brokerArgs   string
	reuse        bool
	connections  int           // instead: this many heartbeating client connections
	heartbeat    time.Duration // each connection's heartbeat period
	hold         time.Duration // how long the probe runs with the connections open
	probeEvery   time.Duration // pause between probe rounds (a send and a pull)
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "bin", "directory holding mqnamesrv and mqbroker")
	flag.IntVar(&c.topics, "topics", 10000, "topics to create")
	flag.IntVar(&c.queues, "queues", 8, "queues per topic (one message each)")
	flag.IntVar(&c.conns, "conns", 4, "connections to the broker")
	flag.IntVar(&c.window, "window", 32, "requests in flight per connection")
	flag.IntVar(&c.commitLogGiB, "commitlog-gib", 0, "instead: kill -9 restart with one topic and a CommitLog of this many GiB (less 16 MiB)")
	flag.BoolVar(&c.keep, "keep", false, "keep the data directory")
	flag.StringVar(&c.dir, "dir", "", "data directory (default: a new one under $TMPDIR)")
	flag.BoolVar(&c.reuse, "reuse", false, "with -dir: reuse the store a -keep run left there (skip creating and sending)")
	flag.IntVar(&c.connections, "connections", 0, "instead: open this many client connections that heartbeat, and probe sends and pulls meanwhile")
	flag.DurationVar(&c.heartbeat, "heartbeat", 30*time.Second, "with -connections: each connection's heartbeat period (the Go client's is 30 s)")
	flag.DurationVar(&c.hold, "hold", time.Minute, "with -connections: how long the probe runs")
	flag.DurationVar(&c.probeEvery, "probe-every", 100*time.Millisecond, "with -connections: pause between probe rounds")
	flag.StringVar(&c.brokerArgs, "broker-args", "", "extra mqbroker arguments, space-separated (e.g. --pprof-addr 127.0.0.1:6060)")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	dir := c.dir
	if c.reuse && dir == "" {
		return fmt.Errorf("-reuse needs -dir")
	}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "rocketgo-scale."); err != nil {
			return err
		}
	}
	if !c.keep && !c.reuse {
		defer os.RemoveAll(dir)
	}
	bin, err := filepath.Abs(c.bin)
	if err != nil {
		return err
	}
	extra := ""
	if c.connections > 0 {
		extra = fmt.Sprintf("serverMaxConnections=%d\n", c.connections+100)
	}
	cl, err := newCluster(dir, bin, strings.Fields(c.brokerArgs), extra)
	if err != nil {
		return err
	}
	defer cl.shutdown()
	if err := cl.startNamesrv(); err != nil {
		return err
	}
	w := &workload{cfg: c, cl: cl}
	if c.commitLogGiB > 0 {
		return w.bigCommitLog()
	}
	if c.connections > 0 {
		return w.manyConnections()
	}
	return w.manyTopics()
}

// step prints what is being done and how long it took.
func step(what string, fn func() error) (time.Duration, error) {
	fmt.Fprintf(os.Stderr, "%s ... ", what)
	begin := time.Now()
	err := fn()
	d := time.Since(begin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "failed after %v\n", d.Round(time.Millisecond))
		return d, fmt.Errorf("%s: %w", what, err)
	}
	fmt.Fprintf(os.Stderr, "%v\n", d.Round(time.Millisecond))
	return d, nil
}
