package broker

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// hostileCluster starts a name server and one broker with its metrics on a free loopback port
// (props override the defaults).
func hostileCluster(t *testing.T, props map[string]string) (*cluster.Cluster, *cluster.Broker, string) {
	t.Helper()
	port, err := cluster.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"metricsExporterType": "PROM", "metricsPromExporterHost": "127.0.0.1",
		"metricsPromExporterPort": strconv.Itoa(port)}
	for k, v := range props {
		all[k] = v
	}
	c := cluster.Start(t, cluster.Options{ClusterName: "HostileCluster", BrokerProps: all})
	return c, c.Brokers[0], "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"
}

// workload is a well-behaved producer and push consumer on a topic of their own, running while a
// hostile client does its worst.
type workload struct {
	t        *testing.T
	topic    string
	stop     chan struct{}
	done     chan struct{}
	sent     atomic.Int64
	failed   atomic.Int64
	mu       sync.Mutex
	acked    []string
	received map[string]bool
}

var workloadSeq atomic.Int64

// startWorkload starts a producer sending a message every 20 ms and a consumer of them. creds,
// if set, sign every request (a broker with ACL on).
func startWorkload(t *testing.T, c *cluster.Cluster, creds *primitive.Credentials) *workload {
	t.Helper()
	w := &workload{t: t, topic: "Workload_" + strconv.FormatInt(workloadSeq.Add(1), 10) + "_" +
		strconv.FormatInt(time.Now().UnixNano()%1e9, 10), stop: make(chan struct{}),
		done: make(chan struct{}), received: map[string]bool{}}
	popts := []producer.Option{producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName("PG_" + w.topic), producer.WithInstanceName("prod_" + w.topic), producer.WithRetry(2),
		producer.WithSendMsgTimeout(10 * time.Second)}
	copts := []consumer.Option{consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName("CG_" + w.topic), consumer.WithInstance("cons_" + w.topic),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset)}
	if creds != nil {
		popts = append(popts, producer.WithCredentials(*creds))
		copts = append(copts, consumer.WithCredentials(*creds))
	}
	p, err := rocketmq.NewProducer(popts...)
	must(t, err)
	must(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })
	w.send(p, "first") // creates the topic before the consumer subscribes
	pc, err := rocketmq.NewPushConsumer(copts...)
	must(t, err)
	must(t, pc.Subscribe(w.topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}, w.consume))
	must(t, pc.Start())
	t.Cleanup(func() { _ = pc.Shutdown() })
	go w.run(p)
	return w
}

func (w *workload) run(p rocketmq.Producer) {
	defer close(w.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			return
		case <-tick.C:
			w.send(p, strconv.Itoa(i))
		}
	}
}

func (w *workload) send(p rocketmq.Producer, id string) {
	m := primitive.NewMessage(w.topic, []byte("well-behaved "+id))
	m.WithProperty("wid", id)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	w.sent.Add(1)
	res, err := p.SendSync(ctx, m)
	if err != nil || res.Status != primitive.SendOK {
		w.failed.Add(1)
		return
	}
	w.mu.Lock()
	w.acked = append(w.acked, id)
	w.mu.Unlock()
}

func (w *workload) consume(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range msgs {
		w.received[m.GetProperty("wid")] = true
	}
	return consumer.ConsumeSuccess, nil
}

// minSends is how many sends the workload makes at least (a couple of seconds of traffic) before
// check stops it.
const minSends = 100

// check stops sending (after minSends at least) and requires fewer than 1 % failed sends and
// every acknowledged message read back within a minute.
func (w *workload) check() {
	t := w.t
	t.Helper()
	for w.sent.Load() < minSends {
		time.Sleep(20 * time.Millisecond)
	}
	close(w.stop)
	<-w.done
	sent, failed := w.sent.Load(), w.failed.Load()
	if float64(failed) >= 0.01*float64(sent) {
		t.Fatalf("well-behaved producer: %d of %d sends failed (at most 1 %% may)", failed, sent)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		w.mu.Lock()
		var missing []string
		for _, id := range w.acked {
			if !w.received[id] {
				missing = append(missing, id)
			}
		}
		acked := len(w.acked)
		w.mu.Unlock()
		if len(missing) == 0 {
			t.Logf("well-behaved workload: %d sent, %d failed, %d acknowledged and read back", sent, failed, acked)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("well-behaved consumer: %d of %d acknowledged messages not read back, e.g. %v", len(missing), acked, missing[:min(5, len(missing))])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// heapInUse reads go_memstats_heap_inuse_bytes from the broker's metrics.
func heapInUse(t testing.TB, url string) int64 {
	t.Helper()
	v := metric(t, url, "go_memstats_heap_inuse_bytes")
	return int64(v)
}

// metric reads one unlabelled sample from a Prometheus text page.
func metric(t testing.TB, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test on loopback
	must(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == name {
			v, err := strconv.ParseFloat(f[1], 64)
			must(t, err)
			return v
		}
	}
	t.Fatalf("%s: no sample %s", url, name)
	return 0
}

// vmRSS reads a process's resident set size from /proc/<pid>/status, in bytes.
func vmRSS(t testing.TB, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			must(t, err)
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS for pid %d", pid)
	return 0
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// sumSeries sums the samples of a labelled series whose labels contain match.
func sumSeries(t testing.TB, url, name, match string) float64 {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // a test on loopback
	must(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sum := 0.0
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") || !strings.Contains(line, match) {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		must(t, err)
		sum += v
	}
	return sum
}

// waitHeap waits until the broker's heap in use is at most bound, and returns it; the
// well-behaved workload's allocations make the broker collect.
func waitHeap(t testing.TB, url string, bound int64, timeout time.Duration) int64 {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		h := heapInUse(t, url)
		if h <= bound {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("heap in use %s did not come back under %s within %v", mib(h), mib(bound), timeout)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
