package broker_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// javaCheckpointInterval restores Java's 60 s between full ConsumeQueue flushes (and checkpoints),
// so that a crash copy re-dispatches everything sent since the broker started.
func javaCheckpointInterval(o *broker.Options) {
	o.Store.FlushConsumeQueueThoroughInterval = store.DefaultOptions("").FlushConsumeQueueThoroughInterval
}

// TestCrashRecovery recovers a copy of a running broker's files (as kill -9 leaves them): every
// acknowledged message is there, unchanged, and the queues continue where they ended.
func TestCrashRecovery(t *testing.T) {
	b := brokertest.Start(t, javaCheckpointInterval)
	c := b.Dial(t)
	const topic = "CrashTopic"
	createTopic(t, c, topic, 3)
	for i := range 12 {
		q := int32(i % 3)
		if i%4 == 3 {
			mustSend(t, c, brokertest.BatchRequest(brokertest.Msg{Topic: topic, QueueID: q, Body: []byte(fmt.Sprint("b", i))},
				brokertest.Msg{Body: []byte(fmt.Sprint("b", i, "'")), Keys: "k"}))
		} else {
			mustSend(t, c, brokertest.SendV2Request(brokertest.Msg{Topic: topic, QueueID: q, Body: []byte(fmt.Sprint("m", i)), Tags: "T"}))
		}
	}
	before := map[int32][]*message.MessageExt{}
	for q := range int32(3) {
		before[q] = pullAll(t, c, "G_CRASH", topic, q, 0)
	}

	b2 := b.CrashCopy(t)
	c2 := b2.Dial(t)
	for q := range int32(3) {
		after := pullAll(t, c2, "G_CRASH", topic, q, 0)
		require.Len(t, after, len(before[q]), "queue %d", q)
		for i := range after {
			require.Equal(t, before[q][i].Message, after[i].Message, "queue %d record %d", q, i)
		}
		s := mustSend(t, c2, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: q, Body: []byte("next")}))
		require.Equal(t, int64(len(before[q])), s.queueOffset, "queue %d continues where it ended", q)
	}
}

// TestCrashRecoveryForgetsDeletedTopic deletes a topic, sends to it again (re-creating it), and
// recovers from a crash: the deleted messages must stay deleted. Java's ConsumeQueue ignores a
// re-dispatched record whose CommitLog position lies below the queue's last entry
// (putMessagePositionInfo's maxPhysicOffset check); without that check a deleted record whose
// queue offset happens to be the re-created queue's next one comes back.
func TestCrashRecoveryForgetsDeletedTopic(t *testing.T) {
	b := brokertest.Start(t, javaCheckpointInterval)
	c := b.Dial(t)
	const topic = "CrashDeleted"
	createTopic(t, c, topic, 1)
	for _, body := range []string{"old0", "old1", "old2"} {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte(body)}))
	}
	requireCode(t, c.Call(protocol.NewRequest(protocol.DeleteTopicInBroker, map[string]string{"topic": topic}, nil)), protocol.Success)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("new")}))
	require.Equal(t, []string{"new"}, bodies(pullAll(t, c, "G_DEL", topic, 0, 0)))

	b2 := b.CrashCopy(t)
	c2 := b2.Dial(t)
	require.Equal(t, []string{"new"}, bodies(pullAll(t, c2, "G_DEL", topic, 0, 0)), "deleted messages came back")
	require.Equal(t, int64(1), maxOffset(t, c2, topic, 0))
}
