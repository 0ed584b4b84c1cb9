package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestPushConsumerMessageFields starts a push consumer on an empty topic, then sends messages with
// tags, two keys, user properties and a flag. Each consumed message must carry them unchanged, and
// the fields the broker fills in must agree with the send result: UNIQ_KEY msgId, offset msgId,
// queue id, queue offset, store host, born host, body CRC.
func TestPushConsumerMessageFields(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	createTopic(t, c, topic, 4)

	col := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col)

	p := newProducer(t, c)
	const n = 16
	var ids []string
	sent := map[string]*primitive.Message{}
	results := map[string]*primitive.SendResult{}
	before := time.Now()
	for i := range n {
		id := fmt.Sprintf("m-%d", i)
		ids = append(ids, id)
		m := primitive.NewMessage(topic, []byte(fmt.Sprintf("payload %d: \x00\x01\x02 ünïcødé", i)))
		m.WithTag(fmt.Sprintf("Tag%d", i%3))
		m.WithKeys([]string{"key-" + id, fmt.Sprintf("order-%d", 1000+i)})
		m.WithProperty(idProp, id)
		m.WithProperty("color", []string{"red", "green", "blue"}[i%3])
		m.WithProperty("note", "spaces and = signs & such")
		m.Flag = int32(i)
		sent[id] = m
		results[id] = sendSync(t, p, m)
	}
	col.waitFor(t, ids, consumeTimeout)

	for _, id := range ids {
		m, s, r := col.first(id), sent[id], results[id]
		assert.Equal(t, topic, m.Topic, "%s: topic", id)
		assert.Equal(t, s.Body, m.Body, "%s: body", id)
		assert.Equal(t, s.GetTags(), m.GetTags(), "%s: tags", id)
		assert.Equal(t, s.GetKeys(), m.GetKeys(), "%s: keys", id)
		assert.Equal(t, s.GetProperty("color"), m.GetProperty("color"), "%s: user property color", id)
		assert.Equal(t, s.GetProperty("note"), m.GetProperty("note"), "%s: user property note", id)
		assert.Equal(t, s.Flag, m.Flag, "%s: flag", id)
		assert.Equal(t, r.MsgID, m.MsgId, "%s: msgId (UNIQ_KEY) differs from the send result", id)
		assert.Equal(t, r.MsgID, m.GetProperty(primitive.PropertyUniqueClientMessageIdKeyIndex), "%s: UNIQ_KEY property", id)
		assert.Equal(t, r.OffsetMsgID, m.OffsetMsgId, "%s: offset msgId differs from the send result", id)
		assert.Equal(t, r.MessageQueue.QueueId, m.Queue.QueueId, "%s: queue id", id)
		assert.Equal(t, r.QueueOffset, m.QueueOffset, "%s: queue offset", id)
		assert.Equal(t, b.Addr, m.StoreHost, "%s: store host", id)
		assert.True(t, strings.HasPrefix(m.BornHost, "127.0.0.1:"), "%s: born host %q", id, m.BornHost)
		assert.Equal(t, bodyCRC(s.Body), m.BodyCRC, "%s: body CRC", id)
		assert.Zero(t, m.ReconsumeTimes, "%s: reconsume times", id)
		assert.Zero(t, m.SysFlag&primitive.FlagCompressed, "%s: a small body must not be flagged compressed", id)
		store := time.UnixMilli(m.StoreTimestamp)
		assert.False(t, store.Before(before.Add(-time.Second)) || store.After(time.Now().Add(time.Second)),
			"%s: store timestamp %v outside the test's send window", id, store)
		assert.LessOrEqual(t, m.BornTimestamp, m.StoreTimestamp+1000, "%s: stored before it was born", id)
	}
	if dups := duplicates(col); len(dups) > 0 {
		t.Errorf("one consumer in a fresh group received messages more than once: %v", dups)
	}
}

