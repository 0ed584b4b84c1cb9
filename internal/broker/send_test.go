package broker_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

var uniqKey = regexp.MustCompile(`^[0-9A-Fa-f]{32}$`)

// jsonHeader returns the header of a JSON frame as parsed JSON, failing unless the frame is JSON.
func jsonHeader(t *testing.T, f brokertest.Frame) map[string]any {
	t.Helper()
	word := binary.BigEndian.Uint32(f.Raw)
	require.Equal(t, uint32(0), word>>24, "a JSON request is answered in JSON")
	var h map[string]any
	require.NoError(t, json.Unmarshal(f.Raw[4:4+word&0xFFFFFF], &h))
	return h
}

// requireStringExtFields checks that every extFields value is a JSON string (the Go client decodes
// them into map[string]string and times out otherwise).
func requireStringExtFields(t *testing.T, h map[string]any) {
	t.Helper()
	ext, ok := h["extFields"].(map[string]any)
	if !ok {
		require.Nil(t, h["extFields"], "extFields must be an object")
		return
	}
	for k, v := range ext {
		require.IsType(t, "", v, "extFields.%s must be a JSON string", k)
	}
}

// TestSendSingle stores single messages under both header spellings.
func TestSendSingle(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "SendSingle" // auto-created from TBW102 with the client's 4 queues
	m := brokertest.Msg{Topic: topic, QueueID: 2, Tags: "TagS", Keys: "k1"}

	var got []sent
	for i, build := range []func(brokertest.Msg) *protocol.Command{brokertest.SendRequest, brokertest.SendV2Request} {
		m.Body = []byte(fmt.Sprint("single-", i))
		f := c.AwaitFrame(c.Send(build(m)))
		requireCode(t, f.Cmd, protocol.Success)
		h := jsonHeader(t, f)
		requireStringExtFields(t, h)
		for _, k := range []string{"msgId", "queueId", "queueOffset"} {
			require.Contains(t, h["extFields"], k)
		}
		got = append(got, mustSendResult(t, f.Cmd))
		require.Equal(t, int32(2), got[i].queueID)
		require.Equal(t, int64(i), got[i].queueOffset)
	}
	require.Equal(t, int64(4), maxQueueNums(t, c, topic), "auto-created with the client's defaultTopicQueueNums")
	waitDispatched(t, c, topic, 2, 2)

	msgs := pullAll(t, c, "G_SEND", topic, 2, 0)
	require.Equal(t, []string{"single-0", "single-1"}, bodies(msgs))
	for i, msg := range msgs {
		require.Equal(t, got[i].msgID, msg.OffsetMsgID())
		require.Regexp(t, uniqKey, msg.UniqKey(), "the broker gives a message without UNIQ_KEY one")
		require.Equal(t, "TagS", msg.Tags())
		require.Equal(t, []string{"k1"}, msg.Keys())
	}
	require.NotEqual(t, msgs[0].UniqKey(), msgs[1].UniqKey())

	// A client's own UNIQ_KEY is kept as it is.
	m.Props = map[string]string{message.PropertyUniqClientMessageID: "0A0B0C0D00002A9F0000000000000abc"}
	s := mustSend(t, c, brokertest.SendRequest(m))
	msgs = pullAll(t, c, "G_SEND", topic, 2, s.queueOffset)
	require.Equal(t, "0A0B0C0D00002A9F0000000000000abc", msgs[0].UniqKey())

	// Stored properties of exactly 32767 bytes, the broker's own included, are still legal.
	brokers := "MSG_REGION\x01DefaultRegion\x02TRACE_ON\x01false\x02CLUSTER\x01DefaultCluster\x02"
	props := message.AppendProperty(nil, message.PropertyUniqClientMessageID, "0A0B0C0D00002A9F0000000000000abd")
	props = message.AppendProperty(props, "p", strings.Repeat("v", 32767-len(brokers)-len(props)-3))
	require.Equal(t, 32767, len(props)+len(brokers))
	req := brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 2, Body: []byte("big props")})
	req.ExtFields.Set("properties", string(props))
	s = mustSend(t, c, req)
	msgs = pullAll(t, c, "G_SEND", topic, 2, s.queueOffset)
	require.Equal(t, string(props)+brokers, msgs[0].Properties)
}

// mustSendResult reads a SUCCESS send response.
func mustSendResult(t *testing.T, resp *protocol.Command) sent {
	t.Helper()
	s := sent{msgID: resp.ExtFields.Get("msgId"), queueID: int32(brokertest.ExtInt(t, resp, "queueId")),
		queueOffset: brokertest.ExtInt(t, resp, "queueOffset")}
	require.Regexp(t, offsetMsgID, s.msgID)
	return s
}

