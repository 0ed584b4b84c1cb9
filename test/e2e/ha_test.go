package e2e

import (
	"context"
	"os"
	"path/filepath"
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

// haQueues is the queue count of the replicated topics.
const haQueues = 4

// waitSlaveRoute waits until the nameserver routes topic to broker-a's slave only: the master's
// registration is gone (its connection closed) and the slave's remains.
func waitSlaveRoute(t *testing.T, c *cluster.Cluster, topic string, s *cluster.Slave) {
	t.Helper()
	var last string
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
		last = string(r.Raw)
		if _, ok := r.Queues(s.Name); !ok {
			return false
		}
		for _, bd := range r.BrokerDatas {
			if bd.BrokerName == s.Name {
				_, master := bd.BrokerAddrs["0"]
				return !master && bd.BrokerAddrs["1"] == s.Addr
			}
		}
		return false
	})
	require.True(t, ok, "the route of %s still names a master, or not the slave: %s", topic, last)
}

// requireSameRecords pulls every queue of topic raw from the master and from the slave and
// requires the same records: the slave serves the master's bytes. It first waits until the slave
// knows the topic (its metadata sync runs every 10 s).
func requireSameRecords(t *testing.T, master *cluster.Broker, s *cluster.Slave, topic string, want map[int]int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	for q, n := range want {
		req := cluster.PullRequest{Group: "CG_RAW", Topic: topic, QueueID: q, MaxMsgs: 32}
		mr, err := cluster.Pull(ctx, master.Addr, req)
		require.NoError(t, err)
		var sr *cluster.PullResult
		ok := eventually(settleTimeout, 100*time.Millisecond, func() bool {
			sr, err = cluster.Pull(ctx, s.Addr, req)
			require.NoError(t, err)
			return sr.Code == cluster.CodeSuccess
		})
		require.True(t, ok, "raw pull of %s/%d from the slave: %d %s", topic, q, sr.Code, sr.Remark)
		require.Len(t, sr.Messages, int(n), "queue %d", q)
		require.Equal(t, mr.Messages, sr.Messages, "queue %d: the slave's records differ from the master's", q)
	}
}

// TestSlaveServesConsumersWhenMasterIsGone: a producer sends to the master of broker-a; the
// messages appear on its slave (brokerId 1, brokerRole SLAVE) byte for byte; the master is killed;
// a clustering push consumer that was already running continues from the slave and receives every
// message, and a push consumer that starts only now (broadcasting: the Go client reads clustering
// offsets from the master alone) receives every message from the slave too.
func TestSlaveServesConsumersWhenMasterIsGone(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	master := c.Broker("broker-a")
	s := c.AddSlave("broker-a", 1, nil)
	topic := uniq(t, "HA")
	createTopic(t, c, topic, haQueues, "broker-a")

	// A consumer already running: its callback holds every message until the master is gone, and
	// it pulls one message at a time and at most a couple per queue ahead, so nearly all of them
	// must be pulled after the master died, i.e. from the slave.
	gate := make(chan struct{})
	var gateOnce sync.Once
	openGate := func() { gateOnce.Do(func() { close(gate) }) }
	running := newCollector()
	var (
		firstSeenMu sync.Mutex
		firstSeen   = map[string]time.Time{}
	)
	hold := func(ctx context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
		now := time.Now()
		firstSeenMu.Lock()
		for _, m := range msgs {
			if _, ok := firstSeen[m.GetProperty(idProp)]; !ok {
				firstSeen[m.GetProperty(idProp)] = now
			}
		}
		firstSeenMu.Unlock()
		<-gate
		return running.consume(ctx, msgs...)
	}
	pc, err := rocketmq.NewPushConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(uniq(t, "CG_RUN")),
		consumer.WithInstance(uniq(t, "cons")),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithPullBatchSize(1),
		consumer.WithPullThresholdForQueue(1),
		consumer.WithPullThresholdForTopic(haQueues), // else it sets the queue threshold to topic/queues
		consumer.WithConsumeMessageBatchMaxSize(1))
	require.NoError(t, err)
	require.NoError(t, pc.Subscribe(topic, selectAll, hold))
	require.NoError(t, pc.Start())
	t.Cleanup(func() {
		openGate() // its callbacks must return before it can shut down
		_ = pc.Shutdown()
	})

	p := newProducer(t, c)
	const n = 60
	ids, results := sendN(t, p, topic, "ha", n)
	want := waitDispatched(t, master, topic, results)
	waitDispatched(t, s.Broker, topic, results) // replicated, dispatched and topic synced on the slave
	requireSameRecords(t, master, s, topic, want)

	require.NoError(t, master.Kill())
	killed := time.Now()
	waitSlaveRoute(t, c, topic, s)
	openGate()

	// The consumer that was running gets everything, most of it pulled after the kill.
	running.waitFor(t, ids, consumeTimeout)
	firstSeenMu.Lock()
	before := 0
	for _, seen := range firstSeen {
		if seen.Before(killed) {
			before++
		}
	}
	firstSeenMu.Unlock()
	t.Logf("running consumer: %d of %d messages delivered before the master was killed", before, n)
	assert.LessOrEqual(t, before, 3*haQueues, "the running consumer must read most messages from the slave")

	// A consumer that starts now reads everything from the slave. Broadcasting consumers keep
	// their offsets in files under $HOME: the group name must be new to every run.
	group := uniq(t, "CG_LATE") + "_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	t.Cleanup(func() { removeLocalOffsets(group) })
	late := newCollector()
	newPushConsumer(t, c, group, topic, selectAll, late, consumer.WithConsumerModel(consumer.BroadCasting))
	late.waitFor(t, ids, consumeTimeout)
	for _, id := range ids {
		m, r := late.first(id), results[id]
		assert.Equal(t, "body of "+id, string(m.Body), "%s: body", id)
		assert.Equal(t, r.QueueOffset, m.QueueOffset, "%s: queue offset", id)
		assert.Equal(t, r.OffsetMsgID, m.OffsetMsgId, "%s: offset msgId (the master's store host and offset)", id)
		assert.Equal(t, master.Addr, m.StoreHost, "%s: store host", id)
	}
}

