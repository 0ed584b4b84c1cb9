package processor_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func requireAnswer(t *testing.T, resp *protocol.Command, code protocol.ResponseCode, remark string) {
	t.Helper()
	require.True(t, resp.IsResponse())
	require.Equal(t, code, resp.ResponseCode(), "remark %q", resp.Remark)
	require.Equal(t, remark, resp.Remark)
}

var loopback = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), 0)

func TestSendHandler(t *testing.T) {
	f := &fakes{a: answers{sendResult: send.Result{Status: outcome.OK, QueueID: 2,
		Put: store.PutResult{WroteOffset: 64, QueueOffset: 9, StoreHost: netip.MustParseAddrPort("10.0.0.9:10911")}}}}
	c := serve(t, f)
	m := brokertest.Msg{Topic: "T", QueueID: 2, Body: []byte("hi"), Tags: "a"}
	resp := c.Call(brokertest.SendRequest(m))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, map[string]string{"msgId": message.OffsetMsgID(netip.MustParseAddrPort("10.0.0.9:10911"), 64),
		"queueId": "2", "queueOffset": "9", "MSG_REGION": "DefaultRegion", "TRACE_ON": "true"}, resp.ExtFields.Map())
	got := f.last().(sendCall).R
	require.Equal(t, send.Request{ProducerGroup: "PG_TEST", Topic: "T", DefaultTopic: "TBW102", DefaultTopicQueueNums: 4,
		QueueID: 2, BornTimestamp: got.BornTimestamp, BornHost: loopback, Properties: m.Properties(),
		MaxReconsumeTimes: 16, Body: []byte("hi")}, got)

	c.Call(brokertest.SendV2Request(m))
	require.Equal(t, "T", f.last().(sendCall).R.Topic, "SEND_MESSAGE_V2's one-letter names")

	c.Call(brokertest.BatchRequest(m, m))
	require.Equal(t, "T", f.last().(batchCall).R.Topic, "SEND_BATCH_MESSAGE is a batch")
	flagged := brokertest.SendRequest(m)
	flagged.ExtFields.Set("batch", "true")
	c.Call(flagged)
	require.IsType(t, batchCall{}, f.last(), "a SEND_MESSAGE flagged batch is a batch")

	f.set(func(a *answers) {
		a.sendResult.Status, a.sendResult.Remark = outcome.FlushSlaveTimeout, "flush slave timeout"
	})
	resp = c.Call(brokertest.SendRequest(m))
	requireAnswer(t, resp, protocol.FlushSlaveTimeout, "flush slave timeout")
	require.Equal(t, "9", resp.ExtFields.Get("queueOffset"), "a stored message's offsets are answered")

	f.set(func(a *answers) {
		a.err = outcome.Errorf(outcome.TopicNotExist, "topic[T] not exist, apply first please!")
	})
	resp = c.Call(brokertest.SendRequest(m))
	requireAnswer(t, resp, protocol.TopicNotExist, "topic[T] not exist, apply first please!")
	require.Zero(t, resp.ExtFields.Len())
}

func TestSendHandlerBatchIDs(t *testing.T) {
	host := netip.MustParseAddrPort("10.0.0.9:10911")
	f := &fakes{a: answers{sendResult: send.Result{Put: store.PutResult{Offsets: []int64{64, 128}, StoreHost: host}}}}
	c := serve(t, f)
	resp := c.Call(brokertest.BatchRequest(brokertest.Msg{Topic: "T"}))
	require.Equal(t, message.OffsetMsgID(host, 64)+","+message.OffsetMsgID(host, 128), resp.ExtFields.Get("msgId"))
}

func TestBadHeaders(t *testing.T) {
	c := serve(t, &fakes{})
	req := brokertest.SendV2Request(brokertest.Msg{Topic: "T"})
	req.ExtFields.Delete("b")
	requireAnswer(t, c.Call(req), protocol.SystemError, "the custom field <b> is null")
	req = brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "T"})
	req.ExtFields.Set("queueOffset", "1.5")
	requireAnswer(t, c.Call(req), protocol.SystemError, `the custom field <queueOffset> is not a number: "1.5"`)
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.QueryConsumerOffset, map[string]string{"topic": "T"}, nil)),
		protocol.SystemError, "the custom field <consumerGroup> is null")
}

