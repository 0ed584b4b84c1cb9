package broker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

func pollingInfo(t *testing.T, c *brokertest.Conn, group, topic string, q int32) int32 {
	t.Helper()
	req := protocol.NewRequest(protocol.PollingInfo, nil, nil)
	protocol.PollingInfoRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: q}.Encode(&req.ExtFields)
	resp := c.Call(req)
	requireCode(t, resp, protocol.Success)
	var h protocol.PollingInfoResponseHeader
	require.NoError(t, h.Decode(resp.ExtFields))
	return h.PollingNum
}

func notificationRequest(group, topic string, q int32, poll time.Duration) *protocol.Command {
	req := protocol.NewRequest(protocol.Notification, nil, nil)
	protocol.NotificationRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: q, PollTime: poll.Milliseconds(),
		BornTime: protocol.Some(time.Now().UnixMilli())}.Encode(&req.ExtFields)
	return req
}

func notified(t *testing.T, resp *protocol.Command) protocol.NotificationResponseHeader {
	t.Helper()
	requireCode(t, resp, protocol.Success)
	var h protocol.NotificationResponseHeader
	require.NoError(t, h.Decode(resp.ExtFields))
	require.True(t, h.PollingFull.Valid, "pollingFull is always written")
	return h
}

// TestPopLongPolling: a POP that finds nothing is held (POLLING_INFO counts it) until a message
// arrives, then answered with it; one that waits its whole poll time is answered
// POLLING_TIMEOUT; a held POP is dropped with its connection.
func TestPopLongPolling(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "PopPoll", "G_POP_POLL"
	createTopic(t, c, topic, 2)

	opaque := c.Send(popRequest(popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute, poll: 20 * time.Second}))
	require.Eventually(t, func() bool { return pollingInfo(t, b.Dial(t), group, topic, -1) == 1 }, waitFor, tick)
	require.Equal(t, int32(0), pollingInfo(t, c, group, topic, 0), "POLLING_INFO counts the exact queue id")
	require.False(t, c.Answered(opaque), "held")
	other := b.Dial(t)
	sendN(t, other, topic, 2, "late", 1, "")
	p := poppedOf(t, c.Await(opaque), topic)
	require.Equal(t, protocol.Success, p.code)
	require.Equal(t, []string{"late-0"}, p.bodies())
	require.Equal(t, int32(0), pollingInfo(t, c, group, topic, -1))

	start := time.Now()
	p = doPop(t, c, popArgs{group: group, topic: topic, queueID: 1, invisible: time.Minute, poll: 300 * time.Millisecond})
	require.Equal(t, protocol.PollingTimeout, p.code)
	require.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond, "held for its poll time")

	gone := b.Dial(t)
	gone.Send(popRequest(popArgs{group: group, topic: topic, queueID: 0, invisible: time.Minute, poll: 30 * time.Second}))
	require.Eventually(t, func() bool { return pollingInfo(t, c, group, topic, 0) == 1 }, waitFor, tick)
	gone.Close()
	require.Eventually(t, func() bool { return pollingInfo(t, c, group, topic, 0) == 0 }, waitFor, tick,
		"a closed connection's held pop is dropped")
}

// TestPopPollingFull: beyond popPollingSize held POPs of one group, topic and queue the broker
// answers POLLING_FULL at once.
func TestPopPollingFull(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.Pop.PollingSize = 1 })
	c := b.Dial(t)
	const topic, group = "PopFull", "G_POP_FULL"
	createTopic(t, c, topic, 1)
	for range 2 {
		c.Send(popRequest(popArgs{group: group, topic: topic, queueID: 0, invisible: time.Minute, poll: 20 * time.Second}))
	}
	require.Eventually(t, func() bool { return pollingInfo(t, c, group, topic, 0) == 2 }, waitFor, tick)
	p := doPop(t, b.Dial(t), popArgs{group: group, topic: topic, queueID: 0, invisible: time.Minute, poll: 20 * time.Second})
	require.Equal(t, protocol.PollingFull, p.code)
}

// TestNotification: NOTIFICATION answers hasMsg at once when a POP would find something, else
// holds until a message arrives (hasMsg=true) or its poll time is over (hasMsg=false).
func TestNotification(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "PopNotify", "G_POP_NOTIFY"
	createTopic(t, c, topic, 2)

	h := notified(t, c.Call(notificationRequest(group, topic, -1, 200*time.Millisecond)))
	require.False(t, h.HasMsg)
	require.False(t, h.PollingFull.V)

	opaque := c.Send(notificationRequest(group, topic, 1, 20*time.Second))
	time.Sleep(100 * time.Millisecond)
	require.False(t, c.Answered(opaque))
	other := b.Dial(t)
	mustSend(t, other, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("n")}))
	require.True(t, notified(t, c.Await(opaque)).HasMsg)
	require.True(t, notified(t, c.Call(notificationRequest(group, topic, -1, 0))).HasMsg)

	doPop(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute})
	require.False(t, notified(t, c.Call(notificationRequest(group, topic, 1, 0))).HasMsg, "popped: nothing left")
}

// TestOneMessageWakesPopAndNotification: a message wakes, of each group reading its topic, the
// oldest held NOTIFICATION and the oldest held POP alike, so a notification held first does not
// keep the group's pop waiting.
func TestOneMessageWakesPopAndNotification(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "PopWakeBoth"
	createTopic(t, c, topic, 1)
	noteOp := c.Send(notificationRequest("G_WAKE", topic, -1, 20*time.Second))
	time.Sleep(50 * time.Millisecond)
	popOp := c.Send(popRequest(popArgs{group: "G_WAKE", topic: topic, queueID: -1, invisible: time.Minute, poll: 20 * time.Second}))
	otherOp := c.Send(popRequest(popArgs{group: "G_WAKE_2", topic: topic, queueID: 0, invisible: time.Minute, poll: 20 * time.Second}))
	require.Eventually(t, func() bool {
		return pollingInfo(t, b.Dial(t), "G_WAKE", topic, -1) == 1 && pollingInfo(t, b.Dial(t), "G_WAKE_2", topic, 0) == 1
	}, waitFor, tick)
	start := time.Now()
	sendN(t, b.Dial(t), topic, 1, "w", 1, "")
	require.Equal(t, []string{"w-0"}, poppedOf(t, c.Await(popOp), topic).bodies())
	require.Equal(t, []string{"w-0"}, poppedOf(t, c.Await(otherOp), topic).bodies(), "every group gets it")
	require.Less(t, time.Since(start), 10*time.Second, "answered when the message came, not at the poll time")
	_ = noteOp // answered hasMsg=true if it ran before the pop took the message, else held on
}
