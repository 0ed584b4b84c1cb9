package crash

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// idProp is the user property that names each message of the consumer test.
const idProp = "crashid"

// place is where a message is stored: queue id and queue offset.
type place struct {
	queue  int
	offset int64
}

// TestConsumerGroupKeepsPlaceAcrossKill9 checks that a clustering Go push consumer group resumes
// where the broker last persisted its offsets after the broker is killed with SIGKILL, neither
// starting over from 0 nor skipping anything:
//
//  1. 80 messages are consumed by consumer A; the broker's committed offsets reach the queue ends
//     (QUERY_CONSUMER_OFFSET) and consumerOffset.json holds them (flushConsumerOffsetInterval=1000).
//  2. 40 more are consumed by A; then the persisted offsets are read and the broker is killed.
//  3. A is shut down (its own last commit finds no broker), the broker restarts, 40 more are sent
//     and consumer B of the same group starts.
//
// The broker must answer committed offsets at least as far as the persisted ones it was killed
// with; B must start exactly there (nothing below them is delivered again), must receive every
// message from there on, and so everything is received at least once, with at most the messages
// consumed after the last persisted offsets delivered twice.
func TestConsumerGroupKeepsPlaceAcrossKill9(t *testing.T) {
	t.Parallel()
	c, b := startCluster(t, "SYNC_FLUSH")
	const queues = 4
	topic := uniq(t, "PLACE")
	group := uniq(t, "CG")
	createTopic(t, c, b, topic, queues)
	p := newProducer(t, c, uniq(t, "PG"))
	where := map[string]place{}
	send := func(prefix string, n int) []string {
		var ids []string
		for i := range n {
			id := fmt.Sprintf("%s-%d", prefix, i)
			msg := primitive.NewMessage(topic, []byte("body of "+id))
			msg.WithProperty(idProp, id)
			msg.WithKeys([]string{id})
			ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+2*time.Second)
			res, err := p.SendSync(ctx, msg)
			cancel()
			require.NoError(t, err, "send %s", id)
			require.Equal(t, primitive.SendOK, res.Status, "send %s", id)
			where[id] = place{res.MessageQueue.QueueId, res.QueueOffset}
			ids = append(ids, id)
		}
		return ids
	}

	// 1. Consumer A consumes the first messages; the broker commits and persists its offsets.
	first := send("first", 80)
	colA := newCollector()
	consumerA := startConsumer(t, c, group, topic, colA)
	colA.waitFor(t, "consumer A", first)
	ends := queueEnds(t, b, topic, queues)
	waitCommitted(t, b, group, topic, ends)
	waitPersisted(t, b, group, topic, ends)

	// 2. A consumes more; the persisted offsets may or may not follow before the kill.
	second := send("second", 40)
	colA.waitFor(t, "consumer A", second)
	persisted := readPersisted(t, b, group, topic, queues)
	endsBeforeKill := queueEnds(t, b, topic, queues)
	require.NoError(t, b.Kill(), "kill -9 the broker")
	t.Logf("killed the broker; persisted offsets just before: %v, queue ends %v", persisted, endsBeforeKill)
	shutdownStarted := time.Now()
	require.NoError(t, consumerA.Shutdown(), "shut consumer A down")
	t.Logf("consumer A shut down in %v", time.Since(shutdownStarted).Round(time.Millisecond))

	// 3. Restart; the broker must still know the group's place.
	b.StartAgain()
	restored := make([]int64, queues)
	for q := range queues {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		off, found, err := cluster.QueryConsumerOffset(ctx, b.Addr, group, topic, q)
		cancel()
		require.NoError(t, err)
		require.True(t, found, "queue %d: the broker forgot the group's offset across kill -9", q)
		restored[q] = off
		assert.GreaterOrEqual(t, off, persisted[q], "queue %d: committed offset after kill -9 is behind the persisted one", q)
		assert.GreaterOrEqual(t, off, ends[q], "queue %d: committed offset after kill -9 is behind the one persisted in step 1", q)
		assert.LessOrEqual(t, off, endsBeforeKill[q], "queue %d: committed offset after kill -9 is past the queue end", q)
	}
	t.Logf("committed offsets after the restart: %v", restored)

	third := send("third", 40)
	colB := newCollector()
	startConsumer(t, c, group, topic, colB)
	var wantB []string
	for id, pl := range where {
		if pl.offset >= restored[pl.queue] {
			wantB = append(wantB, id)
		}
	}
	sort.Strings(wantB)
	colB.waitFor(t, "consumer B", wantB)

	var below, redelivered []string
	maxRedelivered := 0
	for q := range queues {
		maxRedelivered += int(endsBeforeKill[q] - persisted[q])
	}
	for id, got := range colB.all() {
		pl := where[id]
		if pl.offset < restored[pl.queue] {
			below = append(below, fmt.Sprintf("%s (queue %d offset %d, committed %d)", id, pl.queue, pl.offset, restored[pl.queue]))
		}
		if colA.count(id) > 0 && got > 0 {
			redelivered = append(redelivered, id)
		}
	}
	assert.Empty(t, below, "consumer B received messages below the group's committed offsets")
	assert.LessOrEqual(t, len(redelivered), maxRedelivered,
		"redelivered %v; only messages consumed after the last persisted offsets %v may come again", redelivered, persisted)
	var missing []string
	for _, id := range append(append(append([]string(nil), first...), second...), third...) {
		if colA.count(id)+colB.count(id) == 0 {
			missing = append(missing, id)
		}
	}
	assert.Empty(t, missing, "messages no consumer of the group received")
	t.Logf("consumer B received %d messages; %d were delivered again (at most %d allowed: consumed after the last persisted offsets)",
		len(colB.all()), len(redelivered), maxRedelivered)
}

