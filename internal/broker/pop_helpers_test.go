package broker_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// fastRevive makes a broker revive due checkpoints every 50 ms.
func fastRevive(o *broker.Options) { o.Pop.ReviveInterval = 50 * time.Millisecond }

// popArgs is one POP_MESSAGE.
type popArgs struct {
	group, topic string
	queueID      int32
	max          int32
	invisible    time.Duration
	poll         time.Duration
	exp, expType string
	order        bool
	initMode     int32
	bornTime     int64
	attemptID    string
	noBornTime   bool
}

func popRequest(a popArgs) *protocol.Command {
	if a.max == 0 {
		a.max = 32
	}
	h := protocol.PopMessageRequestHeader{ConsumerGroup: a.group, Topic: a.topic, QueueID: a.queueID,
		MaxMsgNums: a.max, InvisibleTime: a.invisible.Milliseconds(), PollTime: a.poll.Milliseconds(), InitMode: a.initMode}
	if !a.noBornTime {
		born := a.bornTime
		if born == 0 {
			born = time.Now().UnixMilli()
		}
		h.BornTime = protocol.Some(born)
	}
	if a.exp != "" {
		h.Exp, h.ExpType = protocol.Some(a.exp), protocol.Some(a.expType)
	}
	if a.order {
		h.Order = protocol.Some(true)
	}
	if a.attemptID != "" {
		h.AttemptID = protocol.Some(a.attemptID)
	}
	req := protocol.NewRequest(protocol.PopMessage, nil, nil)
	h.Encode(&req.ExtFields)
	return req
}

// popped is a POP answer as the 5.x Java client reads it (MQClientAPIImpl.processPopResponse):
// each message with the POP_CK it builds from the answer's offset infos.
type popped struct {
	code   protocol.ResponseCode
	remark string
	h      protocol.PopMessageResponseHeader
	msgs   []*message.MessageExt
}

func (p popped) bodies() []string { return bodies(p.msgs) }

func doPop(t *testing.T, c *brokertest.Conn, a popArgs) popped {
	t.Helper()
	return poppedOf(t, c.Call(popRequest(a)), a.topic)
}

func poppedOf(t *testing.T, resp *protocol.Command, topic string) popped {
	t.Helper()
	p := popped{code: resp.ResponseCode(), remark: resp.Remark}
	err := p.h.Decode(resp.ExtFields)
	if p.code == protocol.Success {
		require.NoError(t, err, "pop response header")
	}
	if p.code != protocol.Success {
		require.Empty(t, resp.Body, "a %v pop carries no records", p.code)
		return p
	}
	p.msgs = brokertest.Records(t, resp)
	start, err := protocol.ParseInfo(p.h.StartOffsetInfo.V)
	require.NoError(t, err)
	offs, err := protocol.ParseInfo(p.h.MsgOffsetInfo.V)
	require.NoError(t, err)
	for _, m := range p.msgs {
		if _, ok := m.Props[message.PropertyPopCK]; !ok {
			key := protocol.InfoKey(protocol.RetryMark(m.Topic), strconv.Itoa(int(m.QueueID)))
			require.Contains(t, offs[key], strconv.FormatInt(m.QueueOffset, 10), "msgOffsetInfo %q lists %s@%d", p.h.MsgOffsetInfo.V, m.Topic, m.QueueOffset)
			so, err := strconv.ParseInt(start[key], 10, 64)
			require.NoError(t, err, "startOffsetInfo %q has %s", p.h.StartOffsetInfo.V, key)
			e := protocol.ExtraInfo{CkQueueOffset: so, PopTime: p.h.PopTime, InvisibleTime: p.h.InvisibleTime,
				ReviveQid: p.h.ReviveQid, Retry: protocol.RetryMark(m.Topic), BrokerName: "broker-a", QueueID: m.QueueID,
				QueueOffset: m.QueueOffset, HasQueueOffset: true}
			m.Props[message.PropertyPopCK] = e.String()
		}
		require.Equal(t, topic, m.Topic, "a popped message carries the topic popped")
	}
	return p
}

