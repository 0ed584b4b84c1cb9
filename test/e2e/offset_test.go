package e2e

import (
	"strings"
	"testing"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestConsumerResumesFromCommittedOffset consumes N messages with one consumer, waits until the
// broker's committed offsets for the group equal the queues' max offsets, shuts the consumer down,
// sends M more, and starts a new consumer in the same group. Since every offset was committed
// before the restart, the new consumer must receive exactly the M new messages: not one of the N
// again, although it is configured CONSUME_FROM_FIRST_OFFSET (which only applies to a group
// without offsets).
func TestConsumerResumesFromCommittedOffset(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	const queues = 4
	createTopic(t, c, topic, queues)
	group := uniq(t, "CG")
	p := newProducer(t, c)

	firstIDs, _ := sendN(t, p, topic, "first", 20)
	col1 := newCollector()
	pc1 := newPushConsumer(t, c, group, topic, selectAll, col1)
	col1.waitFor(t, firstIDs, consumeTimeout)
	waitDrained(t, pc1, topic)
	committed := commitAndShutdown(t, pc1, b, group, topic, queues)
	t.Logf("committed offsets after the first consumer: %v", committed)

	secondIDs, _ := sendN(t, p, topic, "second", 12)
	col2 := newCollector()
	pc2 := newPushConsumer(t, c, group, topic, selectAll, col2)
	col2.waitFor(t, secondIDs, consumeTimeout)
	waitDrained(t, pc2, topic)
	var again []string
	for id := range col2.ids() {
		if strings.HasPrefix(id, "first-") {
			again = append(again, id)
		}
	}
	assert.Empty(t, again, "the restarted consumer re-received messages whose offsets were committed (%v)", committed)
	assert.Len(t, col2.ids(), len(secondIDs), "distinct messages the restarted consumer received")
}

// TestBrokerRestartKeepsMessagesAndOffsets stores N messages, lets group A consume and commit them,
// stores N more, stops the broker with SIGTERM and starts it again on the same store. Afterwards
// the queues' max offsets and A's committed offsets must be what they were; new sends must
// continue each queue's offsets; group A must receive exactly the messages it had not consumed;
// and a fresh group with CONSUME_FROM_FIRST_OFFSET must read every message, bodies intact.
func TestBrokerRestartKeepsMessagesAndOffsets(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	const queues = 4
	createTopic(t, c, topic, queues)
	groupA := uniq(t, "CGA")

	p := newProducer(t, c)
	consumedIDs, consumedRes := sendN(t, p, topic, "consumed", 20)
	colA := newCollector()
	pcA := newPushConsumer(t, c, groupA, topic, selectAll, colA)
	colA.waitFor(t, consumedIDs, consumeTimeout)
	waitDrained(t, pcA, topic)
	commitAndShutdown(t, pcA, b, groupA, topic, queues)

	pendingIDs, pendingRes := sendN(t, p, topic, "pending", 20)
	require.NoError(t, p.Shutdown())
	waitDispatched(t, b, topic, consumedRes, pendingRes)
	maxBefore, committedBefore := queueStates(t, b, groupA, topic, queues)
	t.Logf("before restart: max offsets %v, committed offsets of %s %v", maxBefore, groupA, committedBefore)

	b.Restart()

	maxAfter, committedAfter := queueStates(t, b, groupA, topic, queues)
	require.Equal(t, maxBefore, maxAfter, "queue max offsets after a clean restart")
	require.Equal(t, committedBefore, committedAfter, "committed offsets of %s after a clean restart", groupA)
	waitRoute(t, c, topic, map[string]int{b.Name: queues})

	// New sends go on where each queue left off.
	p2 := newProducer(t, c)
	laterIDs, laterRes := sendN(t, p2, topic, "later", 8)
	for _, id := range laterIDs {
		r := laterRes[id]
		assert.GreaterOrEqual(t, r.QueueOffset, maxBefore[r.MessageQueue.QueueId],
			"%s: queue %d offset %d reuses an offset stored before the restart", id, r.MessageQueue.QueueId, r.QueueOffset)
	}

	// Group A resumes from its committed offsets.
	colA2 := newCollector()
	pcA2 := newPushConsumer(t, c, groupA, topic, selectAll, colA2)
	wantA := append(append([]string(nil), pendingIDs...), laterIDs...)
	colA2.waitFor(t, wantA, consumeTimeout)
	waitDrained(t, pcA2, topic)
	var again []string
	for id := range colA2.ids() {
		if strings.HasPrefix(id, "consumed-") {
			again = append(again, id)
		}
	}
	assert.Empty(t, again, "group %s re-received messages it had committed before the restart", groupA)

	// A fresh group reads everything from the first offset.
	colB := newCollector()
	newPushConsumer(t, c, uniq(t, "CGB"), topic, selectAll, colB)
	everything := append(append([]string(nil), consumedIDs...), wantA...)
	colB.waitFor(t, everything, consumeTimeout)
	for _, id := range everything {
		m := colB.first(id)
		assert.Equal(t, "body of "+id, string(m.Body), "%s: body after restart", id)
		assert.Equal(t, bodyCRC(m.Body), m.BodyCRC, "%s: body CRC after restart", id)
		assert.NotEmpty(t, m.GetProperty(primitive.PropertyUniqueClientMessageIdKeyIndex), "%s: UNIQ_KEY after restart", id)
	}
}

// commitAndShutdown waits until the broker holds, as group's committed offsets on every queue of
// topic, the queues' max offsets, then shuts the consumer down and checks that the shutdown left
// them so.
//
// The Go client commits asynchronously: oneway UPDATE_CONSUMER_OFFSET every 5 s (the first 10 s
// after it starts) and once more in Shutdown, immediately before it closes its connections. That
// close is often a TCP reset (responses are still unread), and a reset discards whatever the broker
// had not yet read, so the shutdown commit is lost at random, as it would be with a Java broker.
// Waiting for a periodic commit first makes what the broker holds independent of that race.
func commitAndShutdown(t testing.TB, pc rocketmq.PushConsumer, b *cluster.Broker, group, topic string, queues int) []int64 {
	t.Helper()
	committed := waitCommitted(t, b, group, topic, queues)
	require.NoError(t, pc.Shutdown(), "shut down the consumer of %s", group)
	_, after := queueStates(t, b, group, topic, queues)
	require.Equal(t, committed, after, "committed offsets of %s changed when its consumer shut down", group)
	return committed
}
