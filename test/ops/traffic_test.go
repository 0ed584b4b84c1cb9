package ops

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

const queues = 4

// createTopic creates topic on the broker at brokerAddr and waits until the name server routes it.
func createTopic(t testing.TB, namesrvAddr, brokerAddr, topic string) {
	t.Helper()
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{namesrvAddr})))
	require.NoError(t, err)
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, adm.CreateTopic(ctx, admin.WithTopicCreate(topic), admin.WithBrokerAddrCreate(brokerAddr),
		admin.WithReadQueueNums(queues), admin.WithWriteQueueNums(queues)))
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		route, _, err := cluster.RouteInfo(ctx, namesrvAddr, topic)
		return err == nil && route != nil && len(route.QueueDatas) > 0
	}, readyTimeout, 100*time.Millisecond, "route of %s", topic)
}

// sender sends to one topic from a few goroutines until stopped, keeping the message id of every
// send the broker acknowledged (SEND_OK).
type sender struct {
	p       rocketmq.Producer
	stopc   chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	acked   map[string]bool
	nAcked  atomic.Int64
	nFailed atomic.Int64
}

func startSender(t testing.TB, namesrvAddr, topic string) *sender {
	t.Helper()
	// The Go client shares one client per instance name in a process, and refuses a second one with
	// other name servers: each test's producer needs its own instance.
	p, err := rocketmq.NewProducer(producer.WithNameServer(primitive.NamesrvAddr{namesrvAddr}),
		producer.WithGroupName("PG_ops_"+topic), producer.WithInstanceName("ops_"+topic),
		producer.WithRetry(1), producer.WithSendMsgTimeout(5*time.Second))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	s := &sender{p: p, stopc: make(chan struct{}), acked: map[string]bool{}}
	for range 2 {
		s.wg.Add(1)
		go s.loop(topic)
	}
	t.Cleanup(s.stop)
	return s
}

func (s *sender) loop(topic string) {
	defer s.wg.Done()
	for {
		select {
		case <-s.stopc:
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
		res, err := s.p.SendSync(ctx, primitive.NewMessage(topic, []byte("sent while the servers stop")))
		cancel()
		if err != nil || res.Status != primitive.SendOK {
			s.nFailed.Add(1)
			time.Sleep(20 * time.Millisecond)
			continue
		}
		s.mu.Lock()
		s.acked[res.MsgID] = true
		s.mu.Unlock()
		s.nAcked.Add(1)
	}
}

// waitAcked waits until n sends were acknowledged.
func (s *sender) waitAcked(t testing.TB, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return s.nAcked.Load() >= n }, readyTimeout, 10*time.Millisecond,
		"%d sends acknowledged (%d failed)", s.nAcked.Load(), s.nFailed.Load())
}

// stop ends the sending goroutines and the producer; it returns the acknowledged ids.
func (s *sender) stop() {
	select {
	case <-s.stopc:
		return
	default:
	}
	close(s.stopc)
	s.wg.Wait()
	_ = s.p.Shutdown()
}

func (s *sender) ackedIDs() map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]bool, len(s.acked))
	for id := range s.acked {
		out[id] = true
	}
	return out
}

// storedIDs pulls every queue of topic on the broker from its first offset and returns the
// UNIQ_KEY (the producer's message id) of every stored message.
func storedIDs(t testing.TB, brokerAddr, topic string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	for q := range queues {
		for off := int64(0); ; {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			res, err := cluster.Pull(ctx, brokerAddr, cluster.PullRequest{Group: "ops_check", Topic: topic, QueueID: q,
				Offset: off, MaxMsgs: 32})
			cancel()
			require.NoError(t, err)
			if res.Code != cluster.CodeSuccess {
				require.Equal(t, cluster.CodePullNotFound, res.Code, "pull %s/%d@%d: %s", topic, q, off, res.Remark)
				break
			}
			for _, m := range res.Messages {
				got[m.Properties["UNIQ_KEY"]] = true
			}
			off = res.NextBeginOffset
		}
	}
	return got
}

// requireAllStored checks that every acknowledged id is stored.
func requireAllStored(t testing.TB, acked, stored map[string]bool) {
	t.Helper()
	var missing []string
	for id := range acked {
		if !stored[id] {
			missing = append(missing, id)
		}
	}
	require.Empty(t, missing, "%d of %d acknowledged messages are not in the store", len(missing), len(acked))
}
