package broker_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestPopOrderly: an orderly POP of a queue blocks it until its messages are acknowledged or
// their invisible time is over; popped again, each message carries its order count, which the
// client takes as reconsumeTimes; acks move the group's offset past the acknowledged prefix.
func TestPopOrderly(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "PopOrder", "G_POP_ORDER"
	createTopic(t, c, topic, 1)
	sendN(t, c, topic, 1, "o", 3, "")
	args := popArgs{group: group, topic: topic, queueID: 0, max: 2, invisible: 300 * time.Millisecond, order: true}

	first := doPop(t, c, args)
	require.Equal(t, protocol.Success, first.code)
	require.Equal(t, []string{"o-0", "o-1"}, first.bodies())
	require.Equal(t, int32(999), first.h.ReviveQid, "orderly pops answer revive queue 999")
	require.Equal(t, "0 0 0", first.h.OrderCountInfo.V, "new messages count 0")
	require.Equal(t, protocol.PollingTimeout, doPop(t, c, args).code, "the queue is blocked")

	time.Sleep(400 * time.Millisecond)
	again := doPop(t, c, args)
	require.Equal(t, []string{"o-0", "o-1"}, again.bodies(), "after the invisible time the same messages, in order")
	counts, err := protocol.ParseInfo(again.h.OrderCountInfo.V)
	require.NoError(t, err)
	require.Equal(t, map[string]string{"0@qo0%0": "1", "0@qo0%1": "1", "0@0": "1"}, counts)
	ack(t, c, again.msgs[0], group)
	require.Equal(t, protocol.PollingTimeout, doPop(t, c, args).code, "o-1 still blocks the queue")
	ack(t, c, again.msgs[1], group)
	last := doPop(t, c, args)
	require.Equal(t, []string{"o-2"}, last.bodies())
	requireOffset(t, c, group, topic, 0, 2) // the acks moved the offset past o-0 and o-1
}

// TestPopFilters: POP's own expression filters the topic and the retry topic alike: tags, and
// SQL92 over the properties.
func TestPopFilters(t *testing.T) {
	b := brokertest.Start(t, fastRevive)
	c := b.Dial(t)
	const topic = "PopFilter"
	createTopic(t, c, topic, 1)
	for i, tag := range []string{"TagA", "TagB", "TagC", "TagA"} {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte(tag + "-" + string(rune('0'+i))),
			Tags: tag, Props: map[string]string{"n": string(rune('0' + i))}}))
	}
	tags := doPop(t, c, popArgs{group: "G_POP_TAGS", topic: topic, queueID: 0, invisible: 200 * time.Millisecond,
		exp: "TagA || TagB", expType: "TAG"})
	require.Equal(t, []string{"TagA-0", "TagB-1", "TagA-3"}, tags.bodies())
	back := popUntil(t, c, popArgs{group: "G_POP_TAGS", topic: topic, queueID: 0, invisible: time.Minute,
		exp: "TagB", expType: "TAG"}, 1)
	require.Equal(t, "TagB-1", string(back[0].Body), "the retry topic is filtered too")

	sql := doPop(t, c, popArgs{group: "G_POP_SQL", topic: topic, queueID: 0, invisible: time.Minute,
		exp: "n > 1", expType: "SQL92"})
	require.Equal(t, []string{"TagC-2", "TagA-3"}, sql.bodies())
	for _, bad := range []popArgs{
		{exp: "n >", expType: "SQL92"}, {exp: "x", expType: "XPATH"},
	} {
		bad.group, bad.topic, bad.invisible = "G_POP_BAD", topic, time.Minute
		p := doPop(t, c, bad)
		require.Equal(t, protocol.SubscriptionParseFailed, p.code, "%+v: %s", bad, p.remark)
	}
}

// TestPopAndPullShareTopics: a POP group and a PULL group read the same topic, each all of it;
// the POP group's offsets are its consumer offsets, which a PULL consumer of it continues from.
func TestPopAndPullShareTopics(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "PopPullShare"
	createTopic(t, c, topic, 1)
	sendN(t, c, topic, 1, "s", 4, "")
	p := doPop(t, c, popArgs{group: "G_SHARE_POP", topic: topic, queueID: 0, max: 2, invisible: time.Minute})
	require.Equal(t, []string{"s-0", "s-1"}, p.bodies())
	require.Equal(t, []string{"s-0", "s-1", "s-2", "s-3"}, bodies(pullAll(t, c, "G_SHARE_PULL", topic, 0, 0)))

	requireOffset(t, c, "G_SHARE_POP", topic, 0, 2) // the pop offset is the group's consumer offset
	require.Equal(t, []string{"s-2", "s-3"}, bodies(pullAll(t, c, "G_SHARE_POP", topic, 0, 2)), "a pull continues from it")
}

