package broker_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// groupConfigs asks GET_ALL_SUBSCRIPTIONGROUP_CONFIG.
func groupConfigs(t *testing.T, c *brokertest.Conn) map[string]body.SubscriptionGroupConfig {
	t.Helper()
	resp := c.Call(protocol.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil))
	requireCode(t, resp, protocol.Success)
	w, err := body.DecodeSubscriptionGroupWrapper(resp.Body)
	require.NoError(t, err)
	return w.SubscriptionGroupTable
}

func createGroupRequest(t *testing.T, cfg any) *protocol.Command {
	t.Helper()
	data, err := body.Marshal(cfg)
	require.NoError(t, err)
	return protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, data)
}

func deleteGroupRequest(group string, ext ...string) *protocol.Command {
	fields := map[string]string{"groupName": group}
	for i := 0; i+1 < len(ext); i += 2 {
		fields[ext[i]] = ext[i+1]
	}
	return protocol.NewRequest(protocol.DeleteSubscriptionGroup, fields, nil)
}

// allOffsets asks GET_ALL_CONSUMER_OFFSET.
func allOffsets(t *testing.T, c *brokertest.Conn) map[string]map[int32]int64 {
	t.Helper()
	resp := c.Call(protocol.NewRequest(protocol.GetAllConsumerOffset, nil, nil))
	requireCode(t, resp, protocol.Success)
	w, err := body.DecodeConsumerOffsetSerializeWrapper(resp.Body)
	require.NoError(t, err)
	return w.OffsetTable
}

// TestAdminSubscriptionGroupRoundTrip creates, updates and deletes a consumer group through
// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP and DELETE_SUBSCRIPTIONGROUP, reading the table back with
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG; offsets go only when removeOffset (4.9) or cleanOffset (5.x)
// asks; the table survives a restart.
func TestAdminSubscriptionGroupRoundTrip(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.AutoCreateSubscriptionGroup = false })
	c := b.Dial(t)
	const group = "G_ADMIN_SUB"
	require.NotContains(t, groupConfigs(t, c), group)

	// Java's updateSubGroup sends the whole config; fields left out take Java's defaults.
	requireCode(t, c.Call(createGroupRequest(t, map[string]any{
		"groupName": group, "consumeBroadcastEnable": false, "consumeFromMinEnable": false, "retryMaxTimes": 3,
	})), protocol.Success)
	want := body.NewSubscriptionGroupConfig(group)
	want.ConsumeBroadcastEnable, want.ConsumeFromMinEnable, want.RetryMaxTimes = false, false, 3
	require.Equal(t, want, groupConfigs(t, c)[group])

	// An update replaces the config.
	want.ConsumeEnable, want.RetryQueueNums = false, 2
	requireCode(t, c.Call(createGroupRequest(t, want)), protocol.Success)
	require.Equal(t, want, groupConfigs(t, c)[group])

	// Bad bodies are refused with a remark saying why.
	requireCode(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, nil)),
		protocol.SystemError, "SubscriptionGroupConfig")
	requireCode(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, []byte(`{"groupName":`))),
		protocol.SystemError, "bad SubscriptionGroupConfig body")
	requireCode(t, c.Call(createGroupRequest(t, map[string]any{"retryMaxTimes": 1})), protocol.SystemError, "no groupName")

	// Deleting without removeOffset keeps the group's offsets.
	createTopic(t, c, "SubTopicA", 2)
	createTopic(t, c, "SubTopicB", 2)
	updateOffset(t, c, group, "SubTopicA", 0, 7)
	updateOffset(t, c, group, "SubTopicB", 1, 3)
	requireCode(t, c.Call(createGroupRequest(t, map[string]any{"groupName": "G_OTHER"})), protocol.Success)
	updateOffset(t, c, "G_OTHER", "SubTopicA", 0, 2)
	requireCode(t, c.Call(deleteGroupRequest(group)), protocol.Success)
	require.NotContains(t, groupConfigs(t, c), group)
	require.Contains(t, allOffsets(t, c), "SubTopicA@"+group)

	// removeOffset=true drops every topic's offsets of the group, and no other group's.
	requireCode(t, c.Call(createGroupRequest(t, want)), protocol.Success)
	requireCode(t, c.Call(deleteGroupRequest(group, "removeOffset", "true")), protocol.Success)
	offs := allOffsets(t, c)
	require.NotContains(t, offs, "SubTopicA@"+group)
	require.NotContains(t, offs, "SubTopicB@"+group)
	require.Equal(t, map[int32]int64{0: 2}, offs["SubTopicA@G_OTHER"])

	// 5.x spells it cleanOffset.
	requireCode(t, c.Call(createGroupRequest(t, want)), protocol.Success)
	updateOffset(t, c, group, "SubTopicA", 0, 9)
	requireCode(t, c.Call(deleteGroupRequest(group, "cleanOffset", "true")), protocol.Success, "")
	require.NotContains(t, allOffsets(t, c), "SubTopicA@"+group)

	// Deleting an unknown group succeeds, as in Java; a missing groupName does not.
	requireCode(t, c.Call(deleteGroupRequest("G_NEVER_THERE")), protocol.Success)
	requireCode(t, c.Call(protocol.NewRequest(protocol.DeleteSubscriptionGroup, nil, nil)), protocol.SystemError, "groupName")

	// The table is persisted.
	requireCode(t, c.Call(createGroupRequest(t, want)), protocol.Success)
	b = b.Restart(t)
	require.Equal(t, want, groupConfigs(t, b.Dial(t))[group])
}

