package interop

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// scheduleTopic holds delayed messages, one queue per delay level (queue id = level - 1).
const scheduleTopic = "SCHEDULE_TOPIC_XXXX"

// TestStoreMigration: a store written by one broker is opened by the other, both ways. The
// source broker gets topics of several shapes, subscription groups, messages (tags, keys, user
// properties, a compressed body, a batch), delayed messages (delivered and pending) and
// committed consumer offsets; it is stopped cleanly; the target broker starts on the same
// directory (same brokerName and store geometry, new ports) and must answer, through the wire,
// exactly what the source answered: every queue's records, key and id queries, consumer and delay
// offsets, topic and group configs.
func TestStoreMigration(t *testing.T) {
	eachVersion(t, func(t *testing.T, version string) {
		t.Run("ApacheToOurs", func(t *testing.T) { migrate(t, version, version, "go") })
		t.Run("OursToApache", func(t *testing.T) { migrate(t, version, "go", version) })
	})
}

func migrate(t *testing.T, version, from, to string) {
	g := newGroup(t)
	var ns *namesrv
	if from == "go" {
		ns = startGoNamesrv(t, g)
	} else {
		ns = startApacheNamesrv(t, g, version)
	}
	spec := brokerSpec{kind: from, cluster: "MoveCluster", name: "move-a", namesrvs: []*namesrv{ns}}
	src := startBroker(t, g, spec)
	w := fill(t, src, ns)
	before := takeSnapshot(t, src.Addr, w)
	if err := src.stop(); err != nil {
		t.Fatalf("interop: %v", err)
	}
	t.Logf("the %s wrote %d CommitLog bytes: %s", src.label(), mustEnd(t, src.StoreDir), before.summary())

	spec.kind, spec.storeDir = to, src.StoreDir
	dst := startBroker(t, g, spec)
	after := takeSnapshot(t, dst.Addr, w)
	requireSameSnapshot(t, before, after, w)
	t.Logf("the %s answers the same on its store", dst.label())

	// The target goes on where the source stopped: a new message lands after the old ones.
	p := newProducer(t, ns)
	res := sendOK(t, p, testMessage(w.topics[0], "after-the-move", "TagMove"))
	if want := int64(len(before.records[queueRef{w.topics[0], res.MessageQueue.QueueId}])); res.QueueOffset != want {
		t.Errorf("the first send after the move got queue offset %d, want %d", res.QueueOffset, want)
	}
}

func mustEnd(t *testing.T, storeDir string) int64 {
	t.Helper()
	end, err := commitLogEnd(storeDir)
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	return end
}

// fill writes the scenario's data into the broker b and returns what to read back.
func fill(t *testing.T, b *broker, ns *namesrv) *written {
	t.Helper()
	main, odd, delayed, readOnly := uniq(t, "MAIN"), uniq(t, "ODD"), uniq(t, "DELAY"), uniq(t, "RO")
	w := &written{topics: []string{main, odd, delayed}, queues: map[string]int{main: 4, odd: 3, delayed: 1}}
	for _, tc := range []topicConfig{
		{TopicName: main, ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: "SINGLE_TAG"},
		{TopicName: odd, ReadQueueNums: 3, WriteQueueNums: 3, Perm: 6, TopicFilterType: "SINGLE_TAG", TopicSysFlag: 0},
		{TopicName: delayed, ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6, TopicFilterType: "SINGLE_TAG"},
		{TopicName: readOnly, ReadQueueNums: 2, WriteQueueNums: 2, Perm: 4, TopicFilterType: "SINGLE_TAG"},
	} {
		createTopic(t, b.Addr, tc)
	}
	w.topics = append(w.topics, readOnly)
	w.queues[readOnly] = 0 // no messages: only its config is compared
	for _, gc := range []groupConfig{
		{GroupName: uniq(t, "GA"), ConsumeEnable: true, ConsumeFromMinEnable: true, RetryQueueNums: 1, RetryMaxTimes: 5,
			WhichBrokerWhenConsumeSlowly: 1, NotifyConsumerIdsChangedEnable: true},
		{GroupName: uniq(t, "GB"), ConsumeEnable: true, ConsumeBroadcastEnable: true, RetryQueueNums: 1, RetryMaxTimes: 3,
			WhichBrokerWhenConsumeSlowly: 1},
	} {
		createGroup(t, b.Addr, gc)
		w.groups = append(w.groups, gc.GroupName)
	}
	waitTopicRoute(t, ns, main, b)
	p := newProducer(t, ns)
	sendMessages(t, p, w, main, 40)
	sendMessages(t, p, w, odd, 9)
	sendBatch(t, p, w, main)
	sendDelayed(t, b, p, w, delayed)
	commitOffsets(t, b, w)
	return w
}

