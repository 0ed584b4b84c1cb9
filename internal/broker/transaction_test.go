package broker_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

const txTopic = "TxTopic"

// checkEvery makes the broker run a check-back pass every interval, asking about half messages
// older than timeout.
func checkEvery(interval, timeout time.Duration) func(*broker.Options) {
	return func(o *broker.Options) {
		o.TransactionCheckInterval = interval
		o.TransactionTimeOut = timeout
	}
}

// halfSent is what the send response says about a half message.
type halfSent struct {
	uniq            string
	msgID           string
	commitLogOffset int64
	queueOffset     int64
}

// halfRequest is SEND_MESSAGE of a half message as the Go transaction producer sends it: TRAN_MSG
// and PGROUP properties, sysFlag PREPARED.
func halfRequest(group, uniq string, queueID int32, body string) *protocol.Command {
	req := brokertest.SendRequest(brokertest.Msg{Topic: txTopic, QueueID: queueID, Body: []byte(body), Tags: "TagTx", Keys: uniq,
		Props: map[string]string{message.PropertyTransactionPrepared: "true", message.PropertyProducerGroup: group,
			message.PropertyUniqClientMessageID: uniq}})
	req.ExtFields.Set("producerGroup", group)
	req.ExtFields.Set("sysFlag", strconv.Itoa(int(message.SysFlagTransactionPrep)))
	return req
}

// sendHalf sends a half message to txTopic's queue 2 and waits until the half queue holds it.
func sendHalf(t *testing.T, c *brokertest.Conn, group, uniq, body string) halfSent {
	t.Helper()
	resp := c.Call(halfRequest(group, uniq, 2, body))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "2", resp.ExtFields.Get("queueId"), "the answer names the queue asked for")
	h := halfSent{uniq: uniq, msgID: resp.ExtFields.Get("msgId"), queueOffset: brokertest.ExtInt(t, resp, "queueOffset")}
	var err error
	_, h.commitLogOffset, err = message.ParseOffsetMsgID(h.msgID)
	require.NoError(t, err, "msgId %q is an offset message id the Go client parses back", h.msgID)
	waitDispatched(t, c, systopic.TransHalf, 0, h.queueOffset+1)
	return h
}

// endRequest is END_TRANSACTION as the Go client sends it (no oneway flag).
func endRequest(group string, tranStateTableOffset, commitLogOffset int64, state int32, fromCheck bool, msgID string) *protocol.Command {
	return protocol.NewHeaderRequest(protocol.EndTransaction, &protocol.EndTransactionRequestHeader{
		ProducerGroup:        group,
		TranStateTableOffset: tranStateTableOffset,
		CommitLogOffset:      commitLogOffset,
		CommitOrRollback:     state,
		FromTransactionCheck: protocol.Some(fromCheck),
		MsgID:                msgID,
		TransactionID:        protocol.Some(""),
		BrokerName:           protocol.Some("broker-a"),
	}, nil)
}

func (h halfSent) end(group string, state int32) *protocol.Command {
	return endRequest(group, h.queueOffset, h.commitLogOffset, state, false, h.msgID)
}

// producerHeartbeat registers c as a producer of group.
func producerHeartbeat(t *testing.T, c *brokertest.Conn, group string) {
	t.Helper()
	hb := fmt.Sprintf(`{"clientID":"127.0.0.1@tx","producerDataSet":[{"groupName":%q}],"consumerDataSet":[]}`, group)
	requireCode(t, c.Call(protocol.NewRequest(protocol.HeartBeat, nil, []byte(hb))), protocol.Success)
}

// checkRequests returns the CHECK_TRANSACTION_STATE requests read so far.
func checkRequests(c *brokertest.Conn) []*protocol.Command {
	var out []*protocol.Command
	for _, r := range c.TakeRequests() {
		if r.RequestCode() == protocol.CheckTransactionState {
			out = append(out, r)
		}
	}
	return out
}

// waitCheckOffset waits until the check-back loop's offset of the half queue reaches want.
func waitCheckOffset(t *testing.T, c *brokertest.Conn, want int64) {
	t.Helper()
	var got string
	require.Eventually(t, func() bool {
		resp := queryOffset(t, c, systopic.TransCheckGroup, systopic.TransHalf, 0)
		got = resp.ExtFields.Get("offset")
		return resp.ResponseCode() == protocol.Success && got == strconv.FormatInt(want, 10)
	}, waitFor, tick, "the check-back loop's half offset is %q, want %d", got, want)
}

