package broker_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// pullResult is the part of a pull response every test checks.
type pullResult struct {
	code protocol.ResponseCode
	next int64
	msgs []*message.MessageExt
}

func pull(t *testing.T, c *brokertest.Conn, p brokertest.Pull) pullResult {
	t.Helper()
	return pullResultOf(t, c.Call(brokertest.PullRequest(p)))
}

func pullResultOf(t *testing.T, resp *protocol.Command) pullResult {
	t.Helper()
	r := pullResult{code: resp.ResponseCode(), next: brokertest.ExtInt(t, resp, "nextBeginOffset")}
	brokertest.ExtInt(t, resp, "minOffset")
	brokertest.ExtInt(t, resp, "maxOffset")
	require.Equal(t, int64(0), brokertest.ExtInt(t, resp, "suggestWhichBrokerId"))
	if r.code == protocol.Success {
		r.msgs = brokertest.Records(t, resp)
		require.NotEmpty(t, r.msgs, "SUCCESS without records")
	} else {
		require.Empty(t, resp.Body, "a %v pull carries no records", r.code)
	}
	return r
}

func tagsOf(msgs []*message.MessageExt) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Tags()
	}
	return out
}

// TestPullResults walks §2.6's results table on one queue.
func TestPullResults(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "PullResults"
	createTopic(t, c, topic, 2)
	at := func(off int64) brokertest.Pull {
		return brokertest.Pull{Group: "G_PULL", Topic: topic, QueueID: 0, Offset: off,
			SysFlag: brokertest.PullSubscription, Sub: "*"}
	}

	r := pull(t, c, at(0))
	require.Equal(t, protocol.PullNotFound, r.code, "empty queue at 0")
	require.Equal(t, int64(0), r.next)
	r = pull(t, c, at(5))
	require.Equal(t, protocol.PullOffsetMoved, r.code, "empty queue past 0")
	require.Equal(t, int64(0), r.next)

	var sends []sent
	for i := range 5 {
		m := brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte(fmt.Sprintf("body-%d", i)),
			Tags: fmt.Sprintf("Tag%d", i%2), Keys: fmt.Sprintf("key-%d shared", i),
			Props: map[string]string{"UNIQ_KEY": fmt.Sprintf("UNIQ%028d", i), "custom": "v\x03ü"}}
		sends = append(sends, mustSend(t, c, brokertest.SendRequest(m)))
		require.Equal(t, int64(i), sends[i].queueOffset)
	}

	r = pull(t, c, at(0))
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, int64(5), r.next)
	require.Len(t, r.msgs, 5)
	for i, m := range r.msgs {
		require.Equal(t, topic, m.Topic)
		require.Equal(t, int32(0), m.QueueID)
		require.Equal(t, int64(i), m.QueueOffset)
		require.Equal(t, fmt.Sprintf("body-%d", i), string(m.Body))
		require.Equal(t, fmt.Sprintf("Tag%d", i%2), m.Tags())
		require.Equal(t, []string{fmt.Sprintf("key-%d", i), "shared"}, m.Keys())
		require.Equal(t, fmt.Sprintf("UNIQ%028d", i), m.UniqKey())
		require.Equal(t, "v\x03ü", m.Props["custom"])
		require.Equal(t, brokertest.StoreHost, m.StoreHost)
		require.Equal(t, sends[i].msgID, m.OffsetMsgID(), "send msgId is the record's offset id")
		require.Equal(t, message.MagicV1, m.Magic)
	}

	r = pull(t, c, brokertest.Pull{Group: "G_PULL", Topic: topic, Offset: 2, MaxMsgs: 2,
		SysFlag: brokertest.PullSubscription, Sub: "*"})
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"body-2", "body-3"}, bodies(r.msgs))
	require.Equal(t, int64(4), r.next, "nextBeginOffset = offset + count")

	r = pull(t, c, at(5))
	require.Equal(t, protocol.PullNotFound, r.code, "offset == max")
	require.Equal(t, int64(5), r.next)
	for _, off := range []int64{6, 1000, math.MaxInt64} {
		r = pull(t, c, at(off))
		require.Equal(t, protocol.PullOffsetMoved, r.code, "offset %d > max", off)
		require.Equal(t, int64(5), r.next, "offset %d > max moves to max, never to 0", off)
	}
	r = pull(t, c, at(-1))
	require.Equal(t, protocol.PullOffsetMoved, r.code, "negative offset")
	require.Equal(t, int64(0), r.next)
}

