package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// txListener decides each transaction by the message's idProp: at send time from decide, on a
// check-back from checked. It records the ids it was asked about on a check-back.
type txListener struct {
	decide  map[string]primitive.LocalTransactionState
	checked map[string]primitive.LocalTransactionState

	mu   sync.Mutex
	asks map[string]int
}

func (l *txListener) ExecuteLocalTransaction(m *primitive.Message) primitive.LocalTransactionState {
	return l.decide[m.GetProperty(idProp)]
}

func (l *txListener) CheckLocalTransaction(m *primitive.MessageExt) primitive.LocalTransactionState {
	id := m.GetProperty(idProp)
	l.mu.Lock()
	l.asks[id]++
	l.mu.Unlock()
	if s, ok := l.checked[id]; ok {
		return s
	}
	return primitive.RollbackMessageState
}

func (l *txListener) askedAbout() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int{}
	for k, v := range l.asks {
		out[k] = v
	}
	return out
}

// TestTransactionProducer: the Go client's transaction producer sends three half messages; the
// first is committed at once, the second rolled back, the third left unknown and committed when
// the broker checks it back (a pass every second for half messages older than a second). The
// consumer receives exactly the two committed messages, with the producer's message ids.
func TestTransactionProducer(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{
		"transactionCheckInterval": "1000",
		"transactionTimeOut":       "1000",
		// The Go producer heartbeats 1 s after Start, then every 30 s: checks before it has registered
		// find no connection, so leave room for them.
		"transactionCheckMax": "60",
	}})
	topic, group := uniq(t, "T"), uniq(t, "CG")
	createTopic(t, c, topic, 2)
	col := newCollector()
	newPushConsumer(t, c, group, topic, selectAll, col)

	l := &txListener{
		decide: map[string]primitive.LocalTransactionState{
			"tx-commit": primitive.CommitMessageState, "tx-rollback": primitive.RollbackMessageState,
			"tx-unknown": primitive.UnkonwnState},
		checked: map[string]primitive.LocalTransactionState{"tx-unknown": primitive.CommitMessageState},
		asks:    map[string]int{},
	}
	p, err := rocketmq.NewTransactionProducer(l,
		producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName(uniq(t, "PG")),
		producer.WithInstanceName(uniq(t, "txprod")),
		producer.WithRetry(2),
		producer.WithSendMsgTimeout(sendTimeout),
	)
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })

	sent := map[string]*primitive.TransactionSendResult{}
	for _, id := range []string{"tx-commit", "tx-rollback", "tx-unknown"} {
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
		res, err := p.SendMessageInTransaction(ctx, message(topic, id, []byte("body of "+id)))
		cancel()
		require.NoError(t, err, "send %s", id)
		require.Equal(t, primitive.SendOK, res.Status, "send %s: %v", id, res)
		require.Equal(t, l.decide[id], res.State, "send %s", id)
		require.Regexp(t, `^[0-9A-F]{32}$`, res.OffsetMsgID, "the half message's offset id, which the client parses back")
		sent[id] = res
	}

	col.waitFor(t, []string{"tx-commit", "tx-unknown"}, consumeTimeout)
	for _, id := range []string{"tx-commit", "tx-unknown"} {
		m := col.first(id)
		require.Equal(t, sent[id].MsgID, m.MsgId, "%s keeps the producer's message id", id)
		require.Equal(t, topic, m.Topic)
		require.Equal(t, "body of "+id, string(m.Body))
		require.Equal(t, sent[id].MsgID, m.TransactionId, "%s: TRAN_MSG stays on the committed message, so the consumer sees its transaction id", id)
	}
	require.GreaterOrEqual(t, l.askedAbout()["tx-unknown"], 1, "the unknown transaction was committed on a check-back")
	require.Zero(t, l.askedAbout()["tx-commit"], "a transaction ended at once is not checked")

	// Exactly the two committed messages are in the topic: the rollback was ended before the
	// unknown one's check-back, so anything it had put in the topic would be there by now.
	total := int64(0)
	for _, n := range maxOffsets(t, c.Brokers[0], topic, 2) {
		total += n
	}
	require.Equal(t, int64(2), total, "messages in the topic")
	ids := col.ids()
	require.NotContains(t, ids, "tx-rollback")
	require.Len(t, ids, 2, "the consumer received %v", ids)
}
