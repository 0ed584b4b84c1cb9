// Package e2e holds black-box tests of bin/mqnamesrv and bin/mqbroker driven by the Go client
// rocketmq-client-go/v2: send modes, message fields, queue sharing in a group, tag filtering, pull
// consumption, committed offsets across consumer and broker restarts, size limits, compression and
// two brokers serving one topic. README.md lists what each test asserts.
package e2e

import (
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Deadlines of the waits in this suite.
const (
	routeTimeout   = 40 * time.Second // a created topic shows up in the nameserver's route
	consumeTimeout = 60 * time.Second // every expected message reaches a consumer
	settleTimeout  = 30 * time.Second // consumer offsets or allocations settle
	sendTimeout    = 10 * time.Second // one send, as the producer's own timeout
)

// idProp is the user property that names each test message.
const idProp = "e2eid"

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(m.Run())
}

var nameSeq atomic.Int64

var nonName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// uniq returns a name for a topic, group or client instance that no other test uses: the prefix,
// the test's name and a sequence number, in the characters RocketMQ allows.
func uniq(t testing.TB, prefix string) string {
	name := nonName.ReplaceAllString(t.Name(), "_")
	if len(name) > 60 {
		name = name[len(name)-60:]
	}
	return fmt.Sprintf("%s_%s_%d", prefix, name, nameSeq.Add(1))
}

// newProducer starts a producer on the cluster's nameserver; t.Cleanup shuts it down.
func newProducer(t testing.TB, c *cluster.Cluster, opts ...producer.Option) rocketmq.Producer {
	t.Helper()
	all := append([]producer.Option{
		producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName(uniq(t, "PG")),
		producer.WithInstanceName(uniq(t, "prod")),
		producer.WithRetry(2),
		producer.WithSendMsgTimeout(sendTimeout),
	}, opts...)
	p, err := rocketmq.NewProducer(all...)
	require.NoError(t, err, "new producer")
	require.NoError(t, p.Start(), "start producer")
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// collector records what a push consumer receives, by the idProp of each message.
type collector struct {
	mu       sync.Mutex
	got      map[string][]*primitive.MessageExt // deliveries by id, duplicates included
	notify   chan struct{}                      // gets a token after every delivery
	allocMu  sync.Mutex
	lastTake []*primitive.MessageQueue
}

func newCollector() *collector { return newCollectors(1)[0] }

// newCollectors returns n collectors that signal one shared notify channel, so that a test can
// wait on all of them at once.
func newCollectors(n int) []*collector {
	notify := make(chan struct{}, 1)
	out := make([]*collector, n)
	for i := range out {
		out[i] = &collector{got: map[string][]*primitive.MessageExt{}, notify: notify}
	}
	return out
}

// consume is the push consumer callback: record and acknowledge.
func (col *collector) consume(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	col.mu.Lock()
	for _, m := range msgs {
		id := m.GetProperty(idProp)
		col.got[id] = append(col.got[id], m)
	}
	col.mu.Unlock()
	select {
	case col.notify <- struct{}{}:
	default:
	}
	return consumer.ConsumeSuccess, nil
}

// ids returns the distinct ids received.
func (col *collector) ids() map[string]int {
	col.mu.Lock()
	defer col.mu.Unlock()
	out := make(map[string]int, len(col.got))
	for id, ms := range col.got {
		out[id] = len(ms)
	}
	return out
}

// first returns the first delivery of id.
func (col *collector) first(id string) *primitive.MessageExt {
	col.mu.Lock()
	defer col.mu.Unlock()
	if ms := col.got[id]; len(ms) > 0 {
		return ms[0]
	}
	return nil
}

// waitFor waits until every id in want has been received, failing with what is missing.
func (col *collector) waitFor(t testing.TB, want []string, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		missing := col.missing(want)
		if len(missing) == 0 {
			return
		}
		select {
		case <-col.notify:
		case <-deadline.C:
			got := col.ids()
			t.Fatalf("after %v the consumer had %d of %d expected messages (%d distinct ids in all); missing %d, e.g. %v",
				timeout, len(want)-len(missing), len(want), len(got), len(missing), sample(missing, 5))
		}
	}
}

