package broker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
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

// heartbeatOf is a HEART_BEAT naming every group of groups, each subscribed to topic.
func heartbeatOf(t *testing.T, clientID, topic string, groups []string) *protocol.Command {
	t.Helper()
	hb := body.HeartbeatData{ClientID: clientID, ProducerDataSet: []body.ProducerData{}}
	for _, g := range groups {
		hb.ConsumerDataSet = append(hb.ConsumerDataSet, body.ConsumerData{GroupName: g, ConsumeType: body.ConsumePassively,
			MessageModel: body.Clustering, ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
			SubscriptionDataSet: []body.SubscriptionData{{Topic: topic, SubString: "*", ExpressionType: body.ExpressionTag}}})
	}
	data, err := body.Marshal(hb)
	require.NoError(t, err)
	return protocol.NewRequest(protocol.HeartBeat, nil, data)
}

func groupNames(prefix string, n, size int) []string {
	out := make([]string, n)
	for i := range out {
		name := fmt.Sprintf("%s%d_", prefix, i)
		out[i] = name + strings.Repeat("g", max(size-len(name), 0))
	}
	return out
}

// TestHeartbeatGroupFlood plays issue 7's row 8: one HEART_BEAT naming 300 groups of 1,000
// characters is refused (not a group name) and creates nothing; 300 valid new groups are more
// than one request may create; within the limit, a heartbeat's new groups and their retry topics
// cost one write of each file and are on disk, as a kill -9 would leave it, once it is answered.
func TestHeartbeatGroupFlood(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.Limits.MaxNewGroupsPerConnection = 250 })
	c := b.Dial(t)
	g0, t0 := b.ConfigWrites()

	resp := c.Call(heartbeatOf(t, "flood@1", "T", groupNames("G", 300, 1000)))
	requireCode(t, resp, protocol.SystemError, "longer than group max length 255")
	resp = c.Call(heartbeatOf(t, "flood@1", "T", groupNames("G", 300, 200)))
	requireCode(t, resp, protocol.SystemError, "the heartbeat names 300 consumer groups this broker does not have; one request may create at most 100 (maxNewGroupsPerRequest)")
	g1, t1 := b.ConfigWrites()
	require.Equal(t, [2]uint64{g0, t0}, [2]uint64{g1, t1}, "nothing created, nothing written")

	groups := groupNames("G", 100, 100)
	requireCode(t, c.Call(heartbeatOf(t, "flood@1", "T", groups)), protocol.Success)
	g2, t2 := b.ConfigWrites()
	require.Equal(t, [2]uint64{g1 + 1, t1 + 1}, [2]uint64{g2, t2}, "100 new groups: one write of each file")

	crashed := b.CrashCopy(t) // the files as kill -9 leaves them, right after the answer
	cc := crashed.Dial(t)
	var topics body.TopicConfigSerializeWrapper
	require.NoError(t, body.Unmarshal(cc.Call(protocol.NewRequest(protocol.GetAllTopicConfig, nil, nil)).Body, &topics))
	for _, g := range groups {
		require.Contains(t, topics.TopicConfigTable, "%RETRY%"+g, "an answered heartbeat's retry topic survives kill -9")
	}
	all := c.Call(protocol.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil))
	back := cc.Call(protocol.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil))
	var before, after body.SubscriptionGroupWrapper
	require.NoError(t, body.Unmarshal(all.Body, &before))
	require.NoError(t, body.Unmarshal(back.Body, &after))
	for _, g := range groups {
		require.Contains(t, after.SubscriptionGroupTable, g, "an answered heartbeat's group survives kill -9")
	}
	require.Len(t, after.SubscriptionGroupTable, len(before.SubscriptionGroupTable))

	// The connection's quota: 250 groups in all, then refused; a new connection starts again.
	requireCode(t, c.Call(heartbeatOf(t, "flood@1", "T", groupNames("H", 100, 50))), protocol.Success)
	resp = c.Call(heartbeatOf(t, "flood@1", "T", groupNames("I", 100, 50)))
	requireCode(t, resp, protocol.SystemError, "this connection has created 200 consumer groups and may create at most 250 (maxNewGroupsPerConnection)")
	c2 := b.Dial(t)
	requireCode(t, c2.Call(heartbeatOf(t, "flood@2", "T", groupNames("I", 100, 50))), protocol.Success)
}