func TestSendBackHandler(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	req := protocol.NewHeaderRequest(protocol.ConsumerSendMsgBack, &protocol.ConsumerSendMsgBackRequestHeader{
		Offset: 99, Group: "G", DelayLevel: 3, OriginMsgID: protocol.Some("ORIG")}, nil)
	requireAnswer(t, c.Call(req), protocol.Success, "")
	require.Equal(t, sendback.Request{Offset: 99, Group: "G", DelayLevel: 3, OriginMsgID: "ORIG", MaxReconsumeTimes: -1}, f.last())
	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.GroupNotExist, "subscription group not exist, G") })
	requireAnswer(t, c.Call(req), protocol.SubscriptionGroupNotExist, "subscription group not exist, G")
}

func TestPullHandler(t *testing.T) {
	f := &fakes{a: answers{pullResult: pull.Result{Status: outcome.OK, Remark: "FOUND", SuggestBrokerID: 1, NextBeginOffset: 5,
		MinOffset: 0, MaxOffset: 9, Records: [][]byte{[]byte("r1"), []byte("r2")}}}}
	c := serve(t, f)
	p := brokertest.Pull{Group: "G", Topic: "T", QueueID: 1, Offset: 3, SysFlag: brokertest.PullSubscription |
		brokertest.PullCommitOffset | brokertest.PullSuspend, Suspend: 15 * time.Second, Sub: "a", SubVersion: 8, CommitOffset: 2}
	resp := c.Call(brokertest.PullRequest(p))
	requireAnswer(t, resp, protocol.Success, "FOUND")
	require.Equal(t, map[string]string{"suggestWhichBrokerId": "1", "nextBeginOffset": "5", "minOffset": "0",
		"maxOffset": "9"}, resp.ExtFields.Map())
	require.Equal(t, []byte("r1r2"), resp.Body, "the records are the body")
	require.Equal(t, pull.Request{Group: "G", Topic: "T", QueueID: 1, QueueOffset: 3, MaxMsgNums: 32, Commit: true,
		CommitOffset: 2, Suspend: true, SuspendTimeout: 15 * time.Second, OwnSubscription: true, Subscription: "a",
		ExpressionType: body.ExpressionTag, SubVersion: 8}, f.last())

	f.set(func(a *answers) {
		a.pullResult = pull.Result{Status: outcome.PullOffsetMoved, Remark: "OFFSET_TOO_SMALL", NextBeginOffset: 4}
	})
	resp = c.Call(brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "T"}))
	requireAnswer(t, resp, protocol.PullOffsetMoved, "OFFSET_TOO_SMALL")
	require.Equal(t, pull.Request{Group: "G", Topic: "T", MaxMsgNums: 32, ExpressionType: body.ExpressionTag}, f.last())

	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.SubscriptionNotLatest, "not latest") })
	requireAnswer(t, c.Call(brokertest.PullRequest(p)), protocol.SubscriptionNotLatest, "not latest")
}

// TestHeldPullsGoWithTheirConnection: a pull names its connection (counted, and released when it
// closes) and carries the connection's end, so that a held pull of a closed connection is dropped.
func TestHeldPullsGoWithTheirConnection(t *testing.T) {
	f := &fakes{a: answers{pullHeld: true}}
	c := serve(t, f)
	c.Send(brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "T", SysFlag: brokertest.PullSuspend}))
	c.Sync()
	by, released := f.connOf(0)
	require.NotZero(t, by.owner)
	require.Empty(t, released)
	select {
	case <-by.done:
		t.Fatal("the connection is open")
	default:
	}
	c.Close()
	<-by.done
	require.Eventually(t, func() bool {
		_, released := f.connOf(0)
		return len(released) == 1 && released[0] == by.owner
	}, 5*time.Second, time.Millisecond, "the closed connection's pulls are released")
}

