package broker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestPopAckRevive: a POP of every queue takes the messages with the headers 5.x clients parse;
// what is acknowledged never comes back; what is not comes back once its invisible time is over,
// from the group's POP retry topic, with reconsumeTimes 1, under the original topic and with its
// POP_CK; acknowledging it there ends it.
func TestPopAckRevive(t *testing.T) {
	b := brokertest.Start(t, fastRevive)
	c := b.Dial(t)
	const topic, group = "PopAckRevive", "G_POP_ACK"
	createTopic(t, c, topic, 2)
	sendN(t, c, topic, 2, "m", 6, "TagA")

	before := time.Now().UnixMilli()
	p := doPop(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Second})
	requireCode(t, &protocol.Command{Code: int32(p.code), Flag: protocol.FlagResponse, Remark: p.remark}, protocol.Success)
	require.Equal(t, "FOUND", p.remark)
	require.Equal(t, "m-0,m-1,m-2,m-3,m-4,m-5", sortedBodies(p.msgs))
	require.GreaterOrEqual(t, p.h.PopTime, before)
	require.Equal(t, int64(1000), p.h.InvisibleTime)
	require.True(t, p.h.ReviveQid >= 0 && p.h.ReviveQid < 8, "reviveQid %d", p.h.ReviveQid)
	require.Equal(t, int64(0), p.h.RestNum)
	require.ElementsMatch(t, []string{"0 0 0", "0 1 0"}, splitInfo(p.h.StartOffsetInfo.V))
	require.ElementsMatch(t, []string{"0 0 0,1,2", "0 1 0,1,2"}, splitInfo(p.h.MsgOffsetInfo.V))

	acked := map[string]bool{}
	for i, m := range p.msgs {
		require.Equal(t, int32(0), m.ReconsumeTimes)
		if i%2 == 0 {
			ack(t, c, m, group)
			acked[string(m.Body)] = true
		}
	}
	ack(t, c, p.msgs[0], group) // a repeated ack changes nothing
	again := doPop(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Second})
	require.Equal(t, protocol.PollingTimeout, again.code, "nothing is left to pop before the invisible time ends")
	require.Equal(t, "NO_MESSAGE_IN_QUEUE", again.remark)

	back := popUntil(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: 5 * time.Second}, 3)
	for _, m := range back {
		require.False(t, acked[string(m.Body)], "acknowledged %s came back", m.Body)
		require.Equal(t, int32(1), m.ReconsumeTimes, "%s", m.Body)
		require.Equal(t, "TagA", m.Tags())
		_, e := ackTopic(t, m, group)
		require.Equal(t, protocol.RetryMarkRetry, e.Retry, "popped from the retry topic: %s", m.Props[message.PropertyPopCK])
		require.NotEmpty(t, m.Props[message.PropertyFirstPopTime])
		ack(t, c, m, group)
	}
	require.Eventually(t, func() bool { return b.PopOutstanding() == 0 }, waitFor, tick, "every checkpoint settled")
	none := doPop(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Second, poll: 1500 * time.Millisecond})
	require.Equal(t, protocol.PollingTimeout, none.code, "nothing comes back after its ack: %v", none.bodies())
}

func splitInfo(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, e := range splitOn(s, ';') {
		out = append(out, e)
	}
	return out
}

func splitOn(s string, sep byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
