package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestSyncFlushMessagesSurviveKill sends to a SYNC_FLUSH broker, kills it with SIGKILL right after
// the last acknowledgement, and starts it again on the same store. Every acknowledged message must
// still be there at the queue offset its send result named (the queues' max offsets unchanged),
// readable with its body by a fresh group, and the broker must accept new messages after its
// recovery. (The long kill -9 run in both flush modes is `make test-crash`.)
func TestSyncFlushMessagesSurviveKill(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"flushDiskType": "SYNC_FLUSH"}})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	const queues = 4
	createTopic(t, c, topic, queues)

	p := newProducer(t, c)
	ids, results := sendN(t, p, topic, "acked", 40)
	require.NoError(t, b.Kill(), "kill -9 the broker")
	t.Logf("killed the broker right after the last acknowledgement: %s", b.ExitStatus())
	require.NoError(t, p.Shutdown())
	want := expectedCounts(b, results)

	b.StartAgain()
	maxAfter := maxOffsets(t, b, topic, queues)
	for q, n := range want {
		assert.Equal(t, n, maxAfter[q], "queue %d: max offset after recovery from kill -9", q)
	}

	p2 := newProducer(t, c)
	laterIDs, laterRes := sendN(t, p2, topic, "later", 8)
	for _, id := range laterIDs {
		r := laterRes[id]
		assert.GreaterOrEqual(t, r.QueueOffset, want[r.MessageQueue.QueueId],
			"%s: queue %d offset %d reuses an acknowledged message's offset", id, r.MessageQueue.QueueId, r.QueueOffset)
	}

	col := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col)
	all := append(append([]string(nil), ids...), laterIDs...)
	col.waitFor(t, all, consumeTimeout)
	for _, id := range ids {
		m, r := col.first(id), results[id]
		assert.Equal(t, "body of "+id, string(m.Body), "%s: body after kill -9", id)
		assert.Equal(t, r.MessageQueue.QueueId, m.Queue.QueueId, "%s: queue after kill -9", id)
		assert.Equal(t, r.QueueOffset, m.QueueOffset, "%s: queue offset after kill -9", id)
		assert.Equal(t, r.OffsetMsgID, m.OffsetMsgId, "%s: commit log position after kill -9", id)
	}
}
