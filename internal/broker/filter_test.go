package broker_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

const sqlDisabledRemark = "The broker does not support consumer to filter message by SQL92"

func withPropertyFilter(o *broker.Options) { o.EnablePropertyFilter = true }

// sqlPullRequest is PULL_MESSAGE with expressionType SQL92.
func sqlPullRequest(p brokertest.Pull) *protocol.Command {
	req := brokertest.PullRequest(p)
	req.ExtFields.Set("expressionType", body.ExpressionSQL92)
	return req
}

// sqlHeartbeat is HEART_BEAT as the Go push consumer sends it for one SQL92 subscription: empty
// tagsSet and codeSet, subVersion in nanoseconds.
func sqlHeartbeat(t *testing.T, clientID, group, topic, expr string) *protocol.Command {
	t.Helper()
	sub, err := json.Marshal(expr)
	require.NoError(t, err)
	hb := `{"clientID":"` + clientID + `","producerDataSet":[],"consumerDataSet":[{"groupName":"` + group + `",` +
		`"consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",` +
		`"subscriptionDataSet":[{"classFilterMode":false,"topic":"` + topic + `","subString":` + string(sub) + `,` +
		`"tagsSet":[],"codeSet":[],"subVersion":` + fmt.Sprint(time.Now().UnixNano()) + `,"expressionType":"SQL92"}],` +
		`"unitMode":false}]}`
	req := protocol.NewRequest(protocol.HeartBeat, map[string]string{}, []byte(hb))
	req.Language, req.Version = "GO", 317
	return req
}

// sendProps sends one message per property set to queue 0 of topic; the body names its index.
func sendProps(t *testing.T, c *brokertest.Conn, topic string, sets ...map[string]string) {
	t.Helper()
	for i, props := range sets {
		mustSend(t, c, brokertest.SendV2Request(brokertest.Msg{Topic: topic, Body: []byte(fmt.Sprint(i)), Props: props}))
	}
}

// filterMessages are ten messages: a = 1..10, color red for even a, blue for odd; TagA for a ≤ 5.
func filterMessages() []map[string]string {
	var out []map[string]string
	for a := 1; a <= 10; a++ {
		color, tag := "blue", "TagB"
		if a%2 == 0 {
			color = "red"
		}
		if a <= 5 {
			tag = "TagA"
		}
		out = append(out, map[string]string{"a": fmt.Sprint(a), "color": color, message.PropertyTags: tag})
	}
	return out
}

func propsOf(msgs []*message.MessageExt, key string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Props[key]
	}
	return out
}

// TestSQLFilterPull filters by the pull's own SQL92 subscription: only matching records come back,
// nextBeginOffset counts every entry scanned, and a range with no match is PULL_RETRY_IMMEDIATELY
// past it.
func TestSQLFilterPull(t *testing.T) {
	b := brokertest.Start(t, withPropertyFilter)
	c := b.Dial(t)
	const topic = "SQLPull"
	createTopic(t, c, topic, 1)
	sendProps(t, c, topic, filterMessages()...)
	sql := func(off int64, max int32, expr string) pullResult {
		return pullResultOf(t, c.Call(sqlPullRequest(brokertest.Pull{Group: "G_SQL", Topic: topic, Offset: off,
			MaxMsgs: max, SysFlag: brokertest.PullSubscription, Sub: expr})))
	}

	r := sql(0, 32, "a > 5 AND color = 'red'")
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"6", "8", "10"}, propsOf(r.msgs, "a"))
	require.Equal(t, []int64{5, 7, 9}, []int64{r.msgs[0].QueueOffset, r.msgs[1].QueueOffset, r.msgs[2].QueueOffset})
	require.Equal(t, int64(10), r.next, "nextBeginOffset counts the filtered entries too")

	r = sql(0, 1, "a > 5 AND color = 'red'")
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"6"}, propsOf(r.msgs, "a"))
	require.Equal(t, int64(6), r.next, "stops after maxMsgNums matches")

	r = sql(6, 32, "color IN ('red') AND TAGS = 'TagB' AND a BETWEEN 7 AND 9")
	require.Equal(t, []string{"8"}, propsOf(r.msgs, "a"))
	require.Equal(t, int64(10), r.next)

	r = sql(2, 32, "a > 100 OR color = 'green'")
	require.Equal(t, protocol.PullRetryImmediately, r.code, "every entry in range filtered")
	require.Equal(t, int64(10), r.next, "advanced past the filtered entries")

	r = sql(0, 32, "nosuch IS NULL")
	require.Len(t, r.msgs, 10)
	resp := c.Call(sqlPullRequest(brokertest.Pull{Group: "G_SQL", Topic: topic, SysFlag: brokertest.PullSubscription,
		Sub: "a > 'x' OR TRUE"}))
	requireCode(t, resp, protocol.SubscriptionParseFailed, "parse the consumer's subscription failed", "position 2")
	r = sql(10, 32, "TRUE")
	require.Equal(t, protocol.PullNotFound, r.code, "offset == max")
	require.Equal(t, int64(10), r.next)
}