// ackTopic is the topic an ack names: the retry topic for a message popped from one (the Java
// client's ExtraInfoUtil.getRealTopic).
func ackTopic(t *testing.T, m *message.MessageExt, group string) (string, protocol.ExtraInfo) {
	t.Helper()
	e, err := protocol.ParseExtraInfo(m.Props[message.PropertyPopCK])
	require.NoError(t, err)
	return protocol.RealTopic(m.Topic, group, e.Retry), e
}

func ackRequest(t *testing.T, m *message.MessageExt, group string) *protocol.Command {
	t.Helper()
	topic, _ := ackTopic(t, m, group)
	req := protocol.NewRequest(protocol.AckMessage, nil, nil)
	protocol.AckMessageRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: m.QueueID,
		ExtraInfo: m.Props[message.PropertyPopCK], Offset: m.QueueOffset}.Encode(&req.ExtFields)
	return req
}

func ack(t *testing.T, c *brokertest.Conn, m *message.MessageExt, group string) {
	t.Helper()
	requireCode(t, c.Call(ackRequest(t, m, group)), protocol.Success)
}

func changeInvisible(t *testing.T, c *brokertest.Conn, m *message.MessageExt, group string, d time.Duration) protocol.ChangeInvisibleTimeResponseHeader {
	t.Helper()
	topic, _ := ackTopic(t, m, group)
	req := protocol.NewRequest(protocol.ChangeMessageInvisibleTime, nil, nil)
	protocol.ChangeInvisibleTimeRequestHeader{ConsumerGroup: group, Topic: topic, QueueID: m.QueueID,
		ExtraInfo: m.Props[message.PropertyPopCK], Offset: m.QueueOffset, InvisibleTime: d.Milliseconds()}.Encode(&req.ExtFields)
	resp := c.Call(req)
	requireCode(t, resp, protocol.Success)
	var h protocol.ChangeInvisibleTimeResponseHeader
	require.NoError(t, h.Decode(resp.ExtFields))
	return h
}

// popUntil pops (with a short poll) until want messages arrived or waitFor passed.
func popUntil(t *testing.T, c *brokertest.Conn, a popArgs, want int) []*message.MessageExt {
	t.Helper()
	var out []*message.MessageExt
	deadline := time.Now().Add(waitFor)
	for len(out) < want && time.Now().Before(deadline) {
		a.poll = 200 * time.Millisecond
		p := doPop(t, c, a)
		if p.code == protocol.Success {
			out = append(out, p.msgs...)
		} else {
			require.Equal(t, protocol.PollingTimeout, p.code, "remark %q", p.remark)
		}
	}
	require.Len(t, out, want, "popped %v", bodies(out))
	return out
}

// sendN sends n messages "<prefix>-i" round-robin over queues and waits until they are dispatched.
func sendN(t *testing.T, c *brokertest.Conn, topic string, queues int32, prefix string, n int, tags string) {
	t.Helper()
	for i := range n {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: int32(i) % queues,
			Body: []byte(prefix + "-" + strconv.Itoa(i)), Tags: tags, Keys: "k" + strconv.Itoa(i)}))
	}
}

// createGroup creates a consumer group with retryMaxTimes.
func createGroup(t *testing.T, c *brokertest.Conn, group string, retryMax int) {
	t.Helper()
	cfg := body.NewSubscriptionGroupConfig(group)
	cfg.RetryMaxTimes = retryMax
	data, err := body.Marshal(cfg)
	require.NoError(t, err)
	requireCode(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, data)), protocol.Success)
}

func sortedBodies(msgs []*message.MessageExt) string {
	b := bodies(msgs)
	slices.Sort(b)
	return strings.Join(b, ",")
}