// TestAdminSubscriptionGroupRefusedOnSlave: a slave's groups are its master's copy.
func TestAdminSubscriptionGroupRefusedOnSlave(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.HA.Role = store.RoleSlave; o.BrokerID = 1 })
	c := b.Dial(t)
	requireCode(t, c.Call(createGroupRequest(t, body.NewSubscriptionGroupConfig("G_ON_SLAVE"))),
		protocol.SystemError, "slave broker")
	requireCode(t, c.Call(deleteGroupRequest("G_ON_SLAVE")), protocol.SystemError, "slave broker")
	require.NotContains(t, groupConfigs(t, c), "G_ON_SLAVE")
}

// resetRequest is INVOKE_BROKER_TO_RESET_OFFSET as Java's admin sends it.
func resetRequest(topic, group string, timestamp int64, force bool) *protocol.Command {
	return protocol.NewRequest(protocol.InvokeBrokerToResetOffset, map[string]string{
		"topic": topic, "group": group, "timestamp": strconv.FormatInt(timestamp, 10), "isForce": strconv.FormatBool(force),
	}, nil)
}

// goParseResetBody re-implements rocketmq-client-go's ResetOffsetBody.Decode for a body that is
// not valid JSON (parseFastJsonFormat in internal/model.go): take the offsetTable text, drop the
// leading "{{" and the last "}", split on ",{" and "}:", parse each queue with encoding/json.
func goParseResetBody(t *testing.T, data []byte) map[primitive.MessageQueue]int64 {
	t.Helper()
	require.False(t, json.Valid(data), "the Go client would take its gson path: %s", data)
	text := string(data)
	i := strings.Index(text, `"offsetTable":`)
	require.GreaterOrEqual(t, i, 0, "no offsetTable in %s", text)
	offsetStr := text[i+len(`"offsetTable":`) : len(text)-1]
	require.Greater(t, len(offsetStr), 2, "empty offset table")
	out := map[primitive.MessageQueue]int64{}
	for _, v := range strings.Split(offsetStr[2:len(offsetStr)-1], ",{") {
		tuple := strings.Split(v, "}:")
		require.Len(t, tuple, 2, "entry %q", v)
		var mq primitive.MessageQueue
		require.NoError(t, json.Unmarshal([]byte("{"+tuple[0]+"}"), &mq), "queue %q", tuple[0])
		off, err := strconv.Atoi(tuple[1])
		require.NoError(t, err, "offset %q", tuple[1])
		out[mq] = int64(off)
	}
	return out
}