// TestPopRefusals: what POP and its acks refuse, with Java's codes and remarks.
func TestPopRefusals(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "PopRefuse", "G_POP_REFUSE"
	createTopic(t, c, topic, 2)
	sendN(t, c, topic, 1, "r", 1, "")
	for _, tc := range []struct {
		a      popArgs
		code   protocol.ResponseCode
		remark string
	}{
		{popArgs{topic: topic, max: 33}, protocol.InvalidParameter, "greater than 32"},
		{popArgs{topic: "NoSuchPopTopic"}, protocol.TopicNotExist, "not exist"},
		{popArgs{topic: topic, queueID: 2}, protocol.InvalidParameter, "queueId[2] is illegal"},
		{popArgs{topic: topic, bornTime: time.Now().Add(-time.Minute).UnixMilli()}, protocol.PollingTimeout, "timeout too much"},
	} {
		tc.a.group, tc.a.invisible = group, time.Minute
		p := doPop(t, c, tc.a)
		require.Equal(t, tc.code, p.code, "%+v: %s", tc.a, p.remark)
		require.Contains(t, p.remark, tc.remark)
	}
	noBorn := doPop(t, c, popArgs{group: group, topic: topic, queueID: 0, invisible: time.Minute, noBornTime: true})
	require.Equal(t, protocol.Success, noBorn.code, "a missing bornTime is now, as Java fills it in")
	m := noBorn.msgs[0]

	bad := ackRequest(t, m, group)
	bad.ExtFields.Set("extraInfo", "not an extra info")
	requireCode(t, c.Call(bad), protocol.MessageIllegal, "extraInfo")
	far := ackRequest(t, m, group)
	far.ExtFields.Set("offset", "99")
	requireCode(t, c.Call(far), protocol.NoMessage, "offset is illegal")
	wrongQ := ackRequest(t, m, group)
	wrongQ.ExtFields.Set("queueId", "7")
	requireCode(t, c.Call(wrongQ), protocol.MessageIllegal, "queueId[7] is illegal")
	missing := ackRequest(t, m, group)
	missing.ExtFields.Delete("extraInfo")
	requireCode(t, c.Call(missing), protocol.SystemError, "extraInfo")
}

// TestPopRefusedBySlave: a slave holds copies of the revive log but does not pop.
func TestPopRefusedBySlave(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.HA.Role = store.RoleSlave; o.BrokerID = 1 })
	c := b.Dial(t)
	p := doPop(t, c, popArgs{group: "G", topic: "TBW102", invisible: time.Minute})
	require.Equal(t, protocol.NoPermission, p.code)
	require.Contains(t, p.remark, "POP needs the master")
}

// TestPopStateSurvivesRestart: checkpoints and acks are in the revive log: after a clean restart
// and after a crash (the files as kill -9 leaves them) the unacknowledged messages come back,
// the acknowledged ones never do, and nothing popped is popped again.
func TestPopStateSurvivesRestart(t *testing.T) {
	for _, crash := range []bool{false, true} {
		t.Run(map[bool]string{false: "clean", true: "crash"}[crash], func(t *testing.T) {
			b := brokertest.Start(t, fastRevive)
			c := b.Dial(t)
			const topic, group = "PopRestart", "G_POP_RESTART"
			createTopic(t, c, topic, 2)
			sendN(t, c, topic, 2, "x", 8, "")
			p := doPop(t, c, popArgs{group: group, topic: topic, queueID: -1, invisible: 2 * time.Second})
			require.Len(t, p.msgs, 8)
			var kept []string
			for i, m := range p.msgs {
				if i%2 == 0 {
					ack(t, c, m, group)
				} else {
					kept = append(kept, string(m.Body))
				}
			}
			var nb *brokertest.Broker
			if crash {
				nb = b.CrashCopy(t)
			} else {
				nb = b.Restart(t)
			}
			nc := nb.Dial(t)
			require.Equal(t, 2, nb.PopOutstanding(), "the two checkpoints (one per queue) with unacknowledged messages are rebuilt")
			back := popUntil(t, nc, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute}, 4)
			require.ElementsMatch(t, kept, bodies(back))
			for _, m := range back {
				require.Equal(t, int32(1), m.ReconsumeTimes)
			}
			none := doPop(t, nc, popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute, poll: time.Second})
			require.Equal(t, protocol.PollingTimeout, none.code, "popped again: %v", none.bodies())
		})
	}
}

// TestPopMessageFromJavaClient decodes a POP_MESSAGE frame as the 5.3.3 Java client writes it
// (JSON header, extFields as strings, RocketMQ 5's RpcRequestHeader fields included) and pops.
func TestPopMessageFromJavaClient(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	createTopic(t, c, "PopJava", 1)
	sendN(t, c, "PopJava", 1, "j", 1, "TagJ")
	born := time.Now().UnixMilli()
	header := `{"code":200050,"extFields":{"consumerGroup":"G_POP_JAVA","topic":"PopJava","queueId":"-1","maxMsgNums":"32",` +
		`"invisibleTime":"60000","pollTime":"15000","bornTime":"` + strconv.FormatInt(born, 10) + `","initMode":"0","expType":"TAG","exp":"*",` +
		`"order":"false","bname":"broker-a","lo":"true","oway":"false"},"flag":0,"language":"JAVA","opaque":7,` +
		`"serializeTypeCurrentRPC":"JSON","version":477}`
	c.SendRaw([]byte(header), nil)
	p := poppedOf(t, c.Await(7), "PopJava")
	require.Equal(t, protocol.Success, p.code, p.remark)
	require.Equal(t, []string{"j-0"}, p.bodies())
	require.True(t, strings.HasPrefix(p.msgs[0].Props[message.PropertyPopCK], "0 "), p.msgs[0].Props[message.PropertyPopCK])
}
