package broker_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// shortDelays makes delay level n wait n×100 ms, so that tests can watch delivery happen.
func shortDelays(o *broker.Options) {
	o.Store.DelayLevels = nil
	for n := 1; n <= 18; n++ {
		o.Store.DelayLevels = append(o.Store.DelayLevels, time.Duration(n)*100*time.Millisecond)
	}
}

// eventuallyPull waits until the queue holds want messages from offset 0 and returns them.
func eventuallyPull(t *testing.T, c *brokertest.Conn, group, topic string, queueID int32, want int) []*message.MessageExt {
	t.Helper()
	var got []*message.MessageExt
	require.Eventually(t, func() bool {
		got = pullAll(t, c, group, topic, queueID, 0)
		return len(got) >= want
	}, 10*time.Second, 20*time.Millisecond, "%s:%d never held %d messages", topic, queueID, want)
	require.Len(t, got, want)
	return got
}

// TestDelayedMessageArrivesAfterItsLevel: a message sent with a DELAY level waits in SCHEDULE_TOPIC_XXXX
// and then appears in its own topic, with its properties and unique key intact.
func TestDelayedMessageArrivesAfterItsLevel(t *testing.T) {
	b := brokertest.Start(t, shortDelays)
	c := b.Dial(t)
	const topic = "DelayTopic"
	createTopic(t, c, topic, 1)
	const level, delay = 5, 500 * time.Millisecond
	sentAt := time.Now()
	resp := c.Call(brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("later"), Tags: "TagD",
		Props: map[string]string{message.PropertyDelayTimeLevel: strconv.Itoa(level), message.PropertyUniqClientMessageID: "UNIQ-DELAY-1"}}))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "0", resp.ExtFields.Get("queueId"), "the send answer names the queue asked for, as Java's does")
	if maxOffset(t, c, topic, 0) != 0 {
		require.GreaterOrEqual(t, time.Since(sentAt), delay, "a delayed message is not in its topic before its delay")
	}

	got := eventuallyPull(t, c, "G_DELAY", topic, 0, 1)
	require.GreaterOrEqual(t, time.Since(sentAt), delay, "delivered before its delay")
	m := got[0]
	require.Equal(t, "later", string(m.Body))
	require.Equal(t, "TagD", m.Tags())
	require.Equal(t, "UNIQ-DELAY-1", m.UniqKey())
	require.NotContains(t, m.Props, message.PropertyDelayTimeLevel)
	require.Equal(t, topic, m.Props[message.PropertyRealTopic])
}

// TestSendBackRetriesThenDeadLetters: CONSUMER_SEND_MSG_BACK puts a failed message in the group's
// retry topic after the retry delay with its reconsume count raised, and in the dead-letter topic
// once the count reaches the maximum.
func TestSendBackRetriesThenDeadLetters(t *testing.T) {
	b := brokertest.Start(t, shortDelays)
	c := b.Dial(t)
	const topic, group = "RetrySrc", "G_RETRY"
	createTopic(t, c, topic, 1)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("fails"), Keys: "k1",
		Props: map[string]string{message.PropertyUniqClientMessageID: "UNIQ-RETRY-1"}}))
	orig := eventuallyPull(t, c, group, topic, 0, 1)[0]

	sendBack := func(m *message.MessageExt, delayLevel, maxTimes int) *protocol.Command {
		return c.Call(protocol.NewHeaderRequest(protocol.ConsumerSendMsgBack, &protocol.ConsumerSendMsgBackRequestHeader{
			Offset: m.PhysicalOffset, Group: group, DelayLevel: int32(delayLevel), OriginMsgID: protocol.Some(m.UniqKey()),
			OriginTopic: protocol.Some(m.Topic), UnitMode: protocol.Some(false), MaxReconsumeTimes: protocol.Some(int32(maxTimes)),
		}, nil))
	}
	requireCode(t, sendBack(orig, 0, 2), protocol.Success)
	retry := eventuallyPull(t, c, group, "%RETRY%"+group, 0, 1)[0]
	require.Equal(t, "fails", string(retry.Body))
	require.Equal(t, int32(1), retry.ReconsumeTimes)
	require.Equal(t, topic, retry.Props[message.PropertyRetryTopic])
	require.Equal(t, "UNIQ-RETRY-1", retry.UniqKey(), "the client sees the same message id on every attempt")
	require.Equal(t, "UNIQ-RETRY-1", retry.Props[message.PropertyOriginMessageID])

	// Second failure: reconsumeTimes 1 < 2, retried again.
	requireCode(t, sendBack(retry, 0, 2), protocol.Success)
	again := eventuallyPull(t, c, group, "%RETRY%"+group, 0, 2)[1]
	require.Equal(t, int32(2), again.ReconsumeTimes)

	// Third failure reaches the maximum: straight to the dead-letter topic.
	requireCode(t, sendBack(again, 0, 2), protocol.Success)
	dead := eventuallyPull(t, c, group, "%DLQ%"+group, 0, 1)[0]
	require.Equal(t, "fails", string(dead.Body))
	require.Equal(t, topic, dead.Props[message.PropertyRetryTopic])

	// A message that is not there.
	requireCode(t, c.Call(protocol.NewRequest(protocol.ConsumerSendMsgBack, map[string]string{
		"offset": "987654321", "group": group, "delayLevel": "0"}, nil)), protocol.SystemError, "look message by offset failed")
}