// requireNoRequest fails if the broker has sent c a request with this code (read so far: Sync
// first).
func requireNoRequest(t *testing.T, c *brokertest.Conn, code protocol.RequestCode, msg string) {
	t.Helper()
	for _, req := range c.TakeRequests() {
		require.NotEqual(t, code, req.RequestCode(), msg)
	}
}

// storeTime is the store time of the message at a queue offset.
func storeTime(t *testing.T, b *brokertest.Broker, topic string, q int32, off int64) int64 {
	t.Helper()
	ts := b.Store().MessageStoreTime(topic, q, off)
	require.Positive(t, ts, "%s/%d@%d has no store time", topic, q, off)
	return ts
}

// TestResetOffsetByTime: INVOKE_BROKER_TO_RESET_OFFSET moves a group's committed offsets back to
// the first message stored at or after a time, tells every member with RESET_CONSUMER_CLIENT_OFFSET
// (a body the Go client's parser reads) and answers the new offsets.
func TestResetOffsetByTime(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "ResetTopic", "G_RESET"
	createTopic(t, c, topic, 2)

	// Batch "old" (3 on queue 0, 2 on queue 1), then, well after, batch "new" (2 and 3).
	for i, q := range []int32{0, 0, 0, 1, 1} {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: q, Body: []byte("old-" + strconv.Itoa(i))}))
	}
	lastOld := max(storeTime(t, b, topic, 0, 2), storeTime(t, b, topic, 1, 1))
	require.Eventually(t, func() bool { return time.Now().UnixMilli() > lastOld+200 }, waitFor, tick)
	for i, q := range []int32{0, 0, 1, 1, 1} {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: q, Body: []byte("new-" + strconv.Itoa(i))}))
	}
	firstNew := min(storeTime(t, b, topic, 0, 3), storeTime(t, b, topic, 1, 2))
	// Just before the first new message: nearer to it than to any old one (4.9's nearest rule).
	resetTo := firstNew - 1

	// The group consumed everything.
	updateOffset(t, c, group, topic, 0, 5)
	updateOffset(t, c, group, topic, 1, 5)

	// Nobody online: CONSUMER_NOT_ONLINE, offsets untouched (Java's tool then falls back).
	requireCode(t, c.Call(resetRequest(topic, group, resetTo, false)), protocol.ConsumerNotOnline, "Consumer not online")
	requireOffset(t, c, group, topic, 0, 5)

	member := b.Dial(t)
	requireCode(t, member.Call(brokertest.HeartbeatRequest(t, "10.0.0.5@reset", group, map[string]string{topic: "*"})), protocol.Success)
	member.Sync()

	resp := c.Call(resetRequest(topic, group, resetTo, false))
	requireCode(t, resp, protocol.Success)
	mq0 := body.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}
	mq1 := body.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 1}
	answer, err := body.DecodeResetOffsetBody(resp.Body)
	require.NoError(t, err)
	require.Equal(t, map[body.MessageQueue]int64{mq0: 3, mq1: 2}, answer.OffsetTable)
	requireOffset(t, c, group, topic, 0, 3)
	requireOffset(t, c, group, topic, 1, 2)

	told := member.AwaitRequest(protocol.ResetConsumerClientOffset)
	require.True(t, told.IsOneway(), "RESET_CONSUMER_CLIENT_OFFSET is oneway")
	require.Equal(t, map[string]string{"topic": topic, "group": group, "timestamp": strconv.FormatInt(resetTo, 10),
		"isForce": "false"}, told.ExtFields.Map())
	require.Equal(t, map[primitive.MessageQueue]int64{
		{Topic: topic, BrokerName: "broker-a", QueueId: 0}: 3,
		{Topic: topic, BrokerName: "broker-a", QueueId: 1}: 2,
	}, goParseResetBody(t, told.Body))

	// Not forced, a later time never moves a queue forward: "now" (-1, the max offset) keeps 3 and 2.
	resp = c.Call(resetRequest(topic, group, -1, false))
	requireCode(t, resp, protocol.Success)
	answer, err = body.DecodeResetOffsetBody(resp.Body)
	require.NoError(t, err)
	require.Equal(t, map[body.MessageQueue]int64{mq0: 3, mq1: 2}, answer.OffsetTable)
	member.AwaitRequest(protocol.ResetConsumerClientOffset)

	// Forced, it does: -1 moves both to their max offsets.
	requireCode(t, c.Call(resetRequest(topic, group, -1, true)), protocol.Success)
	requireOffset(t, c, group, topic, 0, 5)
	requireOffset(t, c, group, topic, 1, 5)
	require.Equal(t, "true", member.AwaitRequest(protocol.ResetConsumerClientOffset).ExtFields.Get("isForce"))

	// A time before every message goes to the start.
	requireCode(t, c.Call(resetRequest(topic, group, 1, false)), protocol.Success)
	requireOffset(t, c, group, topic, 0, 0)
	requireOffset(t, c, group, topic, 1, 0)
	member.AwaitRequest(protocol.ResetConsumerClientOffset)

	// A C++ admin gets the C++ client's body (a list); the answer stays a ResetOffsetBody.
	req := resetRequest(topic, group, -1, true)
	req.Language = "CPP"
	resp = c.Call(req)
	requireCode(t, resp, protocol.Success)
	_, err = body.DecodeResetOffsetBody(resp.Body)
	require.NoError(t, err)
	require.JSONEq(t, `{"offsetTable":[{"brokerName":"broker-a","offset":5,"queueId":0,"topic":"ResetTopic"},`+
		`{"brokerName":"broker-a","offset":5,"queueId":1,"topic":"ResetTopic"}]}`,
		string(member.AwaitRequest(protocol.ResetConsumerClientOffset).Body))
}