// maxQueueNums is the larger queue count of a topic (GET_ALL_TOPIC_CONFIG).
func maxQueueNums(t *testing.T, c *brokertest.Conn, topic string) int64 {
	t.Helper()
	tc, ok := topicConfigs(t, c)[topic]
	require.True(t, ok, "topic %s not in GET_ALL_TOPIC_CONFIG", topic)
	return int64(max(tc.ReadQueueNums, tc.WriteQueueNums))
}

// TestSendAnyQueue sends with queueId -1: the broker picks a writable queue.
func TestSendAnyQueue(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "SendAnyQueue"
	createTopic(t, c, topic, 3)
	for i := range 10 {
		s := mustSend(t, c, brokertest.SendV2Request(brokertest.Msg{Topic: topic, QueueID: -1, Body: []byte(fmt.Sprint(i))}))
		require.GreaterOrEqual(t, s.queueID, int32(0))
		require.Less(t, s.queueID, int32(3))
		msgs := pullAll(t, c, "G_ANY", topic, s.queueID, s.queueOffset)
		require.Equal(t, []string{fmt.Sprint(i)}, bodies(msgs))
		require.Equal(t, s.queueID, msgs[0].QueueID)
	}
	s := mustSend(t, c, brokertest.BatchRequest(brokertest.Msg{Topic: topic, QueueID: -1, Body: []byte("b1")},
		brokertest.Msg{Body: []byte("b2")}))
	require.Equal(t, []string{"b1", "b2"}, bodies(pullAll(t, c, "G_ANY", topic, s.queueID, s.queueOffset)))
}

// TestSendBatch stores every entry of a batch, one after another in one queue.
func TestSendBatch(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "SendBatch"
	createTopic(t, c, topic, 2)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("before")}))
	entries := []brokertest.Msg{
		{Topic: topic, QueueID: 1, Body: []byte("e0"), Tags: "T0", Keys: "bk0"},
		{Body: []byte("e1"), Tags: "T1", Props: map[string]string{message.PropertyUniqClientMessageID: "C0A8000100002A9F00000000000000e1"}},
		{Body: []byte("e2"), Keys: "bk2 bk2b", Props: map[string]string{"x": "y"}},
	}
	resp := c.Call(brokertest.BatchRequest(entries...))
	requireCode(t, resp, protocol.Success)
	ids := strings.Split(resp.ExtFields.Get("msgId"), ",")
	require.Len(t, ids, 3, "one offset id per entry, comma-joined")
	require.Equal(t, "1", resp.ExtFields.Get("queueId"))
	require.Equal(t, "1", resp.ExtFields.Get("queueOffset"), "queueOffset is the first entry's")
	waitDispatched(t, c, topic, 1, 4)

	msgs := pullAll(t, c, "G_BATCH", topic, 1, 1)
	require.Equal(t, []string{"e0", "e1", "e2"}, bodies(msgs))
	for i, m := range msgs {
		require.Equal(t, ids[i], m.OffsetMsgID())
		require.Equal(t, int64(i+1), m.QueueOffset)
		require.Equal(t, topic, m.Topic)
		require.Regexp(t, uniqKey, m.UniqKey(), "entry %d", i)
	}
	require.Equal(t, "T0", msgs[0].Tags())
	require.Equal(t, []string{"bk0"}, msgs[0].Keys())
	require.Equal(t, "C0A8000100002A9F00000000000000e1", msgs[1].UniqKey(), "a given UNIQ_KEY is kept")
	require.Equal(t, []string{"bk2", "bk2b"}, msgs[2].Keys())
	require.Equal(t, "y", msgs[2].Props["x"])
	require.NotEqual(t, msgs[0].UniqKey(), msgs[2].UniqKey())

	resp = c.Call(brokertest.BatchRequest(brokertest.Msg{Topic: "%RETRY%G_BATCH", Body: []byte("r")}))
	requireCode(t, resp, protocol.MessageIllegal, "%RETRY%G_BATCH")
}

// TestSendCompressedBodyUntouched stores a compressed body (sysFlag bit 0) as it came.
func TestSendCompressedBodyUntouched(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	req := brokertest.SendV2Request(brokertest.Msg{Topic: "SendZip", Body: []byte{0x78, 0x9c, 1, 2, 3}})
	req.ExtFields.Set("f", strconv.Itoa(int(message.SysFlagCompressed)))
	s := mustSend(t, c, req)
	msgs := pullAll(t, c, "G_ZIP", "SendZip", s.queueID, s.queueOffset)
	require.Equal(t, []byte{0x78, 0x9c, 1, 2, 3}, msgs[0].Body)
	require.Equal(t, message.SysFlagCompressed, msgs[0].SysFlag&message.SysFlagCompressed)
}

