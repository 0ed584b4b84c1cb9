// Package hostile plays hostile clients against the real bin/mqnamesrv and bin/mqbroker (issue 7:
// the transport, name-server and listener rows) and asserts the new answers: refused with a
// remark, connection closed, or memory back within a stated bound read from /proc. While they
// run, a well-behaved producer and consumer (the Go client) keep working. README.md lists what
// each test asserts.
package hostile

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
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
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(m.Run())
}

// Request and response codes the hostile clients use (protocol.md §2).
const (
	codeSystemError  = 1
	codeNoPermission = 16

	reqGetAllTopicConfig = 21
	reqPutKVConfig       = 100
	reqGetKVConfig       = 101
	reqRegisterBroker    = 103
	reqUnregisterBroker  = 104
)

// memory is what /proc/PID/status says of a process, in bytes.
type memory struct{ rss, anon int64 }

func (m memory) String() string {
	return fmt.Sprintf("VmRSS %.1f MiB, RssAnon %.1f MiB", float64(m.rss)/(1<<20), float64(m.anon)/(1<<20))
}

// readMemory reads VmRSS and RssAnon of pid.
func readMemory(t testing.TB, pid int) memory {
	t.Helper()
	m, err := procMemory(pid)
	require.NoError(t, err)
	return m
}

func procMemory(pid int) (memory, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, err
	}
	var m memory
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, _ := strings.Cut(line, ":")
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("/proc/%d/status: %q: %w", pid, line, err)
		}
		switch name {
		case "VmRSS":
			m.rss = kb << 10
		case "RssAnon":
			m.anon = kb << 10
		}
	}
	if m.rss == 0 {
		return memory{}, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return m, nil
}

// peakWatcher samples a process's memory until stopped and keeps the highest RssAnon seen.
type peakWatcher struct {
	stop chan struct{}
	done chan memory
}

func watchPeak(pid int) *peakWatcher {
	w := &peakWatcher{stop: make(chan struct{}), done: make(chan memory, 1)}
	go func() {
		var peak memory
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if m, err := procMemory(pid); err == nil && m.anon > peak.anon {
				peak = m
			}
			select {
			case <-w.stop:
				w.done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// Peak stops the watcher and returns the highest sample.
func (w *peakWatcher) Peak() memory {
	close(w.stop)
	return <-w.done
}

// requireGrowthBelow fails unless after is at most limit bytes of RssAnon above before, and logs
// the figures.
func requireGrowthBelow(t testing.TB, what string, before, after memory, limit int64) {
	t.Helper()
	grown := after.anon - before.anon
	t.Logf("%s: before %s; peak %s; RssAnon +%.1f MiB (bound %d MiB)", what, before, after,
		float64(grown)/(1<<20), limit>>20)
	require.Less(t, grown, limit, "%s: RssAnon grew %d bytes, bound %d", what, grown, limit)
}

// rawConn is a bare TCP connection speaking remoting frames (JSON headers, as the Go client).
type rawConn struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nc.Close() })
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

var opaques atomic.Int32

// request encodes one request frame.
func request(t testing.TB, code int, ext map[string]string, body []byte) []byte {
	frame, err := cluster.EncodeRequest(code, opaques.Add(1), ext, body)
	require.NoError(t, err)
	return frame
}

// write writes b; false when the peer stopped taking bytes within d or closed.
func (c *rawConn) write(b []byte, d time.Duration) bool {
	_ = c.nc.SetWriteDeadline(time.Now().Add(d))
	_, err := c.nc.Write(b)
	return err == nil
}

// roundTrip sends one request and reads its response.
func (c *rawConn) roundTrip(code int, ext map[string]string, body []byte) *cluster.Response {
	c.t.Helper()
	require.True(c.t, c.write(request(c.t, code, ext, body), 10*time.Second), "write request %d", code)
	resp, err := c.read(10 * time.Second)
	require.NoError(c.t, err, "response to request %d", code)
	return resp
}

// read reads the next response frame.
func (c *rawConn) read(d time.Duration) (*cluster.Response, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	var n [4]byte
	if _, err := io.ReadFull(c.br, n[:]); err != nil {
		return nil, err
	}
	frame := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(c.br, frame); err != nil {
		return nil, err
	}
	resp, _, _, err := cluster.DecodeResponse(frame)
	return resp, err
}

// closedWithin reports whether the server closes the connection within d, reading (and
// discarding) what it sends meanwhile.
func (c *rawConn) closedWithin(d time.Duration) bool {
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c.br)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// workload is a well-behaved producer and push consumer on one topic, running while hostile
// clients do their worst: it sends a message every few milliseconds and records what was
// acknowledged and what was received.
type workload struct {
	t     testing.TB
	topic string
	p     rocketmq.Producer
	pc    rocketmq.PushConsumer

	sent, failed atomic.Int64
	mu           sync.Mutex
	acked        map[string]bool
	got          map[string]bool
	stop, done   chan struct{}
}

const workloadProp = "hostileid"

func startWorkload(t testing.TB, c *cluster.Cluster, name string) *workload {
	t.Helper()
	w := &workload{t: t, topic: "HOSTILE_" + name, acked: map[string]bool{}, got: map[string]bool{},
		stop: make(chan struct{}), done: make(chan struct{})}
	p, err := rocketmq.NewProducer(producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName("PG_"+name), producer.WithInstanceName("hostile_prod_"+name),
		producer.WithRetry(2), producer.WithSendMsgTimeout(5*time.Second))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	w.p = p
	// The first send creates the topic (autoCreateTopicEnable), so that the consumer finds a route.
	require.Eventually(t, func() bool { return w.sendOne(-1) }, 30*time.Second, 200*time.Millisecond, "first send")
	pc, err := rocketmq.NewPushConsumer(consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName("CG_"+name), consumer.WithInstance("hostile_cons_"+name),
		consumer.WithConsumerModel(consumer.Clustering), consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	require.NoError(t, err)
	require.NoError(t, pc.Subscribe(w.topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}, w.consume))
	require.NoError(t, pc.Start())
	w.pc = pc
	go w.run()
	return w
}

func (w *workload) run() {
	defer close(w.done)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			return
		case <-tick.C:
			w.sendOne(i)
		}
	}
}