// TestResetOffsetRefusals: Java's failures, each with a remark, and nothing changed.
func TestResetOffsetRefusals(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic, group = "ResetRefused", "G_RESET_REFUSED"
	createTopic(t, c, topic, 2)
	member := b.Dial(t)
	requireCode(t, member.Call(brokertest.HeartbeatRequest(t, "10.0.0.6@r", group, map[string]string{topic: "*"})), protocol.Success)

	requireCode(t, c.Call(resetRequest("NoSuchTopic", group, 1, true)), protocol.SystemError, "no topic in this broker")
	updateOffset(t, c, group, topic, 0, 0)
	requireCode(t, c.Call(resetRequest(topic, group, 1, true)), protocol.SystemError, group, "queue 1")
	for _, field := range []string{"topic", "group", "timestamp", "isForce"} {
		req := resetRequest(topic, group, 1, true)
		req.ExtFields.Delete(field)
		requireCode(t, c.Call(req), protocol.SystemError, field)
	}
	bad := resetRequest(topic, group, 1, true)
	bad.ExtFields.Set("timestamp", "yesterday")
	requireCode(t, c.Call(bad), protocol.SystemError, "timestamp")

	// A member too old for the feature (before V3_0_7_SNAPSHOT) fails the request.
	updateOffset(t, c, group, topic, 1, 0)
	old := b.Dial(t)
	hb := brokertest.HeartbeatRequest(t, "10.0.0.7@old", group, map[string]string{topic: "*"})
	hb.Version = 20
	requireCode(t, old.Call(hb), protocol.Success)
	requireCode(t, c.Call(resetRequest(topic, group, 1, true)), protocol.SystemError, "does not support")
	member.Sync()
	requireNoRequest(t, member, protocol.ResetConsumerClientOffset, "no member is told when the request fails")
}