// TestSQLFilterHeartbeatSubscription: the Go push consumer pulls without a subscription, so the
// broker filters with the SQL92 expression of the group's last heartbeat. The Go pull consumer's
// polling sends its SQL92 expression labelled TAG; the heartbeat's type wins.
func TestSQLFilterHeartbeatSubscription(t *testing.T) {
	b := brokertest.Start(t, withPropertyFilter)
	c := b.Dial(t)
	const topic = "SQLHeartbeat"
	const expr = "color = 'blue' AND a >= 5"
	createTopic(t, c, topic, 1)
	sendProps(t, c, topic, filterMessages()...)
	requireCode(t, c.Call(sqlHeartbeat(t, "client-sql", "G_SQLHB", topic, expr)), protocol.Success)

	r := pull(t, c, brokertest.Pull{Group: "G_SQLHB", Topic: topic, SysFlag: brokertest.PullSuspend, Suspend: 20 * time.Second})
	require.Equal(t, protocol.Success, r.code)
	require.Equal(t, []string{"5", "7", "9"}, propsOf(r.msgs, "a"))
	require.Equal(t, int64(10), r.next)

	r = pull(t, c, brokertest.Pull{Group: "G_SQLHB", Topic: topic, SysFlag: brokertest.PullSubscription, Sub: expr})
	require.Equal(t, protocol.Success, r.code, "TAG-labelled copy of the heartbeat's SQL92 expression")
	require.Equal(t, []string{"5", "7", "9"}, propsOf(r.msgs, "a"))

	// A group with a tag subscription to the topic is filtered by tags as before.
	requireCode(t, c.Call(brokertest.HeartbeatRequest(t, "client-tag", "G_TAGHB", map[string]string{topic: "TagA"})), protocol.Success)
	r = pull(t, c, brokertest.Pull{Group: "G_TAGHB", Topic: topic})
	require.Equal(t, []string{"1", "2", "3", "4", "5"}, propsOf(r.msgs, "a"))

	// A new heartbeat replaces the expression.
	requireCode(t, c.Call(sqlHeartbeat(t, "client-sql", "G_SQLHB", topic, "a = 2")), protocol.Success)
	r = pull(t, c, brokertest.Pull{Group: "G_SQLHB", Topic: topic})
	require.Equal(t, []string{"2"}, propsOf(r.msgs, "a"))
}

// TestSQLFilterParseFailure: a pull's own expression that does not compile is
// SUBSCRIPTION_PARSE_FAILED; a heartbeat's is accepted (the Go client ignores heartbeat errors, and
// failing it would drop the client's other groups) and its pulls get FILTER_DATA_NOT_EXIST, as in
// Java.
func TestSQLFilterParseFailure(t *testing.T) {
	b := brokertest.Start(t, withPropertyFilter)
	c := b.Dial(t)
	const topic = "SQLBad"
	createTopic(t, c, topic, 1)
	sendProps(t, c, topic, filterMessages()[:2]...)

	for _, expr := range []string{"a >", "a = 'x", "color LIKE 'r%'", "a > 'x'", ""} {
		p := brokertest.Pull{Group: "G_BAD", Topic: topic, SysFlag: brokertest.PullSubscription, Sub: expr}
		req := sqlPullRequest(p)
		if expr == "" {
			req.ExtFields.Set("subscription", "")
		}
		requireCode(t, c.Call(req), protocol.SubscriptionParseFailed, "parse the consumer's subscription failed")
	}

	requireCode(t, c.Call(sqlHeartbeat(t, "client-bad", "G_BADHB", topic, "a >> 1")), protocol.Success)
	resp := c.Call(brokertest.PullRequest(brokertest.Pull{Group: "G_BADHB", Topic: topic}))
	requireCode(t, resp, protocol.FilterDataNotExist, "The broker's consumer filter data is not exist!Your expression may be wrong!")

	// Fixing the expression in the next heartbeat fixes the pulls.
	requireCode(t, c.Call(sqlHeartbeat(t, "client-bad", "G_BADHB", topic, "a > 1")), protocol.Success)
	r := pull(t, c, brokertest.Pull{Group: "G_BADHB", Topic: topic})
	require.Equal(t, []string{"2"}, propsOf(r.msgs, "a"))
}