func TestHeldPull(t *testing.T) {
	f := &fakes{a: answers{pullHeld: true}}
	c := serve(t, f)
	op := c.Send(brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "T", SysFlag: brokertest.PullSuspend}))
	c.Sync()
	// The server serves requests at once: Sync's answer does not say the pull's handler ran.
	f.awaitPulls(t, 1)
	require.False(t, c.Answered(op), "a held pull is not answered yet")

	f.woken()(pull.Result{Status: outcome.PullNotFound, Remark: "OFFSET_OVERFLOW_ONE", NextBeginOffset: 3}, nil)
	resp := c.Await(op)
	requireAnswer(t, resp, protocol.PullNotFound, "OFFSET_OVERFLOW_ONE")
	require.Equal(t, "3", resp.ExtFields.Get("nextBeginOffset"))

	op = c.Send(brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "T", SysFlag: brokertest.PullSuspend}))
	c.Sync()
	f.awaitPulls(t, 2)
	f.woken()(pull.Result{}, outcome.Errorf(outcome.TopicNotExist, "topic[T] not exist, apply first please!"))
	requireAnswer(t, c.Await(op), protocol.TopicNotExist, "topic[T] not exist, apply first please!")
}

func TestOffsetHandlers(t *testing.T) {
	f := &fakes{a: answers{committed: 6}}
	c := serve(t, f)
	resp := c.Call(protocol.NewHeaderRequest(protocol.QueryConsumerOffset,
		&protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: 1}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, map[string]string{"offset": "6"}, resp.ExtFields.Map())
	require.Equal(t, committedCall{"G", "T", 1}, f.last())

	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.UpdateConsumerOffset,
		&protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: 1, CommitOffset: 8}, nil)),
		protocol.Success, "")
	require.Equal(t, commitCall{"G", "T", 1, 8}, f.last())

	for _, tc := range []struct {
		code      protocol.RequestCode
		key, want string
		call      queueCall
	}{
		{protocol.GetMaxOffset, "offset", "11", queueCall{"max", "T", 2, 0}},
		{protocol.GetMinOffset, "offset", "2", queueCall{"min", "T", 2, 0}},
		{protocol.GetEarliestMsgStoreTime, "timestamp", "1234", queueCall{"earliest", "T", 2, 0}},
	} {
		resp := c.Call(brokertest.QueueRequest(tc.code, "T", 2))
		requireAnswer(t, resp, protocol.Success, "")
		require.Equal(t, map[string]string{tc.key: tc.want}, resp.ExtFields.Map(), "%v", tc.code)
		require.Equal(t, tc.call, f.last())
	}
	resp = c.Call(protocol.NewHeaderRequest(protocol.SearchOffsetByTimestamp,
		&protocol.SearchOffsetRequestHeader{Topic: "T", QueueID: 3, Timestamp: 500}, nil))
	require.Equal(t, map[string]string{"offset": "7"}, resp.ExtFields.Map())
	require.Equal(t, queueCall{"bytime", "T", 3, 500}, f.last())

	resp = c.Call(protocol.NewRequest(protocol.GetAllConsumerOffset, nil, nil))
	require.JSONEq(t, `{"offsetTable":{"T@G":{"0":3}}}`, string(resp.Body))

	f.set(func(a *answers) {
		a.err = outcome.Errorf(outcome.QueryNotFound, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first")
	})
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.QueryConsumerOffset,
		&protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: "G", Topic: "T"}, nil)),
		protocol.QueryNotFound, "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first")
}

