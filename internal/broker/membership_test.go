package broker_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// consumerList asks GET_CONSUMER_LIST_BY_GROUP; nil when the broker answers an error.
func consumerList(t *testing.T, c *brokertest.Conn, group string) []string {
	t.Helper()
	resp := c.Call(protocol.NewRequest(protocol.GetConsumerListByGroup, map[string]string{"consumerGroup": group}, nil))
	if resp.ResponseCode() != protocol.Success {
		requireCode(t, resp, protocol.SystemError, "no consumer for this group", group)
		return nil
	}
	var l body.ConsumerIDList
	require.NoError(t, body.Unmarshal(resp.Body, &l))
	require.NotNil(t, l.ConsumerIDList)
	return l.ConsumerIDList
}

// requireNotified takes the next NOTIFY_CONSUMER_IDS_CHANGED c received and checks it names group.
func requireNotified(t *testing.T, c *brokertest.Conn, group string) {
	t.Helper()
	req := c.AwaitRequest(protocol.NotifyConsumerIdsChanged)
	require.False(t, req.IsResponse())
	require.True(t, req.IsOneway(), "the notification is oneway, as Java sends it")
	require.Equal(t, group, req.ExtFields.Get("consumerGroup"))
}

// drainNotifications forgets the notifications c has been sent so far.
func drainNotifications(t *testing.T, c *brokertest.Conn) {
	t.Helper()
	c.Sync()
	for _, req := range c.TakeRequests() {
		require.Equal(t, protocol.NotifyConsumerIdsChanged, req.RequestCode())
	}
}

// TestConsumerMembership follows a group through heartbeats, a closed connection (the Go client's
// only way of leaving) and UNREGISTER_CLIENT (ali-ons).
func TestConsumerMembership(t *testing.T) {
	b := brokertest.Start(t)
	admin, a, z := b.Dial(t), b.Dial(t), b.Dial(t)
	const group, topic = "G_MEMBERS", "MembersTopic"
	createTopic(t, admin, topic, 1)

	require.Nil(t, consumerList(t, admin, group), "unknown group")

	hb := brokertest.HeartbeatRequest(t, "10.0.0.9@z", group, map[string]string{topic: "*"})
	hb.SerializeType = protocol.RocketMQ
	requireCode(t, z.Call(hb), protocol.Success)
	req := z.AwaitRequest(protocol.NotifyConsumerIdsChanged) // Java tells every member, the new one included
	require.Equal(t, protocol.JSON, req.SerializeType, "server-initiated requests are JSON whatever the client speaks")
	require.Equal(t, group, req.ExtFields.Get("consumerGroup"))
	requireCode(t, a.Call(brokertest.HeartbeatRequest(t, "10.0.0.1@a", group, map[string]string{topic: "*"})), protocol.Success)
	requireNotified(t, z, group)
	requireNotified(t, a, group)
	require.Equal(t, []string{"10.0.0.1@a", "10.0.0.9@z"}, consumerList(t, admin, group), "sorted")

	// A repeated heartbeat changes nothing and notifies nobody.
	requireCode(t, a.Call(brokertest.HeartbeatRequest(t, "10.0.0.1@a", group, map[string]string{topic: "*"})), protocol.Success)
	drainNotifications(t, a)
	drainNotifications(t, z)
	requireCode(t, a.Call(brokertest.HeartbeatRequest(t, "10.0.0.1@a", group, map[string]string{topic: "*"})), protocol.Success)
	a.Sync()
	z.Sync()
	require.Empty(t, a.TakeRequests())
	require.Empty(t, z.TakeRequests())

	// The retry topic of the group exists once it has heartbeaten.
	retry, ok := topicConfigs(t, admin)["%RETRY%"+group]
	require.True(t, ok, "%%RETRY%% topic created by the heartbeat")
	require.Equal(t, 1, retry.WriteQueueNums)

	z.Close()
	requireNotified(t, a, group)
	require.Equal(t, []string{"10.0.0.1@a"}, consumerList(t, admin, group), "a closed connection ends membership")

	c := b.Dial(t)
	requireCode(t, c.Call(brokertest.HeartbeatRequest(t, "10.0.0.3@c", group, map[string]string{topic: "*"})), protocol.Success)
	require.Equal(t, []string{"10.0.0.1@a", "10.0.0.3@c"}, consumerList(t, admin, group))
	drainNotifications(t, a)

	resp := c.Call(protocol.NewRequest(protocol.UnregisterClient, map[string]string{"consumerGroup": group}, nil))
	requireCode(t, resp, protocol.SystemError, "<clientID>")
	resp = c.Call(protocol.NewRequest(protocol.UnregisterClient, map[string]string{"clientID": "10.0.0.3@c", "consumerGroup": group}, nil))
	requireCode(t, resp, protocol.Success)
	requireNotified(t, a, group)
	require.Equal(t, []string{"10.0.0.1@a"}, consumerList(t, admin, group))

	resp = a.Call(protocol.NewRequest(protocol.UnregisterClient, map[string]string{"clientID": "10.0.0.1@a", "consumerGroup": group}, nil))
	requireCode(t, resp, protocol.Success)
	require.Nil(t, consumerList(t, admin, group), "the last member left")

	// The group's subscription went with its last member: a pull relying on it is refused.
	resp = a.Call(brokertest.PullRequest(brokertest.Pull{Group: group, Topic: topic}))
	requireCode(t, resp, protocol.SubscriptionNotExist)
}

// TestProducerHeartbeat registers a producer-only client: it joins no consumer group.
func TestProducerHeartbeat(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	hb := []byte(`{"clientID":"10.0.0.5@p","producerDataSet":[{"groupName":"PG_ONLY"},{"groupName":"CLIENT_INNER_PRODUCER"}],"consumerDataSet":[]}`)
	requireCode(t, c.Call(protocol.NewRequest(protocol.HeartBeat, nil, hb)), protocol.Success)
	require.Nil(t, consumerList(t, c, "PG_ONLY"))
	c.Sync()
	require.Empty(t, c.TakeRequests(), "producers are not told about consumer groups")
}