// TestSQLFilterDisabled: without enablePropertyFilter every SQL92 pull is SYSTEM_ERROR with Java's
// remark, whether the expression comes with the pull or from a heartbeat.
func TestSQLFilterDisabled(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "SQLOff"
	createTopic(t, c, topic, 1)
	sendProps(t, c, topic, filterMessages()[:2]...)

	resp := c.Call(sqlPullRequest(brokertest.Pull{Group: "G_OFF", Topic: topic, SysFlag: brokertest.PullSubscription, Sub: "a > 1"}))
	requireCode(t, resp, protocol.SystemError, sqlDisabledRemark)
	require.Equal(t, sqlDisabledRemark, resp.Remark)

	requireCode(t, c.Call(sqlHeartbeat(t, "client-off", "G_OFFHB", topic, "a > 1")), protocol.Success)
	resp = c.Call(brokertest.PullRequest(brokertest.Pull{Group: "G_OFFHB", Topic: topic}))
	requireCode(t, resp, protocol.SystemError, sqlDisabledRemark)

	r := pull(t, c, brokertest.Pull{Group: "G_OFFTAG", Topic: topic, SysFlag: brokertest.PullSubscription, Sub: "*"})
	require.Len(t, r.msgs, 2, "tag subscriptions are unaffected")
}

// TestSQLFilterLongPolling holds three pulls at the end of a queue: one with its own SQL92
// expression, one with its group's heartbeat expression, one taking everything. A message that
// matches neither expression wakes only the last; a matching one then wakes the other two, which
// return just it. (A fresh broker: its periodic hold check, which wakes every pull behind the
// queue's end as Java's does, first runs 5 s after start.)
func TestSQLFilterLongPolling(t *testing.T) {
	b := brokertest.Start(t, withPropertyFilter)
	own, hb, all, producer := b.Dial(t), b.Dial(t), b.Dial(t), b.Dial(t)
	const topic = "SQLLong"
	const expr = "a > 5 AND color = 'red'"
	createTopic(t, producer, topic, 1)
	requireCode(t, hb.Call(sqlHeartbeat(t, "client-hb", "G_LHB", topic, expr)), protocol.Success)

	hold := func(c *brokertest.Conn, req *protocol.Command, held int) int32 {
		op := c.Send(req)
		require.Eventually(t, func() bool { return b.HeldPulls() == held }, waitFor, tick)
		return op
	}
	suspended := func(p brokertest.Pull) brokertest.Pull {
		p.Topic, p.Suspend, p.SysFlag = topic, 20*time.Second, p.SysFlag|brokertest.PullSuspend
		return p
	}
	opOwn := hold(own, sqlPullRequest(suspended(brokertest.Pull{Group: "G_LOWN", SysFlag: brokertest.PullSubscription, Sub: expr})), 1)
	opHB := hold(hb, brokertest.PullRequest(suspended(brokertest.Pull{Group: "G_LHB"})), 2)
	opAll := hold(all, brokertest.PullRequest(suspended(brokertest.Pull{Group: "G_LALL", SysFlag: brokertest.PullSubscription, Sub: "*"})), 3)

	sendProps(t, producer, topic, map[string]string{"a": "9", "color": "blue"})
	r := pullResultOf(t, all.Await(opAll))
	require.Equal(t, []string{"9"}, propsOf(r.msgs, "a"))
	if time.Since(b.Started) > 4*time.Second {
		t.Skip("too slow to tell a wrong wake-up from the periodic hold check")
	}
	require.Equal(t, 2, b.HeldPulls(), "a message the expression rejects must not wake its pulls")
	own.Sync()
	hb.Sync()
	require.False(t, own.Answered(opOwn))
	require.False(t, hb.Answered(opHB))

	mustSend(t, producer, brokertest.SendV2Request(brokertest.Msg{Topic: topic, Body: []byte("match"),
		Props: map[string]string{"a": "6", "color": "red"}}))
	for _, w := range []struct {
		c  *brokertest.Conn
		op int32
	}{{own, opOwn}, {hb, opHB}} {
		r := pullResultOf(t, w.c.Await(w.op))
		require.Equal(t, protocol.Success, r.code)
		require.Equal(t, []string{"6"}, propsOf(r.msgs, "a"), "only the matching message")
		require.Equal(t, int64(2), r.next)
	}
	require.Equal(t, 0, b.HeldPulls())
}
