package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// connsTopic is the topic the probe sends to and pulls from while the clients heartbeat.
const connsTopic = "ScaleConnProbe"

// manyConnections is the -connections run: that many client connections heartbeat on one broker
// (every tenth also as a consumer, in groups of ten), while a probe connection sends a message and
// pulls it back every -probe-every; it reports the probe's latencies, the heartbeats' and the
// broker's memory per idle connection.
func (w *workload) manyConnections() error {
	c := w.cfg
	if err := w.startFresh(); err != nil {
		return err
	}
	probe, err := dial(w.cl.brAddr)
	if err != nil {
		return err
	}
	defer probe.close()
	if err := createTopic(probe, connsTopic, 8); err != nil {
		return err
	}
	time.Sleep(time.Second)
	before, err := measureProc(w.cl.broker.pid())
	if err != nil {
		return err
	}
	cl := &clients{n: c.connections}
	defer cl.close()
	d, err := step(fmt.Sprintf("open %d connections, one heartbeat each", c.connections), func() error { return cl.open(w.cl.brAddr) })
	if err != nil {
		return err
	}
	w.row("open connections and heartbeat once", fmt.Sprintf("%v (%.0f/s)", d.Round(time.Millisecond), float64(c.connections)/d.Seconds()))
	stopHB := cl.heartbeatEvery(c.heartbeat)
	time.Sleep(2 * time.Second)
	after, err := measureProc(w.cl.broker.pid())
	if err != nil {
		stopHB()
		return err
	}
	lat, err := w.probeFor(probe)
	stopHB()
	if err != nil {
		return err
	}
	w.connRows(before, after, cl, lat)
	w.print(fmt.Sprintf("%d client connections heartbeating every %v on one broker, on %s", c.connections, c.heartbeat, hostInfo()))
	return nil
}

func (w *workload) connRows(before, after procUse, cl *clients, lat probeLatency) {
	n := int64(w.cfg.connections)
	w.row("broker RssAnon before / with the connections", fmt.Sprintf("%s / **%s**", mib(before.rssAnon), mib(after.rssAnon)))
	w.row("broker RssAnon per connection", fmt.Sprintf("**%.1f KiB**", float64(after.rssAnon-before.rssAnon)/float64(n)/1024))
	w.row("broker open fds before / with the connections", fmt.Sprintf("%d / %d", before.fds, after.fds))
	hb := summarize(cl.latencies())
	w.row("heartbeats answered / failed", fmt.Sprintf("%d / %d", len(cl.latencies()), cl.failed.Load()))
	w.row("heartbeat latency p50 / p99 / max", hb.String())
	w.row(fmt.Sprintf("probe send latency p50 / p99 / max (%d sends)", len(lat.send)), summarize(lat.send).String())
	w.row(fmt.Sprintf("probe pull latency p50 / p99 / max (%d pulls)", len(lat.pull)), summarize(lat.pull).String())
	w.row("probe requests over 1 s", fmt.Sprintf("**%d** of %d", lat.over(time.Second), len(lat.send)+len(lat.pull)))
}

// probeLatency is what the probe measured.
type probeLatency struct{ send, pull []time.Duration }

func (p probeLatency) over(limit time.Duration) int {
	n := 0
	for _, d := range append(slices.Clone(p.send), p.pull...) {
		if d > limit {
			n++
		}
	}
	return n
}

// probeFor sends one message and pulls it back every ProbeEvery, for Hold.
func (w *workload) probeFor(probe *conn) (probeLatency, error) {
	var lat probeLatency
	_, err := step(fmt.Sprintf("probe a send and a pull every %v for %v", w.cfg.probeEvery, w.cfg.hold), func() error {
		end := time.Now().Add(w.cfg.hold)
		for i := 0; time.Now().Before(end); i++ {
			q := i % 8
			t := time.Now()
			if err := send(probe, connsTopic, q, []byte("probe"), fmt.Sprintf("%032X", i)); err != nil {
				return err
			}
			lat.send = append(lat.send, time.Since(t))
			if err := lat.pullBack(probe, q, int64(i/8)); err != nil {
				return fmt.Errorf("probe message %d: %w", i, err)
			}
			time.Sleep(w.cfg.probeEvery)
		}
		return nil
	})
	return lat, err
}