// TestGetConsumerStatus: INVOKE_BROKER_TO_GET_CONSUMER_STATUS asks each member
// (GET_CONSUMER_STATUS_FROM_CLIENT) and answers GetConsumerStatusBody keyed by client id.
func TestGetConsumerStatus(t *testing.T) {
	b := brokertest.Start(t)
	admin := b.Dial(t)
	const topic, group = "StatusTopic", "G_STATUS"
	members := map[string]*brokertest.Conn{}
	for _, id := range []string{"10.0.0.8@a", "10.0.0.8@b"} {
		m := b.Dial(t)
		requireCode(t, m.Call(brokertest.HeartbeatRequest(t, id, group, map[string]string{topic: "*"})), protocol.Success)
		members[id] = m
	}
	ask := func(clientAddr string) int32 {
		ext := map[string]string{"topic": topic, "group": group}
		if clientAddr != "" {
			ext["clientAddr"] = clientAddr
		}
		return admin.Send(protocol.NewRequest(protocol.InvokeBrokerToGetConsumerStatus, ext, nil))
	}
	// Each member answers as the Go client does: {"messageQueueTable":{MQ:offset}}, Go's key order.
	answer := func(id string, off int) {
		m := members[id]
		asked := m.AwaitRequest(protocol.GetConsumerStatusFromClient)
		require.Equal(t, topic, asked.ExtFields.Get("topic"))
		require.Equal(t, group, asked.ExtFields.Get("group"))
		resp := protocol.NewResponse(asked, protocol.Success, "")
		resp.Body = []byte(`{"messageQueueTable":{{"topic":"StatusTopic","brokerName":"broker-a","queueId":0}:` + strconv.Itoa(off) + `}}`)
		frame, err := protocol.EncodeCommand(resp)
		require.NoError(t, err)
		m.WriteRaw(frame)
	}

	opaque := ask("")
	answer("10.0.0.8@a", 4)
	answer("10.0.0.8@b", 6)
	resp := admin.Await(opaque)
	requireCode(t, resp, protocol.Success)
	require.Equal(t, `{"consumerTable":{`+
		`"10.0.0.8@a":{{"brokerName":"broker-a","queueId":0,"topic":"StatusTopic"}:4},`+
		`"10.0.0.8@b":{{"brokerName":"broker-a","queueId":0,"topic":"StatusTopic"}:6}},"messageQueueTable":{}}`, string(resp.Body))

	// clientAddr names one member by its client id.
	opaque = ask("10.0.0.8@b")
	answer("10.0.0.8@b", 7)
	resp = admin.Await(opaque)
	requireCode(t, resp, protocol.Success)
	require.Equal(t, `{"consumerTable":{"10.0.0.8@b":{{"brokerName":"broker-a","queueId":0,"topic":"StatusTopic"}:7}},"messageQueueTable":{}}`, string(resp.Body))
	members["10.0.0.8@a"].Sync()
	requireNoRequest(t, members["10.0.0.8@a"], protocol.GetConsumerStatusFromClient, "the other member is not asked")

	requireCode(t, admin.Call(protocol.NewRequest(protocol.InvokeBrokerToGetConsumerStatus,
		map[string]string{"topic": topic, "group": "G_NOBODY"}, nil)), protocol.SystemError, "No Any Consumer online")
}