// TestPullOffsetTooSmall expires the first CommitLog segment so that the queue starts past 0.
func TestPullOffsetTooSmall(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "PullExpired"
	createTopic(t, c, topic, 1)
	big := make([]byte, brokertest.SegmentSize*6/10) // one message per CommitLog segment
	for i := range 3 {
		big[0] = byte('0' + i)
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: big}))
	}
	require.Equal(t, int64(3), maxOffset(t, c, topic, 0))
	n, err := b.Store().CleanExpired(0, true, 1)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	resp := c.Call(brokertest.QueueRequest(protocol.GetMinOffset, topic, 0))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, int64(1), brokertest.ExtInt(t, resp, "offset"))

	r := pull(t, c, brokertest.Pull{Group: "G_EXP", Topic: topic, SysFlag: brokertest.PullSubscription, Sub: "*"})
	require.Equal(t, protocol.PullOffsetMoved, r.code, "offset < min")
	require.Equal(t, int64(1), r.next, "moves to min")
	r = pull(t, c, brokertest.Pull{Group: "G_EXP", Topic: topic, Offset: 1, SysFlag: brokertest.PullSubscription, Sub: "*"})
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, byte('1'), r.msgs[0].Body[0])

	// A new group no longer starts at 0 once the queue does not (QUERY_CONSUMER_OFFSET rule 3).
	resp = c.Call(protocol.NewRequest(protocol.QueryConsumerOffset, map[string]string{
		"consumerGroup": "G_NEW", "topic": topic, "queueId": "0"}, nil))
	requireCode(t, resp, protocol.QueryNotFound)
}

// TestPullTagFilter filters by the request's own subscription (SUBSCRIPTION flag).
func TestPullTagFilter(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "PullTags"
	createTopic(t, c, topic, 1)
	for i, tag := range []string{"TagA", "TagB", "TagC", "TagB", "TagA", "TagD"} {
		mustSend(t, c, brokertest.SendV2Request(brokertest.Msg{Topic: topic, Tags: tag, Body: []byte(fmt.Sprint(i))}))
	}
	sub := func(off int64, max int32, expr string) pullResult {
		return pull(t, c, brokertest.Pull{Group: "G_TAGS", Topic: topic, Offset: off, MaxMsgs: max,
			SysFlag: brokertest.PullSubscription, Sub: expr})
	}

	r := sub(0, 32, "TagA || TagC")
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"TagA", "TagC", "TagA"}, tagsOf(r.msgs))
	require.Equal(t, []string{"0", "2", "4"}, bodies(r.msgs))
	require.Equal(t, int64(6), r.next, "nextBeginOffset counts the entries scanned, filtered ones too")

	r = sub(1, 1, "TagA||TagC")
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"TagC"}, tagsOf(r.msgs))
	require.Equal(t, int64(3), r.next)

	r = sub(3, 32, "TagC")
	require.Equal(t, protocol.PullRetryImmediately, r.code, "everything in range filtered")
	require.Equal(t, int64(6), r.next, "advanced past the filtered entries")
	r = sub(0, 32, "TagZ")
	require.Equal(t, protocol.PullRetryImmediately, r.code)
	require.Equal(t, int64(6), r.next)

	r = sub(0, 32, "*")
	require.Len(t, r.msgs, 6)
}

// TestPullWithHeartbeatSubscription pulls without the SUBSCRIPTION flag, as the Go push consumer
// does: the broker filters with the group's subscription from its last heartbeat.
func TestPullWithHeartbeatSubscription(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, other = "PullHB", "PullHBOther"
	createTopic(t, c, topic, 1)
	createTopic(t, c, other, 1)
	for _, tag := range []string{"TagA", "TagB", "TagA"} {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Tags: tag, Body: []byte(tag)}))
	}
	plain := func(topic string, subVersion int64) brokertest.Pull {
		return brokertest.Pull{Group: "G_HB", Topic: topic, SubVersion: subVersion}
	}

	resp := c.Call(brokertest.PullRequest(plain(topic, 0)))
	requireCode(t, resp, protocol.SubscriptionNotExist, "G_HB")

	requireCode(t, c.Call(brokertest.HeartbeatRequest(t, "client-1", "G_HB", map[string]string{topic: "TagB"})), protocol.Success)
	r := pull(t, c, plain(topic, 0))
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"TagB"}, tagsOf(r.msgs), "filtered with the heartbeat's subscription")
	require.Equal(t, int64(3), r.next)

	resp = c.Call(brokertest.PullRequest(plain(other, 0)))
	requireCode(t, resp, protocol.SubscriptionNotExist, other)
	resp = c.Call(brokertest.PullRequest(plain(topic, math.MaxInt64)))
	requireCode(t, resp, protocol.SubscriptionNotLatest)

	// A new heartbeat replaces the subscription.
	requireCode(t, c.Call(brokertest.HeartbeatRequest(t, "client-1", "G_HB", map[string]string{topic: "*"})), protocol.Success)
	r = pull(t, c, plain(topic, 0))
	require.Equal(t, []string{"TagA", "TagB", "TagA"}, tagsOf(r.msgs))
}

