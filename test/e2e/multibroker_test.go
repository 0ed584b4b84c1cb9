package e2e

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestTwoBrokersOneTopic runs two masters with different brokerNames in one cluster (the second
// told where the nameserver is by `-n` rather than broker.conf) and creates a topic on both. The
// nameserver must list both in its cluster info and route the topic to both; a producer must
// spread its messages over the queues of both (both brokerNames appear in the send results); one
// consumer group must read every message, each from the broker that stored it; and both brokers
// and the nameserver must stop cleanly on SIGINT.
func TestTwoBrokersOneTopic(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{Brokers: []string{"broker-a"}})
	c.AddBroker("broker-b", map[string]string{"namesrvAddr": ""})
	topic := uniq(t, "T")
	const queues = 4
	createTopic(t, c, topic, queues, "broker-a", "broker-b")

	ctxInfo, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	info, resp, err := cluster.GetClusterInfo(ctxInfo, c.NamesrvAddr())
	cancel()
	if assert.NoError(t, err) && assert.NotNil(t, info, "GET_BROKER_CLUSTER_INFO: %v", resp) {
		assert.ElementsMatch(t, []string{"broker-a", "broker-b"}, info.ClusterAddrTable[c.Name], "brokers of cluster %s", c.Name)
		for _, b := range c.Brokers {
			assert.Equal(t, b.Addr, info.BrokerAddrTable[b.Name].BrokerAddrs["0"], "master address of %s", b.Name)
		}
	}

	p := newProducer(t, c)
	ids, results := sendN(t, p, topic, "m", 40)
	perBroker := map[string]int{}
	perQueue := map[string]int{}
	for _, r := range results {
		perBroker[r.MessageQueue.BrokerName]++
		perQueue[mqKey(r.MessageQueue)]++
	}
	t.Logf("messages per broker %v, per queue %v", perBroker, perQueue)
	require.Len(t, perBroker, 2, "the producer must use both brokers: %v", perBroker)
	assert.Len(t, perQueue, 2*queues, "the producer must use every queue of both brokers: %v", perQueue)

	col := newCollector()
	cons := newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col)
	col.waitFor(t, ids, consumeTimeout)
	for _, id := range ids {
		m, r := col.first(id), results[id]
		assert.Equal(t, c.Broker(r.MessageQueue.BrokerName).Addr, m.StoreHost, "%s: store host", id)
		assert.Equal(t, r.OffsetMsgID, m.OffsetMsgId, "%s: offset msgId", id)
		assert.Equal(t, r.QueueOffset, m.QueueOffset, "%s: queue offset", id)
		assert.Equal(t, "body of "+id, string(m.Body), "%s: body", id)
	}
	if dups := duplicates(col); len(dups) > 0 {
		t.Errorf("one consumer in a fresh group received messages more than once: %v", dups)
	}

	require.NoError(t, cons.Shutdown())
	require.NoError(t, p.Shutdown())
	for _, b := range c.Brokers {
		assert.NoError(t, b.StopWith(syscall.SIGINT), "broker %s on SIGINT", b.Name)
	}
	assert.NoError(t, c.Namesrv.StopWith(syscall.SIGINT), "nameserver on SIGINT")
}
