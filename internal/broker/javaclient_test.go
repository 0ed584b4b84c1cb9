package broker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// checkClientRequest is a Java push consumer's CHECK_CLIENT_CONFIG for one subscription.
func checkClientRequest(typ, expr string) *protocol.Command {
	data := `{"clientId":"127.0.0.1@42","group":"G_CHECK","subscriptionData":{"classFilterMode":false,"codeSet":[],` +
		`"expressionType":"` + typ + `","subString":"` + expr + `","subVersion":1700000000000,"tagsSet":[],"topic":"T_CHECK"}}`
	return protocol.NewRequest(protocol.CheckClientConfig, nil, []byte(data))
}

// TestCheckClientConfig: a Java push consumer asks before it starts whether the broker can filter
// by its subscription (MQClientInstance.checkClientInBroker); SQL92 only with
// enablePropertyFilter, and only an expression that compiles.
func TestCheckClientConfig(t *testing.T) {
	plain := brokertest.Start(t).Dial(t)
	requireCode(t, plain.Call(checkClientRequest("TAG", "a || b")), protocol.Success)
	requireCode(t, plain.Call(checkClientRequest("SQL92", "a > 1")), protocol.SystemError,
		"The broker does not support consumer to filter message by SQL92")

	sql := brokertest.Start(t, func(o *broker.Options) { o.EnablePropertyFilter = true }).Dial(t)
	requireCode(t, sql.Call(checkClientRequest("SQL92", "a > 1 AND b = 'x'")), protocol.Success)
	requireCode(t, sql.Call(checkClientRequest("SQL92", "a >")), protocol.SubscriptionParseFailed,
		"parse the consumer's subscription failed")
	requireCode(t, sql.Call(checkClientRequest("CLASS", "x")), protocol.SystemError, "by CLASS")
	requireCode(t, sql.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, nil)), protocol.Success)
}

// litePullRequest is a 5.x DefaultLitePullConsumer's pull: PULL_MESSAGE's header under code 361.
func litePullRequest(group, topic string, queueID int32, offset int64) *protocol.Command {
	req := brokertest.PullRequest(brokertest.Pull{Group: group, Topic: topic, QueueID: queueID, Offset: offset,
		SysFlag: brokertest.PullSubscription, Sub: "*"})
	req.Code = int32(protocol.LitePullMessage)
	return req
}

// TestLitePullMessage: LITE_PULL_MESSAGE reads a queue as PULL_MESSAGE does, and is refused with
// litePullMessageEnable off.
func TestLitePullMessage(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "T_LITE"
	createTopic(t, c, topic, 2)
	for i := range 3 {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte{'a' + byte(i)}}))
	}
	resp := c.Call(litePullRequest("G_LITE", topic, 1, 1))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, []string{"b", "c"}, bodies(brokertest.Records(t, resp)))
	require.Equal(t, int64(3), brokertest.ExtInt(t, resp, "nextBeginOffset"))
	require.Equal(t, int64(3), brokertest.ExtInt(t, resp, "maxOffset"))
	requireCode(t, c.Call(litePullRequest("G_LITE", topic, 1, 3)), protocol.PullNotFound)

	off := brokertest.Start(t, func(o *broker.Options) { o.LitePullMessageEnable = false }).Dial(t)
	createTopic(t, off, topic, 2)
	requireCode(t, off.Call(litePullRequest("G_LITE", topic, 1, 0)), protocol.NoPermission,
		"for lite pull consumer is forbidden")
	requireCode(t, off.Call(brokertest.PullRequest(brokertest.Pull{Group: "G_LITE", Topic: topic, QueueID: 1,
		SysFlag: brokertest.PullSubscription, Sub: "*"})), protocol.PullNotFound) // PULL_MESSAGE is still served
}

// TestVIPChannel: with a fast listen address the broker serves the same requests on a second port
// (Java clients with vipChannelEnabled send to listenPort − 2). Connections of both ports are
// members side by side and leave when they close.
func TestVIPChannel(t *testing.T) {
	require.Nil(t, brokertest.Start(t).VIPAddr(), "no VIP channel unless configured")

	b := brokertest.Start(t, func(o *broker.Options) { o.FastListenAddr = "127.0.0.1:0" })
	require.NotEqual(t, b.Addr().String(), b.VIPAddr().String())
	main, vip := b.Dial(t), brokertest.Dial(t, b.VIPAddr().String())
	const topic = "T_VIP"
	createTopic(t, vip, topic, 2)
	s := mustSend(t, vip, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("vip")}))
	require.Equal(t, []string{"vip"}, bodies(pullAll(t, main, "G_VIP", topic, 1, s.queueOffset)),
		"what the VIP port stores the client port reads")

	requireCode(t, main.Call(brokertest.HeartbeatRequest(t, "client-main", "G_VIP", map[string]string{topic: "*"})), protocol.Success)
	requireCode(t, vip.Call(brokertest.HeartbeatRequest(t, "client-vip", "G_VIP", map[string]string{topic: "*"})), protocol.Success)
	require.ElementsMatch(t, []string{"client-main", "client-vip"}, consumerList(t, main, "G_VIP"),
		"a connection of each port is its own member")
	vip.Close()
	require.Eventually(t, func() bool {
		ids := consumerList(t, main, "G_VIP")
		return len(ids) == 1 && ids[0] == "client-main"
	}, waitFor, tick, "the VIP connection's membership ends with it")
}

// TestIdleConnectionsClosed: with serverChannelMaxIdleTimeSeconds a connection that sends nothing
// that long is closed, as Apache's broker closes it; one that keeps talking stays.
func TestIdleConnectionsClosed(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.Remoting.IdleTimeout = time.Second })
	idle, busy := b.Dial(t), b.Dial(t)
	for range 15 { // 1.5 s, a round trip every 100 ms
		busy.Sync()
		time.Sleep(100 * time.Millisecond)
	}
	busy.Sync()
	idle.ExpectClosed()
}