// removeLocalOffsets deletes the offsets a broadcasting Go consumer group wrote under
// $HOME/.rocketmq_client_go/<group>, and the directory itself when nothing else is left in it.
func removeLocalOffsets(group string) {
	home := os.Getenv("HOME")
	if home == "" {
		return
	}
	root := filepath.Join(home, ".rocketmq_client_go")
	_ = os.RemoveAll(filepath.Join(root, group))
	_ = os.Remove(root) // only if empty
}

// TestSyncMasterSlaveNotAvailable: with brokerRole=SYNC_MASTER, sends succeed (SEND_OK) while the
// slave runs, get SLAVE_NOT_AVAILABLE while it is stopped (the message is stored all the same and
// reaches the slave once it is back), and succeed again after it returns.
func TestSyncMasterSlaveNotAvailable(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"brokerRole": "SYNC_MASTER"}})
	master := c.Broker("broker-a")
	topic := uniq(t, "HASYNC")
	createTopic(t, c, topic, 1, "broker-a")
	p := newProducer(t, c)
	results := map[string]*primitive.SendResult{} // every send: each one stored the message
	seq := 0
	send := func(prefix string) *primitive.SendResult {
		seq++
		id := prefix + "-" + strconv.Itoa(seq)
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
		defer cancel()
		res, err := p.SendSync(ctx, message(topic, id, []byte("body of "+id)))
		require.NoError(t, err, "SendSync of %s", id)
		results[id] = res
		return res
	}
	require.Equal(t, primitive.SendSlaveNotAvailable, send("alone").Status, "no slave yet")

	s := c.AddSlave("broker-a", 1, nil)
	require.True(t, eventually(settleTimeout, 50*time.Millisecond, func() bool {
		return send("warmup").Status == primitive.SendOK
	}), "sends never succeeded with the slave running")
	for range 5 {
		require.Equal(t, primitive.SendOK, send("ok").Status, "a send with the slave running")
	}

	require.NoError(t, s.Stop())
	require.True(t, eventually(settleTimeout, 50*time.Millisecond, func() bool {
		return send("probe").Status == primitive.SendSlaveNotAvailable
	}), "sends kept succeeding with the slave stopped")
	require.Equal(t, primitive.SendSlaveNotAvailable, send("down").Status)

	s.StartAgain()
	require.True(t, eventually(settleTimeout, 50*time.Millisecond, func() bool {
		return send("after").Status == primitive.SendOK
	}), "sends did not succeed again once the slave was back")
	want := waitDispatched(t, master, topic, results)
	waitDispatched(t, s.Broker, topic, results) // what was sent while it was down reached it too
	requireSameRecords(t, master, s, topic, want)
}
