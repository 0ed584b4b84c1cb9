package broker_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func queryOffset(t *testing.T, c *brokertest.Conn, group, topic string, queueID int32) *protocol.Command {
	t.Helper()
	return c.Call(protocol.NewHeaderRequest(protocol.QueryConsumerOffset, &protocol.QueryConsumerOffsetRequestHeader{
		ConsumerGroup: group, Topic: topic, QueueID: queueID}, nil))
}

func requireOffset(t *testing.T, c *brokertest.Conn, group, topic string, queueID int32, want int64) {
	t.Helper()
	resp := queryOffset(t, c, group, topic, queueID)
	requireCode(t, resp, protocol.Success)
	require.Equal(t, want, brokertest.ExtInt(t, resp, "offset"), "%s %s/%d", group, topic, queueID)
}

func updateOffset(t *testing.T, c *brokertest.Conn, group, topic string, queueID int32, off int64) {
	t.Helper()
	resp := c.Call(protocol.NewHeaderRequest(protocol.UpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{
		ConsumerGroup: group, Topic: topic, QueueID: queueID, CommitOffset: off}, nil))
	requireCode(t, resp, protocol.Success)
}

// queueLookup asks a request naming a queue and returns its one numeric ext field.
func queueLookup(t *testing.T, c *brokertest.Conn, code protocol.RequestCode, topic string, queueID int32, key string, extra ...string) int64 {
	t.Helper()
	req := brokertest.QueueRequest(code, topic, queueID)
	for i := 0; i+1 < len(extra); i += 2 {
		req.ExtFields.Set(extra[i], extra[i+1])
	}
	resp := c.Call(req)
	requireCode(t, resp, protocol.Success)
	return brokertest.ExtInt(t, resp, key)
}

// TestConsumerOffsets commits and queries offsets, checks the queue lookups, and restarts the
// broker over the same directory: offsets, topics and messages survive.
func TestConsumerOffsets(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "OffsetTopic", "G_OFFSETS"
	createTopic(t, c, topic, 2)

	requireOffset(t, c, "G_FRESH", topic, 0, 0) // a queue starting at 0: a new group starts there
	requireOffset(t, c, "G_FRESH", "NoSuchTopicYet", 3, 0)
	require.Equal(t, int64(0), queueLookup(t, c, protocol.GetMaxOffset, topic, 0, "offset"))
	require.Equal(t, int64(-1), queueLookup(t, c, protocol.GetEarliestMsgStoreTime, topic, 0, "timestamp"), "no message yet")
	require.Equal(t, int64(0), queueLookup(t, c, protocol.SearchOffsetByTimestamp, topic, 0, "offset", "timestamp", "0"))

	for i := range 5 {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte(fmt.Sprint("o", i))}))
	}
	stored := pullAll(t, c, "G_READ", topic, 0, 0)
	require.Len(t, stored, 5)

	updateOffset(t, c, group, topic, 0, 3)
	requireOffset(t, c, group, topic, 0, 3)
	updateOffset(t, c, group, topic, 1, 0)
	requireOffset(t, c, group, topic, 1, 0)
	// A pull with COMMIT_OFFSET commits too.
	r := pull(t, c, brokertest.Pull{Group: group, Topic: topic, QueueID: 0, Offset: 4, CommitOffset: 4,
		SysFlag: brokertest.PullCommitOffset | brokertest.PullSubscription, Sub: "*"})
	require.Equal(t, []string{"o4"}, bodies(r.msgs))
	requireOffset(t, c, group, topic, 0, 4)

	// A request flagged oneway is served but not answered.
	oneway := protocol.NewHeaderRequest(protocol.UpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{
		ConsumerGroup: "G_ONEWAY", Topic: topic, CommitOffset: 2}, nil)
	oneway.Flag = protocol.FlagOneway
	op := c.Send(oneway)
	require.Eventually(t, func() bool {
		resp := queryOffset(t, c, "G_ONEWAY", topic, 0)
		return resp.ResponseCode() == protocol.Success && resp.ExtFields.Get("offset") == "2"
	}, waitFor, tick, "the oneway commit is applied")
	c.Sync()
	require.False(t, c.Answered(op), "no response to a oneway request")

	resp := c.Call(protocol.NewRequest(protocol.UpdateConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": "0"}, nil))
	requireCode(t, resp, protocol.SystemError, "<commitOffset>")
	resp = c.Call(protocol.NewRequest(protocol.QueryConsumerOffset, map[string]string{"consumerGroup": group, "topic": topic}, nil))
	requireCode(t, resp, protocol.SystemError, "<queueId>")

	require.Equal(t, int64(5), queueLookup(t, c, protocol.GetMaxOffset, topic, 0, "offset"))
	require.Equal(t, int64(0), queueLookup(t, c, protocol.GetMinOffset, topic, 0, "offset"))
	require.Equal(t, int64(0), queueLookup(t, c, protocol.GetMaxOffset, topic, 1, "offset"))
	require.Equal(t, stored[0].StoreTimestamp, queueLookup(t, c, protocol.GetEarliestMsgStoreTime, topic, 0, "timestamp"))

	search := func(ts int64) int64 {
		return queueLookup(t, c, protocol.SearchOffsetByTimestamp, topic, 0, "offset", "timestamp", strconv.FormatInt(ts, 10))
	}
	require.Equal(t, int64(0), search(0), "before every message: the first")
	require.Equal(t, int64(4), search(time.Now().Add(time.Hour).UnixMilli()), "after every message: the last (4.x)")
	for _, m := range stored {
		got := search(m.StoreTimestamp)
		require.Equal(t, m.StoreTimestamp, stored[got].StoreTimestamp, "an exact store time finds a message stored then")
		require.LessOrEqual(t, got, m.QueueOffset, "the first of the messages stored in that millisecond")
	}

	resp = c.Call(protocol.NewRequest(protocol.GetAllConsumerOffset, nil, nil))
	requireCode(t, resp, protocol.Success)
	all, err := body.DecodeConsumerOffsetSerializeWrapper(resp.Body)
	require.NoError(t, err)
	require.Equal(t, map[int32]int64{0: 4, 1: 0}, all.OffsetTable[topic+"@"+group])

	// A clean restart over the same directory.
	b = b.Restart(t)
	c = b.Dial(t)
	requireOffset(t, c, group, topic, 0, 4)
	requireOffset(t, c, group, topic, 1, 0)
	require.Contains(t, topicConfigs(t, c), topic)
	require.Equal(t, int64(5), queueLookup(t, c, protocol.GetMaxOffset, topic, 0, "offset"))
	after := pullAll(t, c, "G_READ", topic, 0, 0)
	require.Equal(t, bodies(stored), bodies(after))
	for i := range stored {
		require.Equal(t, stored[i].Message, after[i].Message, "record %d unchanged by the restart", i)
	}
	s := mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("o5")}))
	require.Equal(t, int64(5), s.queueOffset, "the queue continues where it ended")
	require.Equal(t, []string{"o4", "o5"}, bodies(pullAll(t, c, group, topic, 0, 4)))
}