// TestTransactionCommit: a half message is invisible in its topic, indexed in the half topic, and
// once committed appears in its topic with the same UNIQ_KEY; an op message settles the half.
func TestTransactionCommit(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	createTopic(t, c, txTopic, 4)
	h := sendHalf(t, c, "PG_TX", "UNIQ-TX-COMMIT", "commit me")
	require.Equal(t, int64(0), maxOffset(t, c, txTopic, 2), "a half message is not in its topic")

	// Indexed under its UNIQ_KEY in the half topic, as Java's half messages are.
	require.Eventually(t, func() bool {
		resp := c.Call(protocol.NewHeaderRequest(protocol.QueryMessage, &protocol.QueryMessageRequestHeader{
			Topic: systopic.TransHalf, Key: h.uniq, MaxNum: 1, UniqueKeyQuery: protocol.Some(true),
			EndTimestamp: time.Now().Add(time.Hour).UnixMilli()}, nil))
		return resp.ResponseCode() == protocol.Success && len(brokertest.Records(t, resp)) == 1
	}, waitFor, tick)
	half := b.Store().LookMessageByOffset(h.commitLogOffset)
	require.NotNil(t, half)
	require.Equal(t, systopic.TransHalf, half.Topic)
	require.Equal(t, txTopic, half.Props[message.PropertyRealTopic])
	require.Equal(t, "2", half.Props[message.PropertyRealQueueID])
	require.Equal(t, message.SysFlagTransactionNot, message.TransactionType(half.SysFlag))

	requireCode(t, c.Call(h.end("PG_TX", transaction.StateCommit)), protocol.Success)
	got := eventuallyPull(t, c, "G_TX", txTopic, 2, 1)[0]
	require.Equal(t, "commit me", string(got.Body))
	require.Equal(t, h.uniq, got.UniqKey(), "the committed message keeps the producer's message id")
	require.Equal(t, "TagTx", got.Tags())
	require.Equal(t, []string{h.uniq}, got.Keys())
	require.Equal(t, message.SysFlagTransactionCommit, message.TransactionType(got.SysFlag))
	require.Equal(t, h.commitLogOffset, got.PreparedTransactionOffset)
	require.Equal(t, "PG_TX", got.Props[message.PropertyProducerGroup])
	require.Equal(t, "true", got.Props[message.PropertyTransactionPrepared], "Java 4.9 keeps TRAN_MSG; consumers read it")
	require.NotContains(t, got.Props, message.PropertyRealTopic)
	require.NotContains(t, got.Props, message.PropertyRealQueueID)

	op := eventuallyPull(t, c, "G_TXOP", systopic.TransOpHalf, 0, 1)[0]
	require.Equal(t, strconv.FormatInt(h.queueOffset, 10), string(op.Body))
	require.Equal(t, transaction.RemoveTag, op.Tags())
}

// TestTransactionRollback: a rolled back half message never reaches its topic and is never checked.
func TestTransactionRollback(t *testing.T) {
	b := brokertest.Start(t, checkEvery(20*time.Millisecond, time.Minute))
	c := b.Dial(t)
	createTopic(t, c, txTopic, 4)
	producerHeartbeat(t, c, "PG_TX")
	h := sendHalf(t, c, "PG_TX", "UNIQ-TX-ROLLBACK", "roll me back")
	requireCode(t, c.Call(h.end("PG_TX", transaction.StateRollback)), protocol.Success)

	// The loop moves past the settled half message at once, whatever its age.
	waitCheckOffset(t, c, 1)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: txTopic, QueueID: 2, Body: []byte("plain")}))
	require.Equal(t, []string{"plain"}, bodies(pullAll(t, c, "G_TX", txTopic, 2, 0)), "only the plain message is in the topic")
	c.Sync()
	require.Empty(t, checkRequests(c))
}

