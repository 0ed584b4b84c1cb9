package broker_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func updateConfig(c *brokertest.Conn, props string) *protocol.Command {
	return c.Call(protocol.NewRequest(protocol.UpdateBrokerConfig, nil, []byte(props)))
}

func brokerConfig(t *testing.T, c *brokertest.Conn) (string, body.DataVersion) {
	t.Helper()
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerConfig, nil, nil))
	requireCode(t, resp, protocol.Success)
	dv, err := body.DecodeDataVersion([]byte(resp.ExtFields.Get("version")))
	require.NoError(t, err)
	return string(resp.Body), *dv
}

// routePerm is the perm the name server routes topic's queues on broker-a with.
func routePerm(t *testing.T, ns, topic string) int {
	t.Helper()
	cl := remoting.NewClient(remoting.ClientOptions{}, nil)
	defer func() { _ = cl.Close() }()
	resp, err := cl.Invoke(t.Context(), ns, protocol.NewHeaderRequest(protocol.GetRouteinfoByTopic,
		&protocol.GetRouteInfoRequestHeader{Topic: topic}, nil))
	require.NoError(t, err)
	if resp.ResponseCode() != protocol.Success {
		return -1
	}
	route, err := body.DecodeTopicRouteData(resp.Body)
	require.NoError(t, err)
	require.Len(t, route.QueueDatas, 1)
	return route.QueueDatas[0].Perm
}

// TestUpdateBrokerPermission: brokerPermission=4 at run time drains the broker: sends are refused,
// pulls go on, GET_BROKER_CONFIG shows it with a newer version, and the name server routes the
// topics read-only at once; 6 undoes it.
func TestUpdateBrokerPermission(t *testing.T) {
	ns := startNamesrv(t)
	b := brokertest.Start(t, func(o *broker.Options) {
		o.ListenAddr = freeAddr(t)
		o.BrokerAddr = o.ListenAddr
		o.NamesrvAddrs = []string{ns}
	})
	c := b.Dial(t)
	const topic = "T_DRAIN"
	createTopic(t, c, topic, 1)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("before")}))
	require.Eventually(t, func() bool { return routePerm(t, ns, topic) == 6 }, waitFor, tick)
	_, v0 := brokerConfig(t, c)

	requireCode(t, updateConfig(c, "brokerPermission=4\n"), protocol.Success)
	requireCode(t, c.Call(brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("during")})),
		protocol.NoPermission, "sending message is forbidden")
	require.Equal(t, []string{"before"}, bodies(pullAll(t, c, "G_DRAIN", topic, 0, 0)), "reads go on")
	text, v1 := brokerConfig(t, c)
	require.Contains(t, strings.Split(text, "\n"), "brokerPermission=4")
	require.Greater(t, v1.Counter, v0.Counter, "the configuration's version moved on")
	require.Eventually(t, func() bool { return routePerm(t, ns, topic) == 4 }, waitFor, tick,
		"re-registered at once, not at the next 30 s period")

	requireCode(t, updateConfig(c, "brokerPermission=6\n"), protocol.Success)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("after")}))
	require.Eventually(t, func() bool { return routePerm(t, ns, topic) == 6 }, waitFor, tick)
}

// TestUpdateRuntimeSwitches: the pull and reply switches apply at run time; start-up keys, paths
// and the CVE-2023-33246 keys are refused and change nothing.
func TestUpdateRuntimeSwitches(t *testing.T) {
	c := brokertest.Start(t).Dial(t)
	requireCode(t, c.Call(checkClientRequest("SQL92", "a > 1")), protocol.SystemError)
	requireCode(t, updateConfig(c, "enablePropertyFilter=true\nlitePullMessageEnable=false\n"), protocol.Success)
	requireCode(t, c.Call(checkClientRequest("SQL92", "a > 1")), protocol.Success)
	createTopic(t, c, "T_SWITCH", 1)
	requireCode(t, c.Call(litePullRequest("G_SWITCH", "T_SWITCH", 0, 0)), protocol.NoPermission, "lite pull")

	before, v := brokerConfig(t, c)
	for _, props := range []string{"rocketmqHome=/tmp/evil\n", "filterServerNums=1\nbrokerPermission=2\n",
		"storePathRootDir=/tmp/elsewhere\n", "brokerConfigPath=/tmp/broker.conf\n"} {
		requireCode(t, updateConfig(c, props), protocol.NoPermission, "Can not update config in black list.")
	}
	requireCode(t, updateConfig(c, "brokerName=other\n"), protocol.SystemError, "brokerName take effect at start-up only")
	requireCode(t, updateConfig(c, "brokerPermission=99\n"), protocol.SystemError, "want a whole number 0-15")
	after, v2 := brokerConfig(t, c)
	require.Equal(t, before, after, "nothing changed")
	require.Equal(t, v, v2)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: "T_SWITCH", Body: []byte("x")}))
}

// TestResetOffsetOneQueue: RocketMQ 5's INVOKE_BROKER_TO_RESET_OFFSET with queueId and offset
// rewinds that queue only (mqadmin resetOffsetByTime -q, after its UPDATE_CONSUMER_OFFSET).
func TestResetOffsetOneQueue(t *testing.T) {
	c := brokertest.Start(t).Dial(t)
	const topic, group = "T_RESET_Q", "G_RESET_Q"
	createTopic(t, c, topic, 2)
	for q := range int32(2) {
		for range 4 {
			mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: q, Body: []byte("x")}))
		}
		updateOffset(t, c, group, topic, q, 3)
	}
	resp := c.Call(protocol.NewHeaderRequest(protocol.InvokeBrokerToResetOffset, &protocol.ResetOffsetRequestHeader{
		Topic: topic, Group: group, QueueID: protocol.Some[int32](1), Offset: protocol.Some[int64](1)}, nil))
	requireCode(t, resp, protocol.Success)
	rb, err := body.DecodeResetOffsetBody(resp.Body)
	require.NoError(t, err)
	require.Equal(t, map[body.MessageQueue]int64{{Topic: topic, BrokerName: "broker-a", QueueID: 1}: 1}, rb.OffsetTable)
	requireOffset(t, c, group, topic, 1, 1)
	requireOffset(t, c, group, topic, 0, 3)

	// 5.x's whole-topic form (queueId -1, offset -1) keeps 4.9's rules: nobody online, no change.
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.InvokeBrokerToResetOffset, &protocol.ResetOffsetRequestHeader{
		Topic: topic, Group: group, QueueID: protocol.Some[int32](-1), Offset: protocol.Some[int64](-1), Timestamp: 0,
		IsForce: true}, nil)), protocol.ConsumerNotOnline)
	requireOffset(t, c, group, topic, 0, 3)
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.InvokeBrokerToResetOffset, &protocol.ResetOffsetRequestHeader{
		Topic: topic, Group: group, QueueID: protocol.Some[int32](0), Offset: protocol.Some[int64](9)}, nil)),
		protocol.SystemError, "Target offset 9 not in consume queue range [0-4]")
}