// TestPullLongPolling holds a pull at the end of a queue and answers it as soon as a message
// arrives: well before the 20 s suspend timeout (the connection waits at most
// brokertest.Timeout, 10 s).
func TestPullLongPolling(t *testing.T) {
	b := brokertest.Start(t)
	puller, producer := b.Dial(t), b.Dial(t)
	const topic = "PullLong"
	createTopic(t, producer, topic, 1)
	suspended := func(off int64, suspend time.Duration) brokertest.Pull {
		return brokertest.Pull{Group: "G_LONG", Topic: topic, Offset: off, Suspend: suspend,
			SysFlag: brokertest.PullSuspend | brokertest.PullSubscription, Sub: "*"}
	}

	for off := int64(0); off < 2; off++ { // an empty queue, then offset == max
		op := puller.Send(brokertest.PullRequest(suspended(off, 20*time.Second)))
		require.Eventually(t, func() bool { return b.HeldPulls() == 1 }, waitFor, tick, "the pull is held")
		puller.Sync()
		require.False(t, puller.Answered(op), "a held pull is not answered before a message arrives")
		mustSend(t, producer, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte(fmt.Sprint("m", off))}))
		r := pullResultOf(t, puller.Await(op))
		require.Equal(t, protocol.Success, r.code)
		require.Equal(t, []string{fmt.Sprint("m", off)}, bodies(r.msgs))
		require.Equal(t, off+1, r.next)
		require.Equal(t, 0, b.HeldPulls())
	}

	// With nothing arriving, the pull is answered NOT_FOUND once its suspend timeout passes.
	op := puller.Send(brokertest.PullRequest(suspended(2, 200*time.Millisecond)))
	r := pullResultOf(t, puller.Await(op))
	require.Equal(t, protocol.PullNotFound, r.code)
	require.Equal(t, int64(2), r.next)

	// Closing the broker answers held pulls rather than leaving them hanging.
	op = puller.Send(brokertest.PullRequest(suspended(2, 20*time.Second)))
	require.Eventually(t, func() bool { return b.HeldPulls() == 1 }, waitFor, tick)
	require.NoError(t, b.Close())
	if resp, ok := puller.TryAwait(op); ok {
		require.Equal(t, protocol.PullNotFound, resp.ResponseCode(), "remark %q", resp.Remark)
	}
}

// TestPullLongPollingHonoursTags holds three pulls on one queue: one filtering TagA by its own
// subscription, one filtering TagA by its group's heartbeat subscription, one taking everything.
// A TagB message wakes only the last; a TagA message then wakes the other two, and they see only
// it. (A fresh broker: its periodic hold check, which wakes every pull behind the queue's end as
// Java's does, first runs 5 s after start.)
func TestPullLongPollingHonoursTags(t *testing.T) {
	b := brokertest.Start(t)
	ownSub, hbSub, all, producer := b.Dial(t), b.Dial(t), b.Dial(t), b.Dial(t)
	const topic = "PullLongTags"
	createTopic(t, producer, topic, 1)
	requireCode(t, hbSub.Call(brokertest.HeartbeatRequest(t, "client-hb", "G_HBSUB", map[string]string{topic: "TagA"})), protocol.Success)

	hold := func(c *brokertest.Conn, p brokertest.Pull, held int) int32 {
		p.Topic, p.Suspend, p.SysFlag = topic, 20*time.Second, p.SysFlag|brokertest.PullSuspend
		op := c.Send(brokertest.PullRequest(p))
		require.Eventually(t, func() bool { return b.HeldPulls() == held }, waitFor, tick)
		return op
	}
	opOwn := hold(ownSub, brokertest.Pull{Group: "G_OWN", SysFlag: brokertest.PullSubscription, Sub: "TagA"}, 1)
	opHB := hold(hbSub, brokertest.Pull{Group: "G_HBSUB"}, 2)
	opAll := hold(all, brokertest.Pull{Group: "G_ALL", SysFlag: brokertest.PullSubscription, Sub: "*"}, 3)

	mustSend(t, producer, brokertest.SendRequest(brokertest.Msg{Topic: topic, Tags: "TagB", Body: []byte("b")}))
	r := pullResultOf(t, all.Await(opAll))
	require.Equal(t, []string{"TagB"}, tagsOf(r.msgs))
	if time.Since(b.Started) > 4*time.Second {
		t.Skip("too slow to tell a wrong wake-up from the periodic hold check")
	}
	require.Equal(t, 2, b.HeldPulls(), "a TagB message must not wake pulls filtering TagA")
	ownSub.Sync()
	hbSub.Sync()
	require.False(t, ownSub.Answered(opOwn))
	require.False(t, hbSub.Answered(opHB))

	mustSend(t, producer, brokertest.SendRequest(brokertest.Msg{Topic: topic, Tags: "TagA", Body: []byte("a")}))
	for _, w := range []struct {
		c  *brokertest.Conn
		op int32
	}{{ownSub, opOwn}, {hbSub, opHB}} {
		r := pullResultOf(t, w.c.Await(w.op))
		require.Equal(t, protocol.Success, r.code)
		require.Equal(t, []string{"TagA"}, tagsOf(r.msgs))
		require.Equal(t, int64(2), r.next)
	}
}

