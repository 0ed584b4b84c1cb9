package broker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
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

// TestPopDeadLetters: a message popped and never acknowledged is revived with one more reconsume
// each time, until the group's retryMaxTimes; then it goes to %DLQ%group, from which POP never
// takes it.
func TestPopDeadLetters(t *testing.T) {
	b := brokertest.Start(t, fastRevive)
	c := b.Dial(t)
	const topic, group = "PopDLQ", "G_POP_DLQ"
	createTopic(t, c, topic, 1)
	createGroup(t, c, group, 2)
	sendN(t, c, topic, 1, "dead", 1, "TagD")

	for want := int32(0); want <= 2; want++ {
		got := popUntil(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: 100 * time.Millisecond}, 1)
		require.Equal(t, want, got[0].ReconsumeTimes)
		require.Equal(t, "dead-0", string(got[0].Body))
	}
	require.Eventually(t, func() bool { return maxOffset(t, c, "%DLQ%"+group, 0) == 1 }, waitFor, tick, "the DLQ holds it")
	dlq := pullAll(t, c, "G_READ_DLQ", "%DLQ%"+group, 0, 0)
	require.Len(t, dlq, 1)
	require.Equal(t, int32(3), dlq[0].ReconsumeTimes)
	require.Equal(t, "dead-0", string(dlq[0].Body))
	require.Equal(t, topic, dlq[0].Props[message.PropertyRetryTopic])
	require.Equal(t, "TagD", dlq[0].Tags())
	none := doPop(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Second, poll: time.Second})
	require.Equal(t, protocol.PollingTimeout, none.code, "a dead letter is not popped: %v", none.bodies())
}

// TestPopChangeInvisibleTime: a message whose invisible time is shortened comes back at once;
// one given a new POP_CK from the answer (as the client builds it) is acknowledged with it.
func TestPopChangeInvisibleTime(t *testing.T) {
	b := brokertest.Start(t, fastRevive)
	c := b.Dial(t)
	const topic, group = "PopChange", "G_POP_CHANGE"
	createTopic(t, c, topic, 1)
	sendN(t, c, topic, 1, "chg", 2, "")

	p := doPop(t, c, popArgs{group: group, topic: topic, queueID: 0, invisible: time.Minute})
	require.Len(t, p.msgs, 2)
	soon, later := p.msgs[0], p.msgs[1]
	h := changeInvisible(t, c, soon, group, 100*time.Millisecond)
	require.Equal(t, int64(100), h.InvisibleTime)
	require.Equal(t, p.h.ReviveQid, h.ReviveQid)
	require.GreaterOrEqual(t, h.PopTime, p.h.PopTime)

	h = changeInvisible(t, c, later, group, time.Minute)
	e := protocol.ExtraInfo{CkQueueOffset: later.QueueOffset, PopTime: h.PopTime, InvisibleTime: h.InvisibleTime,
		ReviveQid: h.ReviveQid, Retry: '0', BrokerName: "broker-a", QueueID: 0, QueueOffset: later.QueueOffset, HasQueueOffset: true}
	later.Props[message.PropertyPopCK] = e.String()
	ack(t, c, later, group)

	back := popUntil(t, c, popArgs{group: group, topic: topic, queueID: 0, invisible: time.Minute}, 1)
	require.Equal(t, "chg-0", string(back[0].Body))
	require.Equal(t, int32(1), back[0].ReconsumeTimes)
	ack(t, c, back[0], group)
	require.Eventually(t, func() bool { return b.PopOutstanding() == 0 }, waitFor, tick)
}

// TestPopBatchAck: BATCH_ACK_MESSAGE as the 5.x client sends it settles the messages its bit set
// names; the rest come back.
func TestPopBatchAck(t *testing.T) {
	b := brokertest.Start(t, fastRevive)
	c := b.Dial(t)
	const topic, group = "PopBatchAck", "G_POP_BATCH"
	createTopic(t, c, topic, 1)
	sendN(t, c, topic, 1, "b", 4, "")
	p := doPop(t, c, popArgs{group: group, topic: topic, queueID: 0, invisible: 300 * time.Millisecond})
	require.Len(t, p.msgs, 4)
	_, e := ackTopic(t, p.msgs[0], group)
	ba := body.BatchAck{ConsumerGroup: group, Topic: topic, Retry: "0", StartOffset: e.CkQueueOffset, QueueID: 0,
		ReviveQueueID: e.ReviveQid, PopTime: e.PopTime, InvisibleTime: e.InvisibleTime, BitSet: body.NewBitSet(0, 1, 3)}
	data, err := body.Marshal(body.BatchAckMessageRequestBody{BrokerName: "broker-a", Acks: []body.BatchAck{ba}})
	require.NoError(t, err)
	requireCode(t, c.Call(protocol.NewRequest(protocol.BatchAckMessage, nil, data)), protocol.Success)
	back := popUntil(t, c, popArgs{group: group, topic: topic, queueID: 0, invisible: time.Minute}, 1)
	require.Equal(t, "b-2", string(back[0].Body))
	requireCode(t, c.Call(protocol.NewRequest(protocol.BatchAckMessage, nil, []byte(`{"acks":[]}`))), protocol.NoMessage)
	requireCode(t, c.Call(protocol.NewRequest(protocol.BatchAckMessage, nil, []byte(`{"acks":`))), protocol.SystemError, "BatchAck")
}

// TestPeekMessage: PEEK_MESSAGE reads at the group's pop offsets without taking anything.
func TestPeekMessage(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "PopPeek", "G_POP_PEEK"
	createTopic(t, c, topic, 2)
	peek := func(q int32) (*protocol.Command, protocol.PopMessageResponseHeader) {
		req := protocol.NewRequest(protocol.PeekMessage, nil, nil)
		protocol.PeekMessageRequestHeader{Topic: topic, QueueID: q, MaxMsgNums: 32, ConsumerGroup: group}.Encode(&req.ExtFields)
		resp := c.Call(req)
		var h protocol.PopMessageResponseHeader
		require.NoError(t, h.Decode(resp.ExtFields))
		return resp, h
	}
	resp, _ := peek(-1)
	requireCode(t, resp, protocol.PullNotFound)
	sendN(t, c, topic, 2, "pk", 4, "")
	resp, h := peek(-1)
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "pk-0,pk-1,pk-2,pk-3", sortedBodies(brokertest.Records(t, resp)))
	require.Equal(t, int64(4), h.RestNum)
	resp, _ = peek(1)
	require.Equal(t, "pk-1,pk-3", sortedBodies(brokertest.Records(t, resp)))
	p := doPop(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute})
	require.Equal(t, "pk-0,pk-1,pk-2,pk-3", sortedBodies(p.msgs), "peeking took nothing")
	resp, h = peek(-1)
	requireCode(t, resp, protocol.PullNotFound)
	require.Equal(t, int64(0), h.RestNum)
}
