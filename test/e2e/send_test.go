package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

var offsetMsgID = regexp.MustCompile(`^[0-9A-F]{32}$`)

// TestSendModes sends to a topic nobody created, so the broker creates it from TBW102, in the four
// ways a producer can: sync, async, oneway and batch. Every send must succeed with a well-formed
// result, and one consumer group must then read back every message, each at the queue and offset
// its send result named.
func TestSendModes(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	p := newProducer(t, c)
	var want []string

	// Sync. The first send finds no route for the topic and goes through TBW102's.
	syncIDs, syncRes := sendN(t, p, topic, "sync", 10)
	want = append(want, syncIDs...)
	seenOffsetIDs := map[string]string{}
	for _, id := range syncIDs {
		r := syncRes[id]
		assert.Equal(t, topic, r.MessageQueue.Topic, "%s: result topic", id)
		assert.Equal(t, b.Name, r.MessageQueue.BrokerName, "%s: result broker", id)
		assert.NotEmpty(t, r.MsgID, "%s: MsgID (the client's UNIQ_KEY)", id)
		assert.Regexp(t, offsetMsgID, r.OffsetMsgID, "%s: the broker's msgId ext field", id)
		if other, dup := seenOffsetIDs[r.OffsetMsgID]; dup {
			t.Errorf("%s and %s got the same offset msgId %s", other, id, r.OffsetMsgID)
		}
		seenOffsetIDs[r.OffsetMsgID] = id
	}
	// The broker auto-created the topic and registered it with the nameserver.
	waitRoute(t, c, topic, map[string]int{b.Name: 4})

	// Async.
	type asyncResult struct {
		id  string
		res *primitive.SendResult
		err error
	}
	const asyncN = 10
	results := make(chan asyncResult, asyncN)
	for i := range asyncN {
		id := fmt.Sprintf("async-%d", i)
		want = append(want, id)
		err := p.SendAsync(context.Background(), func(_ context.Context, r *primitive.SendResult, err error) {
			results <- asyncResult{id, r, err}
		}, message(topic, id, []byte("body of "+id)))
		require.NoError(t, err, "SendAsync %s", id)
	}
	deadline := time.After(sendTimeout + 5*time.Second)
	for i := range asyncN {
		select {
		case r := <-results:
			if assert.NoError(t, r.err, "async send %s", r.id) {
				assert.Equal(t, primitive.SendOK, r.res.Status, "async send %s", r.id)
				assert.Regexp(t, offsetMsgID, r.res.OffsetMsgID, "async send %s", r.id)
			}
		case <-deadline:
			t.Fatalf("only %d of %d async send callbacks ran", i, asyncN)
		}
	}

	// Oneway: nothing comes back; the consumer proves they were stored.
	for i := range 10 {
		id := fmt.Sprintf("oneway-%d", i)
		want = append(want, id)
		require.NoError(t, p.SendOneWay(context.Background(), message(topic, id, []byte("body of "+id))), "SendOneWay %s", id)
	}

	// Batch: one SEND_BATCH_MESSAGE, one queue, consecutive offsets, comma-joined offset ids.
	var batch []*primitive.Message
	var batchIDs []string
	for i := range 10 {
		id := fmt.Sprintf("batch-%d", i)
		batchIDs = append(batchIDs, id)
		batch = append(batch, message(topic, id, []byte("body of "+id)))
	}
	want = append(want, batchIDs...)
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
	batchRes, err := p.SendSync(ctx, batch...)
	cancel()
	require.NoError(t, err, "batch SendSync")
	require.Equal(t, primitive.SendOK, batchRes.Status, "batch: %v", batchRes)
	batchOffsetIDs := strings.Split(batchRes.OffsetMsgID, ",")
	require.Len(t, batchOffsetIDs, len(batch), "batch: msgId must list one offset id per message: %q", batchRes.OffsetMsgID)
	for _, id := range batchOffsetIDs {
		assert.Regexp(t, offsetMsgID, id, "batch offset msgId")
	}

	col := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col)
	col.waitFor(t, want, consumeTimeout)

	for _, id := range want {
		m := col.first(id)
		assert.Equal(t, "body of "+id, string(m.Body), "%s: body", id)
		assert.Equal(t, topic, m.Topic, "%s: topic", id)
	}
	for _, id := range syncIDs {
		m, r := col.first(id), syncRes[id]
		assert.Equal(t, r.MessageQueue.QueueId, m.Queue.QueueId, "%s: consumed from another queue than the send result named", id)
		assert.Equal(t, r.QueueOffset, m.QueueOffset, "%s: queue offset", id)
		assert.Equal(t, r.OffsetMsgID, m.OffsetMsgId, "%s: offset msgId (store host + commit log offset)", id)
		assert.Equal(t, r.MsgID, m.MsgId, "%s: UNIQ_KEY", id)
	}
	for i, id := range batchIDs {
		m := col.first(id)
		assert.Equal(t, batchRes.MessageQueue.QueueId, m.Queue.QueueId, "%s: batch messages share one queue", id)
		assert.Equal(t, batchRes.QueueOffset+int64(i), m.QueueOffset, "%s: batch messages take consecutive offsets in order", id)
		assert.Equal(t, batchOffsetIDs[i], m.OffsetMsgId, "%s: offset msgId in the batch send result", id)
	}
	if dups := duplicates(col); len(dups) > 0 {
		t.Errorf("one consumer in a fresh group received messages more than once: %v", dups)
	}
}

// duplicates lists ids a collector received more than once.
func duplicates(col *collector) map[string]int {
	out := map[string]int{}
	for id, n := range col.ids() {
		if n > 1 {
			out[id] = n
		}
	}
	return out
}