func (col *collector) missing(want []string) []string {
	got := col.ids()
	var out []string
	for _, id := range want {
		if got[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

// recordingStrategy wraps AllocateByAveragely and remembers the last allocation of topic.
func (col *collector) recordingStrategy(topic string) consumer.AllocateStrategy {
	return func(group, cid string, mqAll []*primitive.MessageQueue, cidAll []string) []*primitive.MessageQueue {
		res := consumer.AllocateByAveragely(group, cid, mqAll, cidAll)
		if len(mqAll) > 0 && mqAll[0].Topic == topic {
			col.allocMu.Lock()
			col.lastTake = append([]*primitive.MessageQueue(nil), res...)
			col.allocMu.Unlock()
		}
		return res
	}
}

func (col *collector) allocation() []*primitive.MessageQueue {
	col.allocMu.Lock()
	defer col.allocMu.Unlock()
	return append([]*primitive.MessageQueue(nil), col.lastTake...)
}

// newPushConsumer starts a clustering push consumer of group on topic; t.Cleanup shuts it down.
func newPushConsumer(t testing.TB, c *cluster.Cluster, group, topic string, sel consumer.MessageSelector,
	col *collector, opts ...consumer.Option) rocketmq.PushConsumer {
	t.Helper()
	all := append([]consumer.Option{
		consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(group),
		consumer.WithInstance(uniq(t, "cons")),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
	}, opts...)
	pc, err := rocketmq.NewPushConsumer(all...)
	require.NoError(t, err, "new push consumer")
	require.NoError(t, pc.Subscribe(topic, sel, col.consume), "subscribe")
	require.NoError(t, pc.Start(), "start push consumer of %s on %s", group, topic)
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { _ = pc.Shutdown() }) })
	return pc
}

var selectAll = consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}

// createTopic creates topic with the given queue count on each named broker through the Go
// client's admin API, then waits until the nameserver routes it to all of them.
func createTopic(t testing.TB, c *cluster.Cluster, topic string, queues int, brokers ...string) {
	t.Helper()
	if len(brokers) == 0 {
		for _, b := range c.Brokers {
			brokers = append(brokers, b.Name)
		}
	}
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{c.NamesrvAddr()})))
	require.NoError(t, err, "new admin")
	defer adm.Close()
	for _, name := range brokers {
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
		err := adm.CreateTopic(ctx, admin.WithTopicCreate(topic), admin.WithBrokerAddrCreate(c.Broker(name).Addr),
			admin.WithReadQueueNums(queues), admin.WithWriteQueueNums(queues))
		cancel()
		require.NoError(t, err, "UPDATE_AND_CREATE_TOPIC %s on %s", topic, name)
	}
	want := map[string]int{}
	for _, name := range brokers {
		want[name] = queues
	}
	waitRoute(t, c, topic, want)
}

// waitRoute waits until the nameserver's route of topic has, for each broker in want, that many
// read and write queues, perm RW, and the broker's address as master.
func waitRoute(t testing.TB, c *cluster.Cluster, topic string, want map[string]int) *cluster.TopicRoute {
	t.Helper()
	start := time.Now()
	var last string
	var route *cluster.TopicRoute
	ok := eventually(routeTimeout, 100*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		r, resp, err := cluster.RouteInfo(ctx, c.NamesrvAddr(), topic)
		switch {
		case err != nil:
			last = err.Error()
			return false
		case r == nil:
			last = "no route: " + resp.String()
			return false
		}
		route = r
		for name, n := range want {
			q, found := r.Queues(name)
			if !found || q.ReadQueueNums != n || q.WriteQueueNums != n || q.Perm&6 != 6 ||
				r.MasterAddr(name) != c.Broker(name).Addr {
				last = fmt.Sprintf("route lacks %d RW queues on %s at %s: %s", n, name, c.Broker(name).Addr, r.Raw)
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("route of %s not as expected after %v: %s", topic, routeTimeout, last)
	}
	t.Logf("route of %s ready after %v", topic, time.Since(start).Round(time.Millisecond))
	// The Go client parses brokerAddrs by hand; whitespace between tokens corrupts it.
	if cluster.HasWhitespaceOutsideStrings(route.Raw) {
		t.Errorf("route JSON of %s is not compact, which the Go client misparses: %s", topic, route.Raw)
	}
	return route
}

// eventually polls cond every tick until it holds or timeout passes.
func eventually(timeout, tick time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-ticker.C
	}
}

// message builds a message carrying its id in idProp and as its key.
func message(topic, id string, body []byte) *primitive.Message {
	m := primitive.NewMessage(topic, body)
	m.WithProperty(idProp, id)
	m.WithKeys([]string{id})
	return m
}

// sendSync sends one message and requires SEND_OK.
func sendSync(t testing.TB, p rocketmq.Producer, m *primitive.Message) *primitive.SendResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
	defer cancel()
	res, err := p.SendSync(ctx, m)
	require.NoError(t, err, "SendSync of %s to %s", m.GetProperty(idProp), m.Topic)
	require.Equal(t, primitive.SendOK, res.Status, "SendSync of %s: %v", m.GetProperty(idProp), res)
	return res
}