// collector records what a push consumer receives, by idProp.
type collector struct {
	mu     sync.Mutex
	got    map[string]int
	notify chan struct{}
}

func newCollector() *collector {
	return &collector{got: map[string]int{}, notify: make(chan struct{}, 1)}
}

func (col *collector) consume(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	col.mu.Lock()
	for _, m := range msgs {
		col.got[m.GetProperty(idProp)]++
	}
	col.mu.Unlock()
	select {
	case col.notify <- struct{}{}:
	default:
	}
	return consumer.ConsumeSuccess, nil
}

func (col *collector) count(id string) int {
	col.mu.Lock()
	defer col.mu.Unlock()
	return col.got[id]
}

func (col *collector) all() map[string]int {
	col.mu.Lock()
	defer col.mu.Unlock()
	out := make(map[string]int, len(col.got))
	for k, v := range col.got {
		out[k] = v
	}
	return out
}

// waitFor waits until every id in want has been received.
func (col *collector) waitFor(t *testing.T, who string, want []string) {
	t.Helper()
	deadline := time.NewTimer(consumeTimeout)
	defer deadline.Stop()
	for {
		var missing []string
		for _, id := range want {
			if col.count(id) == 0 {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			return
		}
		select {
		case <-col.notify:
		case <-deadline.C:
			if len(missing) > 5 {
				missing = missing[:5]
			}
			t.Fatalf("%s: after %v still missing %d of %d messages, e.g. %v", who, consumeTimeout, len(missing), len(want), missing)
		}
	}
}

// startConsumer starts a clustering push consumer of group on topic (from the first offset when
// the group has none); t.Cleanup shuts it down unless the test did.
func startConsumer(t *testing.T, c *cluster.Cluster, group, topic string, col *collector) rocketmq.PushConsumer {
	t.Helper()
	pc, err := rocketmq.NewPushConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(group),
		consumer.WithInstance(uniq(t, "cons")),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
	)
	require.NoError(t, err, "new push consumer")
	require.NoError(t, pc.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}, col.consume))
	require.NoError(t, pc.Start(), "start push consumer")
	t.Cleanup(func() { _ = pc.Shutdown() })
	return pc
}

// queueEnds reads the max offset of every queue.
func queueEnds(t *testing.T, b *cluster.Broker, topic string, queues int) []int64 {
	t.Helper()
	out := make([]int64, queues)
	for q := range queues {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		m, err := cluster.MaxOffset(ctx, b.Addr, topic, q)
		cancel()
		require.NoError(t, err)
		out[q] = m
	}
	return out
}

// waitCommitted waits until the broker answers QUERY_CONSUMER_OFFSET ≥ want on every queue (the
// Go client commits every 5 s, the first time 10 s after it starts).
func waitCommitted(t *testing.T, b *cluster.Broker, group, topic string, want []int64) {
	t.Helper()
	waitUntil(t, commitTimeout, 100*time.Millisecond, "committed offsets of "+group, func() (bool, string) {
		got := make([]int64, len(want))
		for q := range want {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			off, found, err := cluster.QueryConsumerOffset(ctx, b.Addr, group, topic, q)
			cancel()
			if err != nil {
				return false, err.Error()
			}
			if !found {
				off = -1
			}
			got[q] = off
		}
		for q := range want {
			if got[q] < want[q] {
				return false, fmt.Sprintf("committed %v, want %v", got, want)
			}
		}
		return true, ""
	})
}

// waitPersisted waits until consumerOffset.json holds offsets ≥ want for every queue.
func waitPersisted(t *testing.T, b *cluster.Broker, group, topic string, want []int64) {
	t.Helper()
	waitUntil(t, commitTimeout, 100*time.Millisecond, "consumerOffset.json of "+group, func() (bool, string) {
		got, err := persistedOffsets(b, group, topic)
		if err != nil {
			return false, err.Error()
		}
		for q := range want {
			if got[q] < want[q] {
				return false, fmt.Sprintf("persisted %v, want %v", got, want)
			}
		}
		return true, ""
	})
}

// readPersisted returns the group's offsets in consumerOffset.json, one per queue (0 if absent).
func readPersisted(t *testing.T, b *cluster.Broker, group, topic string, queues int) []int64 {
	t.Helper()
	got, err := persistedOffsets(b, group, topic)
	require.NoError(t, err)
	out := make([]int64, queues)
	for q := range out {
		out[q] = got[q]
	}
	return out
}

// persistedOffsets reads <store>/config/consumerOffset.json (protocol.md §5.6; queue ids may be
// unquoted numbers, as Java writes them).
func persistedOffsets(b *cluster.Broker, group, topic string) (map[int]int64, error) {
	path := filepath.Join(b.StoreDir, "config", "consumerOffset.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var wrapper struct {
		OffsetTable map[string]map[string]int64 `json:"offsetTable"`
	}
	if err := json.Unmarshal(cluster.LenientJSON(data), &wrapper); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[int]int64{}
	for q, off := range wrapper.OffsetTable[topic+"@"+group] {
		id, err := strconv.Atoi(q)
		if err != nil {
			return nil, fmt.Errorf("%s: queue id %q", path, q)
		}
		out[id] = off
	}
	return out, nil
}
