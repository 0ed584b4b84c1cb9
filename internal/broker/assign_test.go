package broker_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func queryAssignment(t *testing.T, c *brokertest.Conn, topic, group, client, strategy, model string) *protocol.Command {
	t.Helper()
	data, err := body.Marshal(body.QueryAssignmentRequestBody{Topic: topic, ConsumerGroup: group, ClientID: client,
		StrategyName: strategy, MessageModel: model})
	require.NoError(t, err)
	resp := c.Call(protocol.NewRequest(protocol.QueryAssignment, nil, data))
	requireCode(t, resp, protocol.Success)
	return resp
}

func assigned(t *testing.T, resp *protocol.Command) []body.MessageQueueAssignment {
	t.Helper()
	var b body.QueryAssignmentResponseBody
	require.NoError(t, body.Unmarshal(resp.Body, &b))
	return b.MessageQueueAssignments
}

func setMode(t *testing.T, c *brokertest.Conn, topic, group, mode string, share int) *protocol.Command {
	t.Helper()
	data, err := body.Marshal(body.SetMessageRequestModeRequestBody{Topic: topic, ConsumerGroup: group, Mode: mode, PopShareQueueNum: share})
	require.NoError(t, err)
	return c.Call(protocol.NewRequest(protocol.SetMessageRequestMode, nil, data))
}

// TestQueryAssignment: the broker splits a topic's queues among a group's online clients with
// the strategy named (AVG), in PULL mode by default; in POP mode with popShareQueueNum 0 every
// client pops every queue (queue -1); with popShareQueueNum 1 its own and its neighbour's.
func TestQueryAssignment(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "AssignTopic", "G_ASSIGN"
	createTopic(t, c, topic, 4)
	resp := queryAssignment(t, c, topic, group, "c1", "AVG", body.MessageModelClustering)
	require.Equal(t, "{}", string(resp.Body), "no member online: the client keeps its queues (a null set)")

	c1, c2 := b.Dial(t), b.Dial(t)
	requireCode(t, c1.Call(brokertest.HeartbeatRequest(t, "c1", group, map[string]string{topic: "*"})), protocol.Success)
	requireCode(t, c2.Call(brokertest.HeartbeatRequest(t, "c2", group, map[string]string{topic: "*"})), protocol.Success)

	queues := func(a []body.MessageQueueAssignment) (ids []int32) {
		for _, x := range a {
			require.Equal(t, topic, x.MessageQueue.Topic)
			require.Equal(t, "broker-a", x.MessageQueue.BrokerName)
			ids = append(ids, x.MessageQueue.QueueID)
		}
		return ids
	}
	a1 := assigned(t, queryAssignment(t, c, topic, group, "c1", "AVG", body.MessageModelClustering))
	a2 := assigned(t, queryAssignment(t, c, topic, group, "c2", "AVG", body.MessageModelClustering))
	require.ElementsMatch(t, []int32{0, 1}, queues(a1))
	require.ElementsMatch(t, []int32{2, 3}, queues(a2))
	require.Equal(t, body.RequestModePull, a1[0].Mode)
	circle := assigned(t, queryAssignment(t, c, topic, group, "c1", "AVG_BY_CIRCLE", body.MessageModelClustering))
	require.ElementsMatch(t, []int32{0, 2}, queues(circle))
	all := assigned(t, queryAssignment(t, c, topic, group, "c1", "AVG", body.MessageModelBroadcasting))
	require.ElementsMatch(t, []int32{0, 1, 2, 3}, queues(all))
	require.Equal(t, "{}", string(queryAssignment(t, c, topic, group, "c1", "NO_SUCH", body.MessageModelClustering).Body))

	requireCode(t, setMode(t, c, topic, group, body.RequestModePop, 0), protocol.Success)
	pop := assigned(t, queryAssignment(t, c, topic, group, "c1", "AVG", body.MessageModelClustering))
	require.Len(t, pop, 1)
	require.Equal(t, int32(-1), pop[0].MessageQueue.QueueID, "every client pops every queue")
	require.Equal(t, body.RequestModePop, pop[0].Mode)

	c3 := b.Dial(t)
	requireCode(t, c3.Call(brokertest.HeartbeatRequest(t, "c3", group, map[string]string{topic: "*"})), protocol.Success)
	requireCode(t, setMode(t, c, topic, group, body.RequestModePop, 1), protocol.Success)
	shared := assigned(t, queryAssignment(t, c, topic, group, "c1", "AVG", body.MessageModelClustering))
	require.ElementsMatch(t, []int32{0, 1, 2}, queues(shared), "c1's queues (0, 1) and c2's (2)")
}

// TestMessageRequestModes: SET_MESSAGE_REQUEST_MODE's refusals, GET_ALL_MESSAGE_REQUEST_MODE,
// and messageRequestMode.json across a restart.
func TestMessageRequestModes(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "ModeTopic", "G_MODE"
	createTopic(t, c, topic, 2)
	requireCode(t, setMode(t, c, "%RETRY%G_MODE", group, body.RequestModePop, 0), protocol.NoPermission, "retry topic")
	requireCode(t, setMode(t, c, "NoSuchModeTopic", group, body.RequestModePop, 0), protocol.TopicNotExist)
	requireCode(t, setMode(t, c, topic, group, "PUSH", 0), protocol.InvalidParameter)
	requireCode(t, c.Call(protocol.NewRequest(protocol.SetMessageRequestMode, nil, []byte("{"))), protocol.SystemError)
	requireCode(t, setMode(t, c, topic, group, body.RequestModePop, 2), protocol.Success)

	all := func(c *brokertest.Conn) body.MessageRequestModeSerializeWrapper {
		resp := c.Call(protocol.NewRequest(protocol.GetAllMessageRequestMode, nil, nil))
		requireCode(t, resp, protocol.Success)
		w, err := body.DecodeMessageRequestModeSerializeWrapper(resp.Body)
		require.NoError(t, err)
		return *w
	}
	want := body.SetMessageRequestModeRequestBody{Topic: topic, ConsumerGroup: group, Mode: body.RequestModePop, PopShareQueueNum: 2}
	require.Equal(t, want, all(c).MessageRequestModeMap[topic][group])
	nb := b.Restart(t)
	require.Equal(t, want, all(nb.Dial(t)).MessageRequestModeMap[topic][group], "kept in messageRequestMode.json")
}