// TestTwoConsumersShareQueues runs two push consumers in one group. Once both see a clean split of
// the eight queues (disjoint, covering all), every message sent must reach one of them, each
// consumer only from its own queues, both must get some, and none may get a message twice.
func TestTwoConsumersShareQueues(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	const queues = 8
	createTopic(t, c, topic, queues)
	group := uniq(t, "CG")

	cols := newCollectors(2)
	for _, col := range cols {
		newPushConsumer(t, c, group, topic, selectAll, col, consumer.WithStrategy(col.recordingStrategy(topic)))
	}

	// The broker lists both members, and the two allocations partition the queues.
	var split string
	ok := eventually(settleTimeout, 100*time.Millisecond, func() bool {
		split = ""
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		ids, resp, err := cluster.ConsumerList(ctx, b.Addr, group)
		cancel()
		if err != nil || len(ids) != 2 {
			split = fmt.Sprintf("broker's consumer list: %v %v %v", ids, resp, err)
			return false
		}
		seen := map[string]int{}
		for i, col := range cols {
			for _, mq := range col.allocation() {
				seen[mqKey(mq)]++
			}
			split += fmt.Sprintf(" consumer%d=%v", i, queueIDs(col.allocation()))
		}
		if len(seen) != queues || len(cols[0].allocation())+len(cols[1].allocation()) != queues {
			split = "allocations:" + split
			return false
		}
		return len(cols[0].allocation()) > 0 && len(cols[1].allocation()) > 0
	})
	require.True(t, ok, "the two consumers never split the %d queues cleanly within %v: %s", queues, settleTimeout, split)
	t.Logf("allocation: consumer0=%v consumer1=%v", queueIDs(cols[0].allocation()), queueIDs(cols[1].allocation()))

	p := newProducer(t, c)
	ids, _ := sendN(t, p, topic, "m", 64)

	waitForUnion(t, cols, ids, consumeTimeout)

	dup := 0
	for _, id := range ids {
		total := 0
		for _, col := range cols {
			total += col.ids()[id]
		}
		if total > 1 {
			dup++
			t.Errorf("%s was delivered %d times", id, total)
		}
	}
	for i, col := range cols {
		mine := map[int]bool{}
		for _, mq := range col.allocation() {
			mine[mq.QueueId] = true
		}
		got := col.ids()
		assert.NotEmpty(t, got, "consumer%d received nothing", i)
		for id := range got {
			if q := col.first(id).Queue.QueueId; !mine[q] {
				t.Errorf("consumer%d received %s from queue %d, which is not in its allocation %v", i, id, q, queueIDs(col.allocation()))
			}
		}
		t.Logf("consumer%d received %d messages", i, len(got))
	}
	t.Logf("duplicates: %d", dup)
}

func queueIDs(mqs []*primitive.MessageQueue) []int {
	var out []int
	for _, mq := range mqs {
		out = append(out, mq.QueueId)
	}
	sort.Ints(out)
	return out
}

// waitForUnion waits until the collectors (made by newCollectors, so they share one notify
// channel) have together received every id in want.
func waitForUnion(t testing.TB, cols []*collector, want []string, timeout time.Duration) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		got := map[string]bool{}
		for _, col := range cols {
			for id := range col.ids() {
				got[id] = true
			}
		}
		var missing []string
		for _, id := range want {
			if !got[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			return
		}
		select {
		case <-cols[0].notify:
		case <-deadline.C:
			t.Fatalf("after %v the consumers together had %d of %d messages; missing %d, e.g. %v",
				timeout, len(want)-len(missing), len(want), len(missing), sample(missing, 5))
		}
	}
}