func TestMembershipHandlers(t *testing.T) {
	f := &fakes{a: answers{ids: []string{"c1", "c2"}}}
	c := serve(t, f)
	hb := brokertest.HeartbeatRequest(t, "10.0.0.1@c1", "CG", map[string]string{"T": "*"})
	hb.Language, hb.Version = "GO", 317
	requireAnswer(t, c.Call(hb), protocol.Success, "")
	got := f.last().(body.HeartbeatData)
	require.Equal(t, "10.0.0.1@c1", got.ClientID)
	require.Equal(t, "CG", got.ConsumerDataSet[0].GroupName)
	ch := f.channel(0)
	require.Equal(t, "10.0.0.1@c1", ch.ClientID)
	require.Equal(t, "GO", ch.Language)
	require.Equal(t, int32(317), ch.Version)
	require.Equal(t, c.LocalAddr(), ch.Channel.RemoteAddr(), "the client's connection")

	requireAnswer(t, c.Call(protocol.NewRequest(protocol.HeartBeat, nil, []byte("{"))), protocol.SystemError,
		"bad heartbeat body: "+decodeErr(t, []byte("{")))

	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.UnregisterClient,
		&protocol.UnregisterClientRequestHeader{ClientID: "c1", ConsumerGroup: protocol.Some("CG")}, nil)), protocol.Success, "")
	require.Equal(t, unregister{"", "", "CG"}, f.last())

	resp := c.Call(protocol.NewHeaderRequest(protocol.GetConsumerListByGroup,
		&protocol.GetConsumerListByGroupRequestHeader{ConsumerGroup: "CG"}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"consumerIdList":["c1","c2"]}`, string(resp.Body))

	c.Close()
	require.Eventually(t, func() bool { return f.last() == "closed" }, 5*time.Second, time.Millisecond,
		"a closed connection ends its memberships")
}

func decodeErr(t *testing.T, data []byte) string {
	_, err := body.DecodeHeartbeatData(data)
	require.Error(t, err)
	return err.Error()
}

func TestQueryHandlers(t *testing.T) {
	f := &fakes{a: answers{queryRes: &store.QueryResult{Records: [][]byte{[]byte("rec")}, IndexLastUpdateTimestamp: 5,
		IndexLastUpdatePhyOffset: 6}, record: []byte("one")}}
	c := serve(t, f)
	resp := c.Call(protocol.NewHeaderRequest(protocol.QueryMessage, &protocol.QueryMessageRequestHeader{Topic: "T",
		Key: "k", MaxNum: 4, BeginTimestamp: 1, EndTimestamp: 2, UniqueKeyQuery: protocol.Some(true)}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, map[string]string{"indexLastUpdateTimestamp": "5", "indexLastUpdatePhyoffset": "6"}, resp.ExtFields.Map())
	require.Equal(t, []byte("rec"), resp.Body)
	require.Equal(t, query.KeyQuery{Topic: "T", Key: "k", MaxNum: 4, Begin: 1, End: 2, Unique: true}, f.last())

	resp = c.Call(protocol.NewHeaderRequest(protocol.ViewMessageByID, &protocol.ViewMessageRequestHeader{Offset: 64}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, []byte("one"), resp.Body)
	require.Equal(t, int64(64), f.last())

	f.set(func(a *answers) {
		a.err = outcome.Errorf(outcome.QueryNotFound, "can not find message, maybe time range not correct")
	})
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.QueryMessage, &protocol.QueryMessageRequestHeader{}, nil)),
		protocol.QueryNotFound, "can not find message, maybe time range not correct")
}

func TestEndTransactionHandler(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	req := protocol.NewHeaderRequest(protocol.EndTransaction, &protocol.EndTransactionRequestHeader{ProducerGroup: "PG",
		TranStateTableOffset: 3, CommitLogOffset: 64, CommitOrRollback: 8, MsgID: "M",
		FromTransactionCheck: protocol.Some(true), TransactionID: protocol.Some("TX")}, nil)
	requireAnswer(t, c.Call(req), protocol.Success, "")
	require.Equal(t, transaction.EndRequest{ProducerGroup: "PG", TranStateTableOffset: 3, CommitLogOffset: 64,
		CommitOrRollback: 8, FromTransactionCheck: true, MsgID: "M", TransactionID: "TX"}, f.last())
	f.set(func(a *answers) { a.err = errors.New("no half message at 64") })
	requireAnswer(t, c.Call(req), protocol.SystemError, "no half message at 64")
}