// TestPullLongPollingPerQueue holds pulls for two queues on one connection, as a Go consumer
// does: a message wakes only its own queue's pull. A pull whose connection closed is dropped
// without harm when its message arrives.
func TestPullLongPollingPerQueue(t *testing.T) {
	b := brokertest.Start(t)
	c, gone, producer := b.Dial(t), b.Dial(t), b.Dial(t)
	const topic = "PullPerQueue"
	createTopic(t, producer, topic, 2)
	held := func(conn *brokertest.Conn, q int32, n int) int32 {
		op := conn.Send(brokertest.PullRequest(brokertest.Pull{Group: "G_PQ", Topic: topic, QueueID: q,
			Suspend: 20 * time.Second, SysFlag: brokertest.PullSuspend | brokertest.PullSubscription, Sub: "*"}))
		require.Eventually(t, func() bool { return b.HeldPulls() == n }, waitFor, tick)
		return op
	}
	op0 := held(c, 0, 1)
	op1 := held(c, 1, 2)
	held(gone, 1, 3)
	gone.Close()

	mustSend(t, producer, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("q1")}))
	r := pullResultOf(t, c.Await(op1))
	require.Equal(t, []string{"q1"}, bodies(r.msgs))
	require.Eventually(t, func() bool { return b.HeldPulls() == 1 }, waitFor, tick, "the closed connection's pull is gone too")
	c.Sync()
	require.False(t, c.Answered(op0), "queue 0 had nothing new")

	mustSend(t, producer, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("q0")}))
	r = pullResultOf(t, c.Await(op0))
	require.Equal(t, []string{"q0"}, bodies(r.msgs))
	require.Equal(t, 0, b.HeldPulls())
}

// TestPullWithGoHeartbeat registers the subscription with a heartbeat as the Go client writes it
// (codeSet as strings, subVersion in nanoseconds) and pulls without a subscription.
func TestPullWithGoHeartbeat(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "PullGoHB"
	createTopic(t, c, topic, 1)
	for _, tag := range []string{"TagA", "TagB", "TagC"} {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Tags: tag, Body: []byte(tag)}))
	}
	hb := `{"clientID":"192.168.0.2@4242#1","producerDataSet":[],"consumerDataSet":[{"groupName":"G_GOHB",` +
		`"consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET",` +
		`"subscriptionDataSet":[{"classFilterMode":false,"topic":"` + topic + `","subString":"TagA || TagC",` +
		`"tagsSet":["TagA","TagC"],"codeSet":["` + fmt.Sprint(message.JavaHash("TagA")) + `","` +
		fmt.Sprint(message.JavaHash("TagC")) + `"],"subVersion":1700000000123456789,"expressionType":"TAG"}],"unitMode":false}]}`
	hbReq := protocol.NewRequest(protocol.HeartBeat, map[string]string{}, []byte(hb))
	hbReq.Language, hbReq.Version = "GO", 317
	requireCode(t, c.Call(hbReq), protocol.Success)
	r := pull(t, c, brokertest.Pull{Group: "G_GOHB", Topic: topic, SysFlag: brokertest.PullSuspend, Suspend: 20 * time.Second})
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"TagA", "TagC"}, tagsOf(r.msgs))
}