// pullBack pulls the probe message at offset of queue q, again while the broker has not
// dispatched it yet (PULL_NOT_FOUND / OFFSET_OVERFLOW_ONE), for at most 5 s; every pull's latency
// counts.
func (p *probeLatency) pullBack(c *conn, q int, offset int64) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		t := time.Now()
		_, found, err := pull(c, connsTopic, q, offset, 1)
		p.pull = append(p.pull, time.Since(t))
		switch {
		case err != nil:
			return err
		case found:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("not readable at offset %d of queue %d within 5 s", offset, q)
		}
		time.Sleep(time.Millisecond)
	}
}

// clients are the heartbeating connections.
type clients struct {
	n      int
	conns  []*conn
	failed atomic.Int64
	mu     sync.Mutex
	lat    []time.Duration
}

// open dials every connection and sends its first heartbeat, 64 at a time.
func (cl *clients) open(addr string) error {
	cl.conns = make([]*conn, cl.n)
	var wg sync.WaitGroup
	errs := make(chan error, cl.n)
	sem := make(chan struct{}, 64)
	for i := range cl.n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := dial(addr)
			if err != nil {
				errs <- fmt.Errorf("connection %d: %w", i, err)
				return
			}
			cl.conns[i] = c
			if err := cl.heartbeat(i); err != nil {
				errs <- fmt.Errorf("connection %d: first heartbeat: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// heartbeat sends connection i's HEART_BEAT and records its latency.
func (cl *clients) heartbeat(i int) error {
	req := protocol.NewRequest(protocol.HeartBeat, nil, heartbeatBody(i))
	req.Language = "GO"
	t := time.Now()
	resp, err := cl.conns[i].call(req, callTimeout)
	if err == nil {
		err = expect(resp, "heartbeat", protocol.Success)
	}
	if err != nil {
		cl.failed.Add(1)
		return err
	}
	cl.mu.Lock()
	cl.lat = append(cl.lat, time.Since(t))
	cl.mu.Unlock()
	return nil
}

// heartbeatBody is a Go client's heartbeat: a producer; every tenth connection also a consumer
// of the probe topic in one of a hundred groups.
func heartbeatBody(i int) []byte {
	consumers := ""
	if i%10 == 0 {
		consumers = fmt.Sprintf(`{"groupName":"ScaleConsumer%03d","consumeType":"CONSUME_PASSIVELY",`+
			`"messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","unitMode":false,`+
			`"subscriptionDataSet":[{"classFilterMode":false,"topic":%q,"subString":"*","tagsSet":[],"codeSet":[],`+
			`"subVersion":0,"expressionType":"TAG"}]}`, (i/10)%100, connsTopic)
	}
	return fmt.Appendf(nil, `{"clientID":"127.0.0.1@scale-%d","producerDataSet":[{"groupName":"ScaleProducer"}],`+
		`"consumerDataSet":[%s]}`, i, consumers)
}

// heartbeatEvery makes every connection heartbeat once per period, spread over it; the returned
// function stops them and waits.
func (cl *clients) heartbeatEvery(period time.Duration) func() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range cl.conns {
		wg.Go(func() {
			first := time.NewTimer(rand.N(period))
			defer first.Stop()
			select {
			case <-stop:
				return
			case <-first.C:
			}
			t := time.NewTicker(period)
			defer t.Stop()
			for {
				if err := cl.heartbeat(i); err != nil {
					fmt.Fprintf(os.Stderr, "heartbeat %d: %v\n", i, err)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		})
	}
	return func() { close(stop); wg.Wait() }
}

func (cl *clients) latencies() []time.Duration {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return slices.Clone(cl.lat)
}

func (cl *clients) close() {
	for _, c := range cl.conns {
		if c != nil {
			c.close()
		}
	}
}

// latencySummary is p50, p99 and max of some latencies.
type latencySummary struct{ p50, p99, max time.Duration }

func summarize(ds []time.Duration) latencySummary {
	if len(ds) == 0 {
		return latencySummary{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[int(q*float64(len(s)-1))] }
	return latencySummary{at(0.50), at(0.99), s[len(s)-1]}
}

func (l latencySummary) String() string {
	r := func(d time.Duration) string { return d.Round(10 * time.Microsecond).String() }
	return fmt.Sprintf("%s / **%s** / %s", r(l.p50), r(l.p99), r(l.max))
}
