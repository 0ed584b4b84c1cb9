package interop

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// routeQueues is the queue count of the topic served by both brokers.
const routeQueues = 4

// TestMixedCluster: our broker and Apache's each register with Apache's name server and with
// ours; one topic lives on both brokers; a Go producer on either name server spreads its sends
// over both brokers, and a Go push consumer on either name server receives every message, with its
// body, tag, key, property, queue offset and store host.
func TestMixedCluster(t *testing.T) {
	eachVersion(t, func(t *testing.T, version string) {
		g := newGroup(t)
		goNS := startGoNamesrv(t, g)
		apNS := startApacheNamesrv(t, g, version)
		both := []*namesrv{goNS, apNS}
		goB := startBroker(t, g, brokerSpec{kind: "go", cluster: "MixedCluster", name: "go-a", namesrvs: both})
		apB := startBroker(t, g, brokerSpec{kind: version, cluster: "MixedCluster", name: "apache-a", namesrvs: both})
		brokers := []*broker{goB, apB}

		topic := uniq(t, "MIX")
		for _, b := range brokers {
			createTopic(t, b.Addr, topicConfig{TopicName: topic, ReadQueueNums: routeQueues,
				WriteQueueNums: routeQueues, Perm: 6, TopicFilterType: "SINGLE_TAG"})
		}
		for _, ns := range both {
			waitRoute(t, ns, topic, brokers)
		}

		sent := map[string]*primitive.SendResult{}
		var ids []string
		for _, ns := range both {
			p := newProducer(t, ns)
			for i := range 24 {
				id := fmt.Sprintf("%s-%d", ns.kind, i)
				sent[id] = sendOK(t, p, testMessage(topic, id, "Tag"+label(ns.kind)))
				ids = append(ids, id)
			}
		}
		requireBothBrokersUsed(t, sent, brokers)

		for _, ns := range both {
			col := newCollector()
			newPushConsumer(t, ns, uniq(t, "CG_"+label(ns.kind)), topic, col)
			col.waitFor(t, ids)
			requireDelivered(t, col, sent, brokers)
		}
	})
}

// waitRoute waits until ns routes topic to every broker with routeQueues read and write queues
// and the broker's address as master.
func waitRoute(t *testing.T, ns *namesrv, topic string, brokers []*broker) {
	t.Helper()
	var last string
	ok := eventually(settleTimeout, 200*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		r, resp, err := cluster.RouteInfo(ctx, ns.Addr, topic)
		if err != nil || r == nil {
			last = fmt.Sprintf("%v %v", err, resp)
			return false
		}
		last = string(r.Raw)
		for _, b := range brokers {
			q, found := r.Queues(b.Name)
			if !found || q.ReadQueueNums != routeQueues || q.WriteQueueNums != routeQueues || r.MasterAddr(b.Name) != b.Addr {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("interop: the %s name server's route of %s lacks a broker: %s", ns.kind, topic, last)
	}
}

// requireBothBrokersUsed: sends were spread over every broker and every queue of each.
func requireBothBrokersUsed(t *testing.T, sent map[string]*primitive.SendResult, brokers []*broker) {
	t.Helper()
	used := map[string]map[int]bool{}
	for _, r := range sent {
		if used[r.MessageQueue.BrokerName] == nil {
			used[r.MessageQueue.BrokerName] = map[int]bool{}
		}
		used[r.MessageQueue.BrokerName][r.MessageQueue.QueueId] = true
	}
	for _, b := range brokers {
		if len(used[b.Name]) != routeQueues {
			t.Fatalf("interop: sends used queues %v of %s, want all %d", used[b.Name], b.Name, routeQueues)
		}
	}
}

// requireDelivered: each message arrived with its content, from the broker and queue offset its
// send result named.
func requireDelivered(t *testing.T, col *collector, sent map[string]*primitive.SendResult, brokers []*broker) {
	t.Helper()
	addr := map[string]string{}
	for _, b := range brokers {
		addr[b.Name] = b.Addr
	}
	for id, r := range sent {
		m := col.first(id)
		want := "body of " + id + " · ünïcode"
		switch {
		case string(m.Body) != want:
			t.Errorf("%s: body %q, want %q", id, m.Body, want)
		case m.GetKeys() != id || m.GetTags() == "":
			t.Errorf("%s: keys %q tags %q", id, m.GetKeys(), m.GetTags())
		case m.Queue.BrokerName != r.MessageQueue.BrokerName || m.Queue.QueueId != r.MessageQueue.QueueId ||
			m.QueueOffset != r.QueueOffset:
			t.Errorf("%s: delivered from %s/%d@%d, sent to %s/%d@%d", id, m.Queue.BrokerName, m.Queue.QueueId,
				m.QueueOffset, r.MessageQueue.BrokerName, r.MessageQueue.QueueId, r.QueueOffset)
		case m.StoreHost != addr[r.MessageQueue.BrokerName]:
			t.Errorf("%s: store host %s, want %s", id, m.StoreHost, addr[r.MessageQueue.BrokerName])
		case m.MsgId != r.MsgID || m.OffsetMsgId != r.OffsetMsgID:
			t.Errorf("%s: msgId %s/%s, sent %s/%s", id, m.MsgId, m.OffsetMsgId, r.MsgID, r.OffsetMsgID)
		}
	}
}