// sendOne sends message i and records the outcome.
func (w *workload) sendOne(i int) bool {
	id := fmt.Sprintf("m%06d", i)
	m := primitive.NewMessage(w.topic, []byte("hostile workload "+id))
	m.WithProperty(workloadProp, id)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := w.p.SendSync(ctx, m)
	if i < 0 {
		return err == nil && res.Status == primitive.SendOK
	}
	w.sent.Add(1)
	if err != nil || res.Status != primitive.SendOK {
		w.failed.Add(1)
		return false
	}
	w.mu.Lock()
	w.acked[id] = true
	w.mu.Unlock()
	return true
}

func (w *workload) consume(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range msgs {
		w.got[m.GetProperty(workloadProp)] = true
	}
	return consumer.ConsumeSuccess, nil
}

// finish stops sending and requires under 1 % failed sends and every acknowledged message read
// back.
func (w *workload) finish() {
	t := w.t
	t.Helper()
	close(w.stop)
	<-w.done
	defer func() {
		_ = w.pc.Shutdown()
		_ = w.p.Shutdown()
	}()
	sent, failed := w.sent.Load(), w.failed.Load()
	require.Positive(t, sent)
	var missing []string
	ok := eventually(60*time.Second, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		missing = missing[:0]
		for id := range w.acked {
			if !w.got[id] {
				missing = append(missing, id)
			}
		}
		return len(missing) == 0
	})
	t.Logf("workload: %d sends, %d failed (%.2f %%), %d acknowledged, %d missing", sent, failed,
		100*float64(failed)/float64(sent), sent-failed, len(missing))
	require.Less(t, float64(failed), 0.01*float64(sent), "failed sends")
	require.True(t, ok, "acknowledged messages never consumed: %d, e.g. %v", len(missing), head(missing, 5))
}

func head(s []string, n int) []string { return s[:min(n, len(s))] }

func eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}
