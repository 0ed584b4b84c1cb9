package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// sqlSelector selects the messages sqlMatches accepts.
var sqlSelector = consumer.MessageSelector{Type: consumer.SQL92, Expression: "a > 5 AND color = 'red'"}

func sqlMatches(a int, color string) bool { return a > 5 && color == "red" }

// sendSQLMessages sends n messages with user properties a = i%10 + 1 and color red or blue (and a
// tag on some, which the SQL92 selector ignores); it returns the ids the selector must deliver and
// the send results.
func sendSQLMessages(t *testing.T, p rocketmq.Producer, topic string, n int) ([]string, map[string]*primitive.SendResult) {
	t.Helper()
	var want []string
	results := map[string]*primitive.SendResult{}
	for i := range n {
		a, color := i%10+1, []string{"red", "blue", "red"}[i%3]
		id := fmt.Sprintf("a%d-%s-%d", a, color, i)
		m := message(topic, id, []byte(id))
		m.WithProperty("a", strconv.Itoa(a))
		m.WithProperty("color", color)
		if i%4 == 0 {
			m.WithTag("TagX")
		}
		results[id] = sendSync(t, p, m)
		if sqlMatches(a, color) {
			want = append(want, id)
		}
	}
	return want, results
}

// TestSQL92PushConsumer: a push consumer subscribed with a SQL92 selector, on a broker with
// enablePropertyFilter=true, receives exactly the messages the expression selects. The Go client
// does not filter SQL92 subscriptions itself, so every other message staying away shows the broker
// filtering (by the subscription of the group's heartbeat: the push consumer pulls without one),
// and the consumer's offsets still reach the end of every queue.
func TestSQL92PushConsumer(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"enablePropertyFilter": "true"}})
	topic := uniq(t, "T")
	createTopic(t, c, topic, 4)

	col := newCollector()
	pc := newPushConsumer(t, c, uniq(t, "CG"), topic, sqlSelector, col)
	p := newProducer(t, c)
	want, _ := sendSQLMessages(t, p, topic, 60)
	// The Go client counts a queue drained once its offset reaches the queue's end, but it moves
	// its offset past messages the broker left out only when a later pull finds nothing: a queue
	// ending in filtered messages looks undrained until its held pull times out (20 s). A selected
	// message last in every queue (the producer sends round robin) avoids that wait.
	for q := range 4 {
		id := fmt.Sprintf("tail-%d", q)
		m := message(topic, id, []byte(id))
		m.WithProperty("a", "10")
		m.WithProperty("color", "red")
		sendSync(t, p, m)
		want = append(want, id)
	}

	col.waitFor(t, want, consumeTimeout)
	waitDrained(t, pc, topic)
	wanted := map[string]bool{}
	for _, id := range want {
		wanted[id] = true
	}
	for id := range col.ids() {
		if !wanted[id] {
			m := col.first(id)
			t.Errorf("selector %q delivered %s (a=%s color=%s)", sqlSelector.Expression, id, m.GetProperty("a"), m.GetProperty("color"))
		}
	}
}

// TestSQL92PullConsumer reads every queue from offset 0 with the pull consumer's PullFrom and a
// SQL92 subscription: each answer holds only selected messages, in queue order, and nextBeginOffset
// moves past the ones left out (NoMsgMatched when a batch selects none).
func TestSQL92PullConsumer(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"enablePropertyFilter": "true"}})
	topic := uniq(t, "T")
	createTopic(t, c, topic, 2)
	p := newProducer(t, c)
	want, results := sendSQLMessages(t, p, topic, 40)
	perQueue := waitDispatched(t, c.Brokers[0], topic, results)

	pull, err := rocketmq.NewPullConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(uniq(t, "PULL")),
		consumer.WithInstance(uniq(t, "pull")),
	)
	require.NoError(t, err)
	require.NoError(t, pull.Subscribe(topic, sqlSelector))
	require.NoError(t, pull.Start(), "start pull consumer")
	t.Cleanup(func() { _ = pull.Shutdown() })
	mqs, err := pull.GetTopicRouteInfo(topic)
	require.NoError(t, err)

	got := map[string]bool{}
	for _, mq := range mqs {
		count := perQueue[mq.QueueId]
		// Never pull at the end of a queue: the pull consumer asks the broker to hold such a pull.
		for off := int64(0); off < count; {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			res, err := pull.PullFrom(ctx, mq, off, 4)
			cancel()
			require.NoError(t, err, "PullFrom %s @%d", mq, off)
			require.Contains(t, []primitive.PullStatus{primitive.PullFound, primitive.PullNoMsgMatched}, res.Status,
				"PullFrom %s @%d (queue holds %d)", mq, off, count)
			require.Greater(t, res.NextBeginOffset, off, "PullFrom %s @%d did not advance", mq, off)
			last := off - 1
			for _, m := range res.GetMessageExts() {
				a, _ := strconv.Atoi(m.GetProperty("a"))
				assert.True(t, sqlMatches(a, m.GetProperty("color")), "%s: a=%d color=%s is not selected", m.GetProperty(idProp), a, m.GetProperty("color"))
				assert.Greater(t, m.QueueOffset, last, "queue order")
				last = m.QueueOffset
				got[m.GetProperty(idProp)] = true
			}
			off = res.NextBeginOffset
		}
	}
	var missing []string
	for _, id := range want {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	assert.Empty(t, missing, "selected messages the pull consumer never read")
	assert.Len(t, got, len(want))
}

// TestSQL92PollingPullConsumer: the pull consumer's Poll loop sends its SQL92 expression labelled
// TAG (a Go client quirk); the broker recognises the group's SQL92 subscription from the heartbeat
// and filters by it, so Poll yields exactly the selected messages.
func TestSQL92PollingPullConsumer(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"enablePropertyFilter": "true"}})
	topic := uniq(t, "T")
	createTopic(t, c, topic, 2)
	p := newProducer(t, c)
	want, _ := sendSQLMessages(t, p, topic, 40)

	pull, err := rocketmq.NewPullConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(uniq(t, "POLL")),
		consumer.WithInstance(uniq(t, "poll")),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
	)
	require.NoError(t, err)
	require.NoError(t, pull.Subscribe(topic, sqlSelector))
	require.NoError(t, pull.Start(), "start pull consumer")
	t.Cleanup(func() { _ = pull.Shutdown() })

	wanted := map[string]bool{}
	for _, id := range want {
		wanted[id] = true
	}
	got := map[string]bool{}
	deadline := time.Now().Add(consumeTimeout)
	for len(got) < len(want) && time.Now().Before(deadline) {
		cr, err := pull.Poll(context.Background(), 2*time.Second)
		if err != nil {
			continue // ErrNoNewMsg
		}
		for _, m := range cr.GetMsgList() {
			id := m.GetProperty(idProp)
			assert.True(t, wanted[id], "Poll delivered %s (a=%s color=%s)", id, m.GetProperty("a"), m.GetProperty("color"))
			got[id] = true
		}
		pull.ACK(context.Background(), cr, consumer.ConsumeSuccess)
	}
	require.Len(t, got, len(want), "selected messages polled within %v", consumeTimeout)
}