// TestSendNativeJSONNumbers sends and pulls with numbers and booleans as native JSON values in
// extFields, as ali-ons does, and reads answers whose extFields are all strings.
func TestSendNativeJSONNumbers(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "AliTopic"
	createTopic(t, c, topic, 2)
	props, err := json.Marshal(message.EncodeProperties(map[string]string{"TAGS": "ali", "KEYS": "ak"}))
	require.NoError(t, err)
	send := `{"code":310,"extFields":{"a":"PG_ALI","b":"` + topic + `","c":"TBW102","d":4,"e":1,"f":0,` +
		`"g":1700000000000,"h":0,"i":` + string(props) + `,"j":0,"k":false,"l":16},` +
		`"flag":0,"language":"JAVA","opaque":77,"remark":null,"serializeTypeCurrentRPC":"JSON","version":121}`
	c.SendRaw([]byte(send), []byte("from ali-ons"))
	f := c.AwaitFrame(77)
	requireCode(t, f.Cmd, protocol.Success)
	requireStringExtFields(t, jsonHeader(t, f))
	require.Equal(t, "1", f.Cmd.ExtFields.Get("queueId"))
	waitDispatched(t, c, topic, 1, 1)

	pull := `{"code":11,"extFields":{"consumerGroup":"G_ALI","topic":"` + topic + `","queueId":1,` +
		`"queueOffset":0,"maxMsgNums":32,"sysFlag":4,"commitOffset":0,"suspendTimeoutMillis":15000,` +
		`"subscription":"ali","subVersion":1700000000000},"flag":0,"language":"JAVA","opaque":78,` +
		`"remark":null,"serializeTypeCurrentRPC":"JSON","version":121}`
	c.SendRaw([]byte(pull), nil)
	f = c.AwaitFrame(78)
	requireCode(t, f.Cmd, protocol.Success)
	requireStringExtFields(t, jsonHeader(t, f))
	msgs := brokertest.Records(t, f.Cmd)
	require.Equal(t, []string{"from ali-ons"}, bodies(msgs))
	require.Equal(t, "ali", msgs[0].Tags())
	require.Equal(t, int64(1700000000000), msgs[0].BornTimestamp)
}

// TestSerializeTypeMirrored answers a ROCKETMQ binary request in binary and a JSON one in JSON.
func TestSerializeTypeMirrored(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "BinaryTopic"
	createTopic(t, c, topic, 1)
	typeOf := func(f brokertest.Frame) protocol.SerializeType {
		return protocol.SerializeType(f.Raw[0])
	}

	req := brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("bin"), Tags: "B"})
	req.SerializeType = protocol.RocketMQ
	f := c.AwaitFrame(c.Send(req))
	requireCode(t, f.Cmd, protocol.Success)
	require.Equal(t, protocol.RocketMQ, typeOf(f))
	require.Regexp(t, offsetMsgID, f.Cmd.ExtFields.Get("msgId"))
	waitDispatched(t, c, topic, 0, 1)

	preq := brokertest.PullRequest(brokertest.Pull{Group: "G_BIN", Topic: topic, SysFlag: brokertest.PullSubscription, Sub: "*"})
	preq.SerializeType = protocol.RocketMQ
	f = c.AwaitFrame(c.Send(preq))
	requireCode(t, f.Cmd, protocol.Success)
	require.Equal(t, protocol.RocketMQ, typeOf(f))
	require.Equal(t, []string{"bin"}, bodies(brokertest.Records(t, f.Cmd)))

	bad := protocol.NewRequest(9998, nil, nil)
	bad.SerializeType = protocol.RocketMQ
	f = c.AwaitFrame(c.Send(bad))
	requireCode(t, f.Cmd, protocol.RequestCodeNotSupported)
	require.Equal(t, protocol.RocketMQ, typeOf(f), "errors are answered in the request's encoding too")

	f = c.AwaitFrame(c.Send(brokertest.QueueRequest(protocol.GetMaxOffset, topic, 0)))
	require.Equal(t, protocol.JSON, typeOf(f))
	requireStringExtFields(t, jsonHeader(t, f))
	require.Equal(t, "1", f.Cmd.ExtFields.Get("offset"))
}