// TestGetBrokerConfig: GET_BROKER_CONFIG answers key=value lines and ext version (a DataVersion);
// UPDATE_BROKER_CONFIG accepts only what changes nothing.
func TestGetBrokerConfig(t *testing.T) {
	// Built without the CLI's text: the keys the broker's options hold.
	c := brokertest.Start(t).Dial(t)
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerConfig, nil, nil))
	requireCode(t, resp, protocol.Success)
	lines := strings.Split(strings.TrimSuffix(string(resp.Body), "\n"), "\n")
	require.Contains(t, lines, "brokerClusterName=DefaultCluster")
	require.Contains(t, lines, "brokerName=broker-a")
	require.Contains(t, lines, "brokerId=0")
	for _, l := range lines {
		require.Regexp(t, `^[A-Za-z.]+=`, l)
	}
	dv, err := body.DecodeDataVersion([]byte(resp.ExtFields.Get("version")))
	require.NoError(t, err)
	require.Positive(t, dv.Timestamp)

	// With the CLI's text, that text.
	const text = "brokerClusterName=ProdCluster\nbrokerName=broker-z\nbrokerPermission=6\nflushDiskType=ASYNC_FLUSH\n"
	c = brokertest.Start(t, func(o *broker.Options) { o.ConfigText = func() string { return text } }).Dial(t)
	resp = c.Call(protocol.NewRequest(protocol.GetBrokerConfig, nil, nil))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, text, string(resp.Body))

	update := func(props string) *protocol.Command {
		return c.Call(protocol.NewRequest(protocol.UpdateBrokerConfig, nil, []byte(props)))
	}
	requireCode(t, update(""), protocol.Success)
	requireCode(t, update("# same values\nbrokerPermission = 6\nflushDiskType:ASYNC_FLUSH\nnoSuchKey=1\n"), protocol.Success)
	requireCode(t, update("brokerPermission=4\nflushDiskType=SYNC_FLUSH\n"), protocol.SystemError,
		"not supported", "brokerPermission=4, flushDiskType=SYNC_FLUSH", "restart")
	requireCode(t, update("brokerConfigPath=/tmp/x\n"), protocol.NoPermission, "black list")
	resp = c.Call(protocol.NewRequest(protocol.GetBrokerConfig, nil, nil))
	require.Equal(t, text, string(resp.Body), "nothing changed")
}

// TestSystemTopicsAndConsumeTimeSpan: GET_SYSTEM_TOPIC_LIST_FROM_BROKER and QUERY_CONSUME_TIME_SPAN.
func TestSystemTopicsAndConsumeTimeSpan(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	resp := c.Call(protocol.NewRequest(protocol.GetSystemTopicListFromBroker, nil, nil))
	requireCode(t, resp, protocol.Success)
	var tl body.TopicList
	require.NoError(t, body.Unmarshal(resp.Body, &tl))
	for _, name := range []string{"TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "DefaultCluster", "broker-a"} {
		require.Contains(t, tl.TopicList, name)
	}

	const topic, group = "SpanTopic", "G_SPAN"
	createTopic(t, c, topic, 1)
	for i := range 3 {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("span-" + strconv.Itoa(i))}))
	}
	updateOffset(t, c, group, topic, 0, 2)
	resp = c.Call(protocol.NewRequest(protocol.QueryConsumeTimeSpan, map[string]string{"topic": topic, "group": group}, nil))
	requireCode(t, resp, protocol.Success)
	var span struct {
		ConsumeTimeSpanSet []struct {
			MessageQueue     body.MessageQueue `json:"messageQueue"`
			MinTimeStamp     int64             `json:"minTimeStamp"`
			MaxTimeStamp     int64             `json:"maxTimeStamp"`
			ConsumeTimeStamp int64             `json:"consumeTimeStamp"`
			DelayTime        int64             `json:"delayTime"`
		} `json:"consumeTimeSpanSet"`
	}
	require.NoError(t, json.Unmarshal(resp.Body, &span))
	require.Len(t, span.ConsumeTimeSpanSet, 1)
	s := span.ConsumeTimeSpanSet[0]
	require.Equal(t, body.MessageQueue{Topic: topic, BrokerName: "broker-a", QueueID: 0}, s.MessageQueue)
	require.Equal(t, storeTime(t, b, topic, 0, 0), s.MinTimeStamp)
	require.Equal(t, storeTime(t, b, topic, 0, 2), s.MaxTimeStamp)
	require.Equal(t, storeTime(t, b, topic, 0, 1), s.ConsumeTimeStamp)
	require.GreaterOrEqual(t, s.DelayTime, int64(0))

	requireCode(t, c.Call(protocol.NewRequest(protocol.QueryConsumeTimeSpan,
		map[string]string{"topic": "NoSuchSpan", "group": group}, nil)), protocol.TopicNotExist)
}
