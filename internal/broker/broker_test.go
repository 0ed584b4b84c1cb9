package broker_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitFor bounds every require.Eventually.
const (
	waitFor = 10 * time.Second
	tick    = 5 * time.Millisecond
)

// sent is what a send response says about the stored message.
type sent struct {
	msgID       string
	queueID     int32
	queueOffset int64
}

var offsetMsgID = regexp.MustCompile(`^[0-9A-F]{32}$`)

// mustSend sends req and requires SUCCESS with a well-formed msgId, queueId and queueOffset.
func mustSend(t *testing.T, c *brokertest.Conn, req *protocol.Command) sent {
	t.Helper()
	resp := c.Call(req)
	requireCode(t, resp, protocol.Success)
	s := sent{msgID: resp.ExtFields.Get("msgId"), queueID: int32(brokertest.ExtInt(t, resp, "queueId")),
		queueOffset: brokertest.ExtInt(t, resp, "queueOffset")}
	ids := strings.Split(s.msgID, ",")
	for _, id := range ids {
		require.Regexp(t, offsetMsgID, id, "msgId must be an IPv4 offset message id")
	}
	waitDispatched(t, c, topicOf(req), s.queueID, s.queueOffset+int64(len(ids)))
	return s
}

// topicOf is the topic a send request names, in either spelling.
func topicOf(req *protocol.Command) string {
	if topic, ok := req.ExtFields.Lookup("b"); ok {
		return topic
	}
	return req.ExtFields.Get("topic")
}

// waitDispatched waits until a queue holds n messages: the dispatcher feeds the ConsumeQueues
// after the send is answered, as Java's reput does.
func waitDispatched(t *testing.T, c *brokertest.Conn, topic string, queueID int32, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return maxOffset(t, c, topic, queueID) >= n }, waitFor, tick,
		"%s/%d never reached %d messages", topic, queueID, n)
}

// requireCode checks a response's code, and that its remark contains each of the given parts.
func requireCode(t *testing.T, resp *protocol.Command, code protocol.ResponseCode, remarkHas ...string) {
	t.Helper()
	require.True(t, resp.IsResponse(), "not a response")
	require.Equal(t, code.String(), resp.ResponseCode().String(), "remark: %q", resp.Remark)
	for _, part := range remarkHas {
		require.Contains(t, resp.Remark, part)
	}
}

// pullAll pulls a queue from offset to its end, with subscription "*".
func pullAll(t *testing.T, c *brokertest.Conn, group, topic string, queueID int32, from int64) []*message.MessageExt {
	t.Helper()
	var out []*message.MessageExt
	for off := from; ; {
		resp := c.Call(brokertest.PullRequest(brokertest.Pull{Group: group, Topic: topic, QueueID: queueID,
			Offset: off, SysFlag: brokertest.PullSubscription, Sub: "*"}))
		if resp.ResponseCode() == protocol.PullNotFound {
			return out
		}
		requireCode(t, resp, protocol.Success)
		msgs := brokertest.Records(t, resp)
		require.NotEmpty(t, msgs)
		out = append(out, msgs...)
		next := brokertest.ExtInt(t, resp, "nextBeginOffset")
		require.Equal(t, off+int64(len(msgs)), next, "nextBeginOffset after an unfiltered pull")
		off = next
	}
}

// maxOffset asks GET_MAX_OFFSET.
func maxOffset(t *testing.T, c *brokertest.Conn, topic string, queueID int32) int64 {
	t.Helper()
	resp := c.Call(brokertest.QueueRequest(protocol.GetMaxOffset, topic, queueID))
	requireCode(t, resp, protocol.Success)
	return brokertest.ExtInt(t, resp, "offset")
}

// createTopic creates a topic with queues read/write queues through UPDATE_AND_CREATE_TOPIC.
func createTopic(t *testing.T, c *brokertest.Conn, topic string, queues int) {
	t.Helper()
	requireCode(t, c.Call(brokertest.CreateTopicRequest(topic, queues)), protocol.Success)
}

// bodies returns the bodies of msgs as strings.
func bodies(msgs []*message.MessageExt) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m.Body)
	}
	return out
}

// TestBrokerStartsAndAnswers is the smoke test: a broker on :0 answers a request and closes.
func TestBrokerStartsAndAnswers(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	require.Equal(t, int64(0), maxOffset(t, c, "NoSuchTopic", 0))
	require.NoError(t, b.Close())
	c.ExpectClosed()
	require.NoError(t, b.Close(), "Close twice")
}