// TestPullBatchLimits caps one pull at 32 messages and 256 KiB while the data is in memory, but
// always returns at least one message (§2.6 "Batch limits").
func TestPullBatchLimits(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "PullLimits"
	createTopic(t, c, topic, 2)
	var batch []brokertest.Msg
	for i := range 40 {
		batch = append(batch, brokertest.Msg{Topic: topic, Body: []byte(fmt.Sprint(i))})
	}
	mustSend(t, c, brokertest.BatchRequest(batch...))
	r := pull(t, c, brokertest.Pull{Group: "G_LIM", Topic: topic, MaxMsgs: 64, SysFlag: brokertest.PullSubscription, Sub: "*"})
	require.Len(t, r.msgs, 32)
	require.Equal(t, int64(32), r.next)

	body := make([]byte, 40<<10)
	for range 10 {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: body}))
	}
	r = pull(t, c, brokertest.Pull{Group: "G_LIM", Topic: topic, QueueID: 1, SysFlag: brokertest.PullSubscription, Sub: "*"})
	size := int(r.msgs[0].StoreSize)
	require.Len(t, r.msgs, (256<<10)/size, "as many %d-byte records as fit in 256 KiB", size)
	require.Equal(t, int64(len(r.msgs)), r.next)

	big := make([]byte, 300<<10)
	s := mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: big}))
	r = pull(t, c, brokertest.Pull{Group: "G_LIM", Topic: topic, QueueID: 1, Offset: s.queueOffset, SysFlag: brokertest.PullSubscription, Sub: "*"})
	require.Len(t, r.msgs, 1, "a record larger than the byte limit still comes alone")
	require.Len(t, r.msgs[0].Body, 300<<10)
}

// TestHeldPullsAreBoundedAndGoWithTheirConnection plays issue 7's row 5 on a small scale: pulls
// asking a 10^12 ms suspend are held at most longPollingMaxSuspendMillis, at most
// longPollingMaxHeldPerConnection of them per connection (beyond: SYSTEM_BUSY), and when the
// connection closes they are dropped: a later message wakes none of them.
func TestHeldPullsAreBoundedAndGoWithTheirConnection(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) {
		o.Limits.MaxHeldPullsPerConnection = 20
		o.Limits.MaxSuspendTimeout = 300 * time.Millisecond
	})
	hostile, producer := b.Dial(t), b.Dial(t)
	const topic = "PullHeldBound"
	createTopic(t, producer, topic, 1)
	p := brokertest.Pull{Group: "G_HELD", Topic: topic, Suspend: 1e12 * time.Millisecond,
		SysFlag: brokertest.PullSuspend | brokertest.PullSubscription, Sub: "*"}

	// The suspend is capped: the pull is answered NOT_FOUND after 300 ms, not in 31 years.
	r := pullResultOf(t, hostile.Call(brokertest.PullRequest(p)))
	require.Equal(t, protocol.PullNotFound, r.code)

	b2 := brokertest.Start(t, func(o *broker.Options) { o.Limits.MaxHeldPullsPerConnection = 20 })
	hostile, producer = b2.Dial(t), b2.Dial(t)
	createTopic(t, producer, topic, 1)
	var ops []int32
	for range 25 {
		ops = append(ops, hostile.Send(brokertest.PullRequest(p)))
	}
	require.Eventually(t, func() bool {
		hostile.Sync()
		busy := 0
		for _, op := range ops {
			if hostile.Answered(op) {
				busy++
			}
		}
		return busy == 5
	}, waitFor, tick, "the pulls beyond the limit are answered at once")
	for _, op := range ops {
		if hostile.Answered(op) {
			resp := hostile.Await(op)
			require.Equal(t, protocol.SystemBusy, resp.ResponseCode(), resp.Remark)
			require.Contains(t, resp.Remark, "longPollingMaxHeldPerConnection")
		}
	}
	require.Equal(t, 20, b2.HeldPulls())
	other := b2.Dial(t)
	op := other.Send(brokertest.PullRequest(p))
	require.Eventually(t, func() bool { return b2.HeldPulls() == 21 }, waitFor, tick, "another connection still may")

	hostile.Close()
	require.Eventually(t, func() bool { return b2.HeldPulls() == 1 }, waitFor, tick, "the closed connection's pulls are dropped")
	mustSend(t, producer, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("once")}))
	r = pullResultOf(t, other.Await(op))
	require.Equal(t, []string{"once"}, bodies(r.msgs), "the live pull is answered")
	require.Zero(t, b2.HeldPulls())
}