// TestTagFilter subscribes with "TagA || TagC" and sends TagA, TagB, TagC and untagged messages.
// The consumer must get every TagA and TagC message and nothing else, and a raw PULL_MESSAGE with
// that subscription must show the broker itself filtering: only TagA and TagC records come back.
func TestTagFilter(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	const queues = 4
	createTopic(t, c, topic, queues)

	col := newCollector()
	pc := newPushConsumer(t, c, uniq(t, "CG"), topic,
		consumer.MessageSelector{Type: consumer.TAG, Expression: "TagA || TagC"}, col)

	p := newProducer(t, c)
	var want []string
	results := map[string]*primitive.SendResult{}
	tags := []string{"TagA", "TagB", "TagC", ""}
	for i := range 40 {
		tag := tags[i%len(tags)]
		label := tag
		if label == "" {
			label = "none"
		}
		id := fmt.Sprintf("%s-%d", label, i)
		m := message(topic, id, []byte(id))
		if tag != "" {
			m.WithTag(tag)
		}
		results[id] = sendSync(t, p, m)
		if tag == "TagA" || tag == "TagC" {
			want = append(want, id)
		}
	}
	col.waitFor(t, want, consumeTimeout)
	// Once the consumer's offsets reach the end of every queue it has seen all it ever will.
	waitDrained(t, pc, topic)
	for id := range col.ids() {
		if !hasPrefixAny(id, "TagA-", "TagC-") {
			t.Errorf("subscription TagA || TagC received %s (tags %q)", id, col.first(id).GetTags())
		}
	}

	// The broker filters by tag hash before anything is sent.
	counts := waitDispatched(t, b, topic, results)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	group := uniq(t, "RAW")
	byTag := map[string]int{}
	for q := range queues {
		maxOff := counts[q]
		for off := int64(0); off < maxOff; {
			res, err := cluster.Pull(ctx, b.Addr, cluster.PullRequest{Group: group, Topic: topic, QueueID: q,
				Offset: off, MaxMsgs: 32, Subscription: "TagA || TagC"})
			require.NoError(t, err, "raw pull %s/%d@%d", topic, q, off)
			require.Contains(t, []int{cluster.CodeSuccess, cluster.CodePullRetryImmediately}, res.Code,
				"raw pull %s/%d@%d (max %d): code %d %q", topic, q, off, maxOff, res.Code, res.Remark)
			require.Greater(t, res.NextBeginOffset, off, "raw pull %s/%d@%d did not advance", topic, q, off)
			for _, r := range res.Messages {
				byTag[r.Properties["TAGS"]]++
			}
			off = res.NextBeginOffset
		}
	}
	assert.Equal(t, map[string]int{"TagA": 10, "TagC": 10}, byTag, "records the broker returned for TagA || TagC, by tag")
}

// TestPullConsumerFromOffsetZero sends messages and then reads every queue that got any from
// offset 0 with the Go client's pull consumer (PullFrom): the messages come back in queue-offset
// order with their bodies, and the pull results report the queue's min and max offsets.
func TestPullConsumerFromOffsetZero(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	topic := uniq(t, "T")
	createTopic(t, c, topic, 4)

	p := newProducer(t, c)
	ids, results := sendN(t, p, topic, "m", 24)
	perQueue := waitDispatched(t, c.Brokers[0], topic, results) // queue id -> message count

	pull, err := rocketmq.NewPullConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(uniq(t, "PULL")),
		consumer.WithInstance(uniq(t, "pull")),
	)
	require.NoError(t, err)
	require.NoError(t, pull.Subscribe(topic, selectAll))
	require.NoError(t, pull.Start(), "start pull consumer")
	t.Cleanup(func() { _ = pull.Shutdown() })

	mqs, err := pull.GetTopicRouteInfo(topic)
	require.NoError(t, err)
	require.Len(t, mqs, 4, "queues in the pull consumer's route")

	got := map[string]*primitive.MessageExt{}
	for _, mq := range mqs {
		count := perQueue[mq.QueueId]
		// Never pull at the end of a queue: the pull consumer asks the broker to hold such a pull.
		for off := int64(0); off < count; {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			res, err := pull.PullFrom(ctx, mq, off, 8)
			cancel()
			require.NoError(t, err, "PullFrom %s @%d", mq, off)
			require.Equal(t, primitive.PullFound, res.Status, "PullFrom %s @%d (queue holds %d)", mq, off, count)
			assert.Equal(t, int64(0), res.MinOffset, "min offset of %s", mq)
			assert.Equal(t, count, res.MaxOffset, "max offset of %s", mq)
			msgs := res.GetMessageExts()
			require.NotEmpty(t, msgs, "PullFrom %s @%d found no messages", mq, off)
			require.LessOrEqual(t, len(msgs), 8, "PullFrom %s @%d returned more than maxMsgNums", mq, off)
			for i, m := range msgs {
				assert.Equal(t, off+int64(i), m.QueueOffset, "%s: queue offsets must be consecutive from %d", mq, off)
				id := m.GetProperty(idProp)
				assert.Equal(t, "body of "+id, string(m.Body), "%s: body", id)
				assert.Equal(t, results[id].MessageQueue.QueueId, mq.QueueId, "%s: queue", id)
				got[id] = m
			}
			require.Equal(t, off+int64(len(msgs)), res.NextBeginOffset, "next begin offset after %d messages from %d", len(msgs), off)
			off = res.NextBeginOffset
		}
	}
	var missing []string
	for _, id := range ids {
		if got[id] == nil {
			missing = append(missing, id)
		}
	}
	assert.Empty(t, missing, "messages the pull consumer never read")
}