// TestTransactionCheckBack: a half message left in the unknown state is checked back: its
// producer's connection gets CHECK_TRANSACTION_STATE about a copy, and commits the copy.
func TestTransactionCheckBack(t *testing.T) {
	b := brokertest.Start(t, checkEvery(500*time.Millisecond, 100*time.Millisecond))
	c := b.Dial(t)
	createTopic(t, c, txTopic, 4)
	producerHeartbeat(t, c, "PG_TX_CHECK")
	h := sendHalf(t, c, "PG_TX_CHECK", "UNIQ-TX-CHECK", "check me")
	resp := c.Call(h.end("PG_TX_CHECK", transaction.StateUnknown))
	requireCode(t, resp, protocol.Success)

	chk := c.AwaitRequest(protocol.CheckTransactionState)
	require.True(t, chk.IsOneway(), "the broker sends the check oneway")
	require.Equal(t, h.uniq, chk.ExtFields.Get("msgId"))
	require.Equal(t, h.uniq, chk.ExtFields.Get("transactionId"))
	require.Equal(t, txTopic, chk.ExtFields.Get("topic"))
	copyQ := brokertest.ExtInt(t, chk, "tranStateTableOffset")
	copyPhy := brokertest.ExtInt(t, chk, "commitLogOffset")
	require.Equal(t, h.queueOffset+1, copyQ, "the check is about the copy put back after the half message")
	require.Greater(t, copyPhy, h.commitLogOffset)
	host, phy, err := message.ParseOffsetMsgID(chk.ExtFields.Get("offsetMsgId"))
	require.NoError(t, err)
	require.Equal(t, brokertest.StoreHost, host)
	require.Equal(t, copyPhy, phy)
	recs := brokertest.Records(t, chk)
	require.Len(t, recs, 1)
	rec := recs[0]
	require.Equal(t, txTopic, rec.Topic, "the body carries the real topic and queue")
	require.Equal(t, int32(2), rec.QueueID)
	require.Equal(t, copyQ, rec.QueueOffset)
	require.Equal(t, copyPhy, rec.PhysicalOffset)
	require.Equal(t, h.uniq, rec.UniqKey())
	require.Equal(t, "PG_TX_CHECK", rec.Props[message.PropertyProducerGroup], "the Go client answers only its own group")
	require.Equal(t, "1", rec.Props[message.PropertyTransactionCheckTimes])
	require.Equal(t, "check me", string(rec.Body))
	require.Equal(t, int64(0), maxOffset(t, c, txTopic, 2), "nothing is visible before the producer decides")

	requireCode(t, c.Call(endRequest("PG_TX_CHECK", copyQ, copyPhy, transaction.StateCommit, true, h.uniq)), protocol.Success)
	got := eventuallyPull(t, c, "G_TX", txTopic, 2, 1)[0]
	require.Equal(t, h.uniq, got.UniqKey())
	require.Equal(t, "check me", string(got.Body))
	require.Equal(t, copyPhy, got.PreparedTransactionOffset)

	waitCheckOffset(t, c, copyQ+1)
	c.Sync()
	require.Empty(t, checkRequests(c), "a committed transaction is not checked again")
	require.Equal(t, int64(1), maxOffset(t, c, txTopic, 2))
}

// TestTransactionCheckMaxDiscards: a half message its producer never ends is checked
// transactionCheckMax times, then discarded to TRANS_CHECK_MAX_TIME_TOPIC, as 4.9 does.
func TestTransactionCheckMaxDiscards(t *testing.T) {
	b := brokertest.Start(t, checkEvery(20*time.Millisecond, time.Millisecond), func(o *broker.Options) { o.TransactionCheckMax = 2 })
	c := b.Dial(t)
	createTopic(t, c, txTopic, 4)
	producerHeartbeat(t, c, "PG_TX_MAX")
	sendHalf(t, c, "PG_TX_MAX", "UNIQ-TX-MAX", "nobody decides")

	// Half queue: the half message, then a copy per check; the loop moves past all three once the
	// last copy has been checked twice.
	waitCheckOffset(t, c, 3)
	require.Equal(t, int64(3), maxOffset(t, c, systopic.TransHalf, 0))
	c.Sync()
	checks := checkRequests(c)
	require.Len(t, checks, 2)
	for i, chk := range checks {
		rec := brokertest.Records(t, chk)[0]
		require.Equal(t, strconv.Itoa(i+1), rec.Props[message.PropertyTransactionCheckTimes])
		require.Equal(t, int64(i+1), brokertest.ExtInt(t, chk, "tranStateTableOffset"))
	}
	require.Equal(t, int64(0), maxOffset(t, c, txTopic, 2))

	discarded := eventuallyPull(t, c, "G_TX_MAX_READER", systopic.TransCheckMaxTime, 0, 1)
	require.Len(t, discarded, 1)
	got := discarded[0]
	require.Equal(t, "UNIQ-TX-MAX", got.UniqKey())
	require.Equal(t, "nobody decides", string(got.Body))
	require.Equal(t, txTopic, got.Props[message.PropertyRealTopic])
	require.Equal(t, "PG_TX_MAX", got.Props[message.PropertyProducerGroup])
	require.Equal(t, "2", got.Props[message.PropertyTransactionCheckTimes])
	require.Contains(t, topicConfigs(t, c), systopic.TransCheckMaxTime, "created on first use")
}