// waitTopicRoute waits until ns routes topic to b, so that the producer finds it.
func waitTopicRoute(t *testing.T, ns *namesrv, topic string, b *broker) {
	t.Helper()
	ok := eventually(settleTimeout, 200*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		r, _, err := cluster.RouteInfo(ctx, ns.Addr, topic)
		return err == nil && r != nil && r.MasterAddr(b.Name) == b.Addr
	})
	if !ok {
		t.Fatalf("interop: the %s name server never routed %s to %s", ns.kind, topic, b.Addr)
	}
}

// sendMessages sends n messages to topic, each with a key "<topic>:<i>", a tag, two user
// properties and, every tenth, a body over the Go client's 4 KiB compression threshold.
func sendMessages(t *testing.T, p rocketmq.Producer, w *written, topic string, n int) {
	t.Helper()
	for i := range n {
		key := fmt.Sprintf("%s:%d", topic, i)
		m := primitive.NewMessage(topic, []byte("body of "+key))
		if i%10 == 9 {
			m.Body = bytes.Repeat([]byte("compressible "+key+" "), 600)
		}
		m.WithKeys([]string{key, topic + ":shared-" + strconv.Itoa(i%3)})
		m.WithTag("Tag" + strconv.Itoa(i%4))
		m.WithProperty(idProp, key)
		m.WithProperty("colour", []string{"red", "grün", "青"}[i%3])
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
		res, err := p.SendSync(ctx, m)
		cancel()
		if err != nil || res.Status != primitive.SendOK {
			t.Fatalf("interop: send %s: %v %v", key, res, err)
		}
		if i%7 == 0 {
			w.keys = append(w.keys, key)
			w.offsetIDs = append(w.offsetIDs, res.OffsetMsgID)
			if topic == w.topics[0] {
				w.msgIDs = append(w.msgIDs, res.MsgID)
			}
		}
	}
	w.keys = append(w.keys, topic+":shared-1")
}

// sendBatch sends one batch of five messages to topic.
func sendBatch(t *testing.T, p rocketmq.Producer, w *written, topic string) {
	t.Helper()
	var batch []*primitive.Message
	for i := range 5 {
		key := fmt.Sprintf("%s:batch-%d", topic, i)
		m := primitive.NewMessage(topic, []byte("batched "+key))
		m.WithKeys([]string{key})
		m.WithProperty(idProp, key)
		batch = append(batch, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
	defer cancel()
	res, err := p.SendSync(ctx, batch...)
	if err != nil || res.Status != primitive.SendOK {
		t.Fatalf("interop: batch send: %v %v", res, err)
	}
	w.keys = append(w.keys, topic+":batch-3")
}

// sendDelayed sends three messages at delay level 1 (1 s), waits until the broker has delivered
// them to topic, and one at level 18 (2 h) that stays in the schedule topic.
func sendDelayed(t *testing.T, b *broker, p rocketmq.Producer, w *written, topic string) {
	t.Helper()
	for i, level := range []int{1, 1, 1, 18} {
		key := fmt.Sprintf("%s:delayed-%d", topic, i)
		m := primitive.NewMessage(topic, []byte("delayed "+key))
		m.WithKeys([]string{key})
		m.WithProperty(idProp, key)
		m.WithDelayTimeLevel(level)
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
		res, err := p.SendSync(ctx, m)
		cancel()
		if err != nil || res.Status != primitive.SendOK {
			t.Fatalf("interop: delayed send: %v %v", res, err)
		}
	}
	w.systemRead = append(w.systemRead, queueRef{scheduleTopic, 0}, queueRef{scheduleTopic, 17})
	w.keys = append(w.keys, topic+":delayed-2")
	ok := eventually(settleTimeout, 200*time.Millisecond, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
		defer cancel()
		n, err := cluster.MaxOffset(ctx, b.Addr, topic, 0)
		return err == nil && n == 3 && delayOffsets(t, b.Addr)["1"] == 3
	})
	if !ok {
		t.Fatalf("interop: the %s did not deliver the three level-1 messages to %s (delay offsets %v)",
			b.label(), topic, delayOffsets(t, b.Addr))
	}
}

// commitOffsets commits a distinct offset for each group on every queue of the first two topics.
func commitOffsets(t *testing.T, b *broker, w *written) {
	t.Helper()
	for gi, group := range w.groups {
		topic := w.topics[gi]
		for q := range w.queues[topic] {
			o := offsetRef{group, topic, q}
			commitOffset(t, b.Addr, group, topic, q, int64((q+gi)%3+1))
			w.offsets = append(w.offsets, o)
		}
	}
}
