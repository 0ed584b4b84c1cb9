package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestConsumeLaterRetries: a push consumer that answers ConsumeRetryLater gets the message again
// from the group's retry topic (the Go client sends CONSUMER_SEND_MSG_BACK; the broker delays the
// message by its retry level and re-delivers it), with the same message id and a raised reconsume
// count; once it answers ConsumeSuccess the message stops coming.
func TestConsumeLaterRetries(t *testing.T) {
	t.Parallel()
	// Every delay level is one second so that the retries are quick.
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{
		"messageDelayLevel": "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s"}})
	topic, group := uniq(t, "T"), uniq(t, "CG")
	createTopic(t, c, topic, 2)
	// The Go client refreshes routes every 30 s; with the retry topic routed before it starts, it
	// pulls the retries at once instead of after its first refresh.
	createTopic(t, c, "%RETRY%"+group, 1)

	var mu sync.Mutex
	var attempts []*primitive.MessageExt
	third := make(chan struct{})
	consume := func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			attempts = append(attempts, m)
			if len(attempts) == 3 {
				close(third)
			}
			if len(attempts) < 3 {
				return consumer.ConsumeRetryLater, nil
			}
		}
		return consumer.ConsumeSuccess, nil
	}
	pc, err := rocketmq.NewPushConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(group),
		consumer.WithInstance(uniq(t, "cons")),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithConsumeMessageBatchMaxSize(1),
	)
	require.NoError(t, err)
	require.NoError(t, pc.Subscribe(topic, selectAll, consume))
	require.NoError(t, pc.Start())
	t.Cleanup(func() { _ = pc.Shutdown() })

	p := newProducer(t, c)
	res := sendSync(t, p, message(topic, "retry-1", []byte("try me thrice")))

	select {
	case <-third:
	case <-time.After(consumeTimeout):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the message was delivered %d times, want 3", len(attempts))
	}
	// The third attempt succeeded: no fourth delivery comes within a few retry delays.
	time.Sleep(3 * time.Second)
	mu.Lock()
	got := append([]*primitive.MessageExt(nil), attempts...)
	mu.Unlock()
	require.Len(t, got, 3)
	for i, m := range got {
		require.Equal(t, res.MsgID, m.MsgId, "attempt %d keeps the message id", i)
		require.Equal(t, topic, m.Topic, "attempt %d is shown under its own topic", i)
		require.Equal(t, "try me thrice", string(m.Body))
		require.Equal(t, int32(i), m.ReconsumeTimes, "attempt %d", i)
	}
}