// TestEndTransactionBadInput: END_TRANSACTION naming no half message of its group is refused with
// SYSTEM_ERROR and a remark, and changes nothing.
func TestEndTransactionBadInput(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	createTopic(t, c, txTopic, 4)
	h := sendHalf(t, c, "PG_TX", "UNIQ-TX-BAD", "bad ends")
	plain := mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: txTopic, QueueID: 1, Body: []byte("plain"),
		Props: map[string]string{message.PropertyProducerGroup: "PG_TX"}}))
	_, plainPhy, err := message.ParseOffsetMsgID(plain.msgID)
	require.NoError(t, err)

	commit := transaction.StateCommit
	for _, tc := range []struct {
		name   string
		req    *protocol.Command
		code   protocol.ResponseCode
		remark string
	}{
		{"other producer group", h.end("PG_OTHER", commit), protocol.SystemError, "producer group wrong"},
		{"other queue offset", endRequest("PG_TX", h.queueOffset+7, h.commitLogOffset, commit, false, h.msgID), protocol.SystemError, "state table offset wrong"},
		{"no message there", endRequest("PG_TX", h.queueOffset, 987654321, commit, false, h.msgID), protocol.SystemError, "Find prepared transaction message failed"},
		{"not a half message", endRequest("PG_TX", plain.queueOffset, plainPhy, commit, false, plain.msgID), protocol.SystemError, "not a half message"},
		{"unknown state", h.end("PG_TX", 5), protocol.SystemError, "commitOrRollback 5"},
		{"state not a number", func() *protocol.Command {
			r := h.end("PG_TX", commit)
			r.ExtFields.Set("commitOrRollback", "commit")
			return r
		}(), protocol.SystemError, "<commitOrRollback>"},
		{"no msgId", func() *protocol.Command {
			r := h.end("PG_TX", commit)
			r.ExtFields.Delete("msgId")
			return r
		}(), protocol.SystemError, "<msgId> is null"},
		{"unknown: nothing to do", h.end("PG_TX", transaction.StateUnknown), protocol.Success, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireCode(t, c.Call(tc.req), tc.code, tc.remark)
		})
	}
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: txTopic, QueueID: 2, Body: []byte("after")}))
	require.Equal(t, []string{"after"}, bodies(pullAll(t, c, "G_TX", txTopic, 2, 0)), "no refused END_TRANSACTION committed anything")
	require.Equal(t, int64(0), maxOffset(t, c, systopic.TransOpHalf, 0), "nor settled anything")
}

// TestTransactionRejected: with rejectTransactionMessage a half message is refused NO_PERMISSION;
// other sends go on.
func TestTransactionRejected(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.RejectTransactionMessage = true })
	c := b.Dial(t)
	createTopic(t, c, txTopic, 4)
	requireCode(t, c.Call(halfRequest("PG_TX", "UNIQ-TX-NO", 2, "refused")), protocol.NoPermission, "sending transaction message is forbidden")
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: txTopic, QueueID: 2, Body: []byte("plain")}))
	require.Equal(t, int64(0), maxOffset(t, c, systopic.TransHalf, 0))
}

// TestEndTransactionOnSlave: a slave refuses END_TRANSACTION with SLAVE_NOT_AVAILABLE.
func TestEndTransactionOnSlave(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.HA.Role, o.BrokerID = store.RoleSlave, 1 })
	c := b.Dial(t)
	requireCode(t, c.Call(endRequest("PG_TX", 0, 0, transaction.StateCommit, false, "X")), protocol.SlaveNotAvailable)
}