// sendN sends n messages with ids prefix-0..prefix-(n-1) and returns the ids and results.
func sendN(t testing.TB, p rocketmq.Producer, topic, prefix string, n int) ([]string, map[string]*primitive.SendResult) {
	t.Helper()
	ids := make([]string, n)
	results := map[string]*primitive.SendResult{}
	for i := range n {
		ids[i] = fmt.Sprintf("%s-%d", prefix, i)
		results[ids[i]] = sendSync(t, p, message(topic, ids[i], []byte("body of "+ids[i])))
	}
	return ids, results
}

// bodyCRC is the stored record's body CRC: CRC32 & 0x7FFFFFFF.
func bodyCRC(body []byte) int32 { return int32(crc32.ChecksumIEEE(body) & 0x7FFFFFFF) }

// queueStates reads, for every queue of topic on broker, the max offset and the committed offset of
// group (-1 when the broker has none).
func queueStates(t testing.TB, b *cluster.Broker, group, topic string, queues int) (maxOff, committed []int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for q := range queues {
		m, err := cluster.MaxOffset(ctx, b.Addr, topic, q)
		require.NoError(t, err)
		off, found, err := cluster.QueryConsumerOffset(ctx, b.Addr, group, topic, q)
		require.NoError(t, err)
		if !found {
			off = -1
		}
		maxOff = append(maxOff, m)
		committed = append(committed, off)
	}
	return maxOff, committed
}

// waitDispatched waits until the broker's consume queues of topic hold every message of results
// (a send is acknowledged once the commit log has it; the consume queue entry follows
// asynchronously, as in RocketMQ) and returns the entry count per queue id.
func waitDispatched(t testing.TB, b *cluster.Broker, topic string, results ...map[string]*primitive.SendResult) map[int]int64 {
	t.Helper()
	want := expectedCounts(b, results...)
	got := map[int]int64{}
	ok := eventually(settleTimeout, 20*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for q, n := range want {
			m, err := cluster.MaxOffset(ctx, b.Addr, topic, q)
			require.NoError(t, err)
			got[q] = m
			if m != n {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("broker %s: max offsets of %s are %v, want %v from the send results (after %v)", b.Name, topic, got, want, settleTimeout)
	}
	return want
}

// expectedCounts is, per queue id of broker b, the entry count the send results imply: the highest
// acknowledged queue offset + 1.
func expectedCounts(b *cluster.Broker, results ...map[string]*primitive.SendResult) map[int]int64 {
	want := map[int]int64{}
	for _, rs := range results {
		for _, r := range rs {
			if r.MessageQueue.BrokerName == b.Name && r.QueueOffset+1 > want[r.MessageQueue.QueueId] {
				want[r.MessageQueue.QueueId] = r.QueueOffset + 1
			}
		}
	}
	return want
}

// maxOffsets reads the max offset of every queue of topic on broker b.
func maxOffsets(t testing.TB, b *cluster.Broker, topic string, queues int) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []int64
	for q := range queues {
		m, err := cluster.MaxOffset(ctx, b.Addr, topic, q)
		require.NoError(t, err, "GET_MAX_OFFSET %s/%d on %s", topic, q, b.Name)
		out = append(out, m)
	}
	return out
}

// waitCommitted waits until the broker's committed offset of group equals the max offset on
// every queue of topic, i.e. the broker knows the group has consumed everything.
func waitCommitted(t testing.TB, b *cluster.Broker, group, topic string, queues int) []int64 {
	t.Helper()
	var maxOff, committed []int64
	ok := eventually(settleTimeout, 200*time.Millisecond, func() bool {
		maxOff, committed = queueStates(t, b, group, topic, queues)
		for q := range maxOff {
			if committed[q] != maxOff[q] {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("broker %s: committed offsets of %s on %s are %v, want the max offsets %v (after %v)",
			b.Name, group, topic, committed, maxOff, settleTimeout)
	}
	return committed
}

// waitDrained waits until the push consumer's in-memory offsets have reached the max offset the
// broker reported on each of its queues of topic, so that a Shutdown persists the final offsets.
func waitDrained(t testing.TB, pc rocketmq.PushConsumer, topic string) {
	t.Helper()
	var diff map[string]int64
	ok := eventually(settleTimeout, 50*time.Millisecond, func() bool {
		diff = pc.GetOffsetDiffMap()
		d, found := diff[topic]
		return found && d == 0
	})
	if !ok {
		t.Fatalf("consumer offsets of %s did not reach the queue max offsets within %v: lag %v", topic, settleTimeout, diff)
	}
}

func sample(ids []string, n int) []string {
	s := append([]string(nil), ids...)
	sort.Strings(s)
	if len(s) > n {
		s = s[:n]
	}
	return s
}

func mqKey(mq *primitive.MessageQueue) string {
	return mq.BrokerName + "/" + strconv.Itoa(mq.QueueId)
}

func hasPrefixAny(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
