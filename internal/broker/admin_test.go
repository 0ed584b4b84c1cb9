package broker_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// topicConfigs asks GET_ALL_TOPIC_CONFIG.
func topicConfigs(t *testing.T, c *brokertest.Conn) map[string]body.TopicConfig {
	t.Helper()
	resp := c.Call(protocol.NewRequest(protocol.GetAllTopicConfig, nil, nil))
	requireCode(t, resp, protocol.Success)
	w, err := body.DecodeTopicConfigSerializeWrapper(resp.Body)
	require.NoError(t, err)
	return w.TopicConfigTable
}

// TestAdminTopics creates, updates and deletes a topic.
func TestAdminTopics(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "AdminTopic"
	require.NotContains(t, topicConfigs(t, c), topic)

	req := brokertest.CreateTopicRequest(topic, 3)
	req.ExtFields.Set("perm", "4")
	requireCode(t, c.Call(req), protocol.Success)
	tc := topicConfigs(t, c)[topic]
	require.Equal(t, body.TopicConfig{TopicName: topic, ReadQueueNums: 3, WriteQueueNums: 3, Perm: 4,
		TopicFilterType: body.SingleTag}, tc)
	resp := c.Call(brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("x")}))
	requireCode(t, resp, protocol.NoPermission, topic)

	req = brokertest.CreateTopicRequest(topic, 5)
	req.ExtFields.Set("writeQueueNums", "2")
	requireCode(t, c.Call(req), protocol.Success)
	tc = topicConfigs(t, c)[topic]
	require.Equal(t, 5, tc.ReadQueueNums)
	require.Equal(t, 2, tc.WriteQueueNums)
	require.Equal(t, 6, tc.Perm)

	for name, ext := range map[string]map[string]string{
		"illegal characters": {"topic": "bad topic"},
		"too long":           {"topic": strings.Repeat("t", 128)},
		"system topic":       {"topic": "SCHEDULE_TOPIC_XXXX"},
		"no queues":          {"readQueueNums": "0"},
		"missing perm":       {"perm": ""},
	} {
		req := brokertest.CreateTopicRequest("AdminBad", 4)
		for k, v := range ext {
			if v == "" {
				req.ExtFields.Delete(k)
			} else {
				req.ExtFields.Set(k, v)
			}
		}
		resp := c.Call(req)
		requireCode(t, resp, protocol.SystemError)
		require.NotEmpty(t, resp.Remark, name)
	}

	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("gone soon")}))
	resp = c.Call(protocol.NewRequest(protocol.DeleteTopicInBroker, map[string]string{"topic": topic}, nil))
	requireCode(t, resp, protocol.Success)
	require.NotContains(t, topicConfigs(t, c), topic)
	require.Equal(t, int64(0), maxOffset(t, c, topic, 1), "its queues are gone")
	resp = c.Call(brokertest.PullRequest(brokertest.Pull{Group: "G_ADMIN", Topic: topic, QueueID: 1,
		SysFlag: brokertest.PullSubscription, Sub: "*"}))
	requireCode(t, resp, protocol.TopicNotExist)

	// Sending again re-creates it from TBW102, with empty queues.
	s := mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("reborn")}))
	require.Equal(t, int64(0), s.queueOffset)
	require.Equal(t, []string{"reborn"}, bodies(pullAll(t, c, "G_ADMIN", topic, 1, 0)))
}

// TestBrokerRuntimeInfo parses GET_BROKER_RUNTIME_INFO as rocketmq-exporter's
// BrokerRuntimeStats does (protocol.md §11.3): a missing key or a bad number breaks it.
func TestBrokerRuntimeInfo(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: "RuntimeTopic", Body: []byte("x")}))
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerRuntimeInfo, nil, nil))
	requireCode(t, resp, protocol.Success)
	var kv body.KVTable
	require.NoError(t, body.Unmarshal(resp.Body, &kv))
	m := kv.Table

	longs := []string{"bootTimestamp", "msgPutTotalYesterdayMorning", "msgPutTotalTodayMorning", "msgPutTotalTodayNow",
		"msgGetTotalYesterdayMorning", "msgGetTotalTodayMorning", "msgGetTotalTodayNow", "commitLogMinOffset",
		"commitLogMaxOffset", "dispatchBehindBytes", "dispatchMaxBuffer", "pageCacheLockTimeMills",
		"earliestMessageTimeStamp", "startAcceptSendRequestTimeStamp", "remainTransientStoreBufferNumbs",
		"putMessageEntireTimeMax", "getMessageEntireTimeMax", "putMessageTimesTotal", "putMessageSizeTotal"}
	for _, pool := range []string{"send", "pull", "query"} {
		for _, suffix := range []string{"ThreadPoolQueueSize", "ThreadPoolQueueCapacity", "ThreadPoolQueueHeadWaitTimeMills"} {
			longs = append(longs, pool+suffix)
		}
	}
	for _, k := range longs {
		require.Contains(t, m, k)
		_, err := strconv.ParseInt(m[k], 10, 64)
		require.NoError(t, err, "%s=%q must parse as a long", k, m[k])
	}
	for _, k := range []string{"commitLogDiskRatio", "consumeQueueDiskRatio", "putMessageAverageSize"} {
		require.Contains(t, m, k)
		_, err := strconv.ParseFloat(m[k], 64)
		require.NoError(t, err, "%s=%q must parse as a double", k, m[k])
	}
	v, err := strconv.ParseInt(m["brokerVersion"], 10, 32)
	require.NoError(t, err, "brokerVersion must be an int")
	require.Equal(t, int64(protocol.VersionV4_9_8), v)
	require.Equal(t, "V4_9_8", m["brokerVersionDesc"])
	require.Regexp(t, `^\[ \d+ days, \d+ hours, \d+ minutes, \d+ seconds \]$`, m["runtime"])
	require.Equal(t, "1", m["putMessageTimesTotal"])
	require.Equal(t, m["commitLogMaxOffset"], strconv.FormatInt(b.Store().CommitLogMaxOffset(), 10))

	for _, k := range []string{"putTps", "getFoundTps", "getMissTps", "getTotalTps", "getTransferedTps", "getTransferredTps"} {
		parts := strings.Split(m[k], " ")
		require.Len(t, parts, 3, "%s=%q is \"tps10 tps60 tps600\"", k, m[k])
		for _, p := range parts {
			_, err := strconv.ParseFloat(p, 64)
			require.NoError(t, err, "%s=%q", k, m[k])
		}
	}
	labels := []string{"<=0ms", "0~10ms", "10~50ms", "50~100ms", "100~200ms", "200~500ms", "500ms~1s",
		"1~2s", "2~3s", "3~4s", "4~5s", "5~10s", "10s~"}
	dist := strings.Split(m["putMessageDistributeTime"], " ")
	require.Len(t, dist, len(labels), "putMessageDistributeTime=%q", m["putMessageDistributeTime"])
	total := 0
	for i, d := range dist {
		label, count, ok := strings.Cut(d, ":")
		require.True(t, ok, d)
		require.Equal(t, "["+labels[i]+"]", label)
		n, err := strconv.ParseInt(count, 10, 32)
		require.NoError(t, err, d)
		total += int(n)
	}
	require.Equal(t, 1, total, "one put was timed")
	require.Regexp(t, regexp.MustCompile(`^Total : [\d.]+ [KMGTPE]?i?B, Free : [\d.]+ [KMGTPE]?i?B\.$`), m["commitLogDirCapacity"])
	flush := strings.Split(m["remainHowManyDataToFlush"], " ")
	require.Len(t, flush, 2, "remainHowManyDataToFlush=%q: the exporter reads a number and a unit", m["remainHowManyDataToFlush"])
	_, err = strconv.ParseFloat(flush[0], 64)
	require.NoError(t, err)
}

// TestQueryAndViewMessage finds messages by key (QUERY_MESSAGE) and by offset id (VIEW_MESSAGE_BY_ID).
func TestQueryAndViewMessage(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "QueryTopic"
	createTopic(t, c, topic, 2)
	s1 := mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("one"), Keys: "qk-1 common", Tags: "Q"}))
	s2 := mustSend(t, c, brokertest.SendV2Request(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("two"), Keys: "qk-2 common"}))
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: "OtherTopic", Body: []byte("other"), Keys: "common"}))

	query := func(key string, extra map[string]string) *protocol.Command {
		ext := map[string]string{"topic": topic, "key": key, "maxNum": "32", "beginTimestamp": "0",
			"endTimestamp": strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)}
		for k, v := range extra {
			ext[k] = v
		}
		return c.Call(protocol.NewRequest(protocol.QueryMessage, ext, nil))
	}
	var resp *protocol.Command
	require.Eventually(t, func() bool {
		resp = query("common", nil)
		return resp.ResponseCode() == protocol.Success && len(brokertest.Records(t, resp)) == 2
	}, waitFor, tick, "both messages of the topic are indexed under the shared key")
	brokertest.ExtInt(t, resp, "indexLastUpdateTimestamp")
	brokertest.ExtInt(t, resp, "indexLastUpdatePhyoffset")
	require.ElementsMatch(t, []string{"one", "two"}, bodies(brokertest.Records(t, resp)))

	resp = query("qk-2", nil)
	requireCode(t, resp, protocol.Success)
	msgs := brokertest.Records(t, resp)
	require.Equal(t, []string{"two"}, bodies(msgs))
	require.Equal(t, s2.msgID, msgs[0].OffsetMsgID())

	requireCode(t, query("no-such-key", nil), protocol.QueryNotFound)
	requireCode(t, query("qk-1", map[string]string{"endTimestamp": "1"}), protocol.QueryNotFound, "time range")

	one := pullAll(t, c, "G_QUERY", topic, 0, 0)[0]
	resp = query(one.UniqKey(), map[string]string{"_UNIQUE_KEY_QUERY": "true", "maxNum": "1"})
	requireCode(t, resp, protocol.Success)
	require.Equal(t, []string{"one"}, bodies(brokertest.Records(t, resp)), "found by the broker-given UNIQ_KEY")

	_, phy, err := message.ParseOffsetMsgID(s1.msgID)
	require.NoError(t, err)
	resp = c.Call(protocol.NewRequest(protocol.ViewMessageByID, map[string]string{"offset": strconv.FormatInt(phy, 10)}, nil))
	requireCode(t, resp, protocol.Success)
	viewed := brokertest.Records(t, resp)
	require.Len(t, viewed, 1)
	require.Equal(t, one.Message, viewed[0].Message, "the viewed record is the stored one")

	resp = c.Call(protocol.NewRequest(protocol.ViewMessageByID, map[string]string{"offset": "999999999"}, nil))
	requireCode(t, resp, protocol.SystemError, "999999999")
	resp = c.Call(protocol.NewRequest(protocol.ViewMessageByID, map[string]string{"offset": strconv.FormatInt(phy+1, 10)}, nil))
	require.NotEqual(t, protocol.Success, resp.ResponseCode(), "an offset inside a record is not a record")
}

// TestDeleteTopicRefusesWhatIsNotItsTopic plays issue 7's first two rows: DELETE_TOPIC_IN_BROKER
// with a path for a name, an empty name or a system topic is refused with a remark, and the
// store (its commit log, config, checkpoint, delayed messages) and a directory beside it stay.
func TestDeleteTopicRefusesWhatIsNotItsTopic(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	root := b.Opts.Store.RootDir
	victim := filepath.Join(filepath.Dir(root), "victim") // where consumequeue/../../victim points
	require.NoError(t, os.MkdirAll(victim, 0o755))
	mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: "Kept", Body: []byte("kept")}))
	delayed := brokertest.SendRequest(brokertest.Msg{Topic: "Kept", Body: []byte("later"), Props: map[string]string{"DELAY": "18"}})
	requireCode(t, c.Call(delayed), protocol.Success)
	require.Eventually(t, func() bool { return maxOffset(t, c, "SCHEDULE_TOPIC_XXXX", 17) == 1 }, waitFor, tick)

	for name, want := range map[string]struct {
		code   protocol.ResponseCode
		remark string
	}{
		"..":                  {protocol.SystemError, "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		"../../victim":        {protocol.SystemError, "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		"":                    {protocol.SystemError, "The specified topic is blank."},
		"SCHEDULE_TOPIC_XXXX": {protocol.SystemError, "The topic[SCHEDULE_TOPIC_XXXX] is a system topic: it cannot be deleted."},
		"TBW102":              {protocol.SystemError, "The topic[TBW102] is a system topic: it cannot be deleted."},
		"RMQ_SYS_TRANS_HALF_TOPIC": {protocol.SystemError,
			"The topic[RMQ_SYS_TRANS_HALF_TOPIC] is a system topic: it cannot be deleted."},
		"NeverCreated": {protocol.TopicNotExist, "The topic[NeverCreated] does not exist on this broker."},
	} {
		resp := c.Call(protocol.NewRequest(protocol.DeleteTopicInBroker, map[string]string{"topic": name}, nil))
		require.Equal(t, want.code, resp.ResponseCode(), "%q: %s", name, resp.Remark)
		require.Equal(t, want.remark, resp.Remark, name)
	}
	for _, p := range []string{"commitlog", "config", "checkpoint", "consumequeue/Kept", "consumequeue/SCHEDULE_TOPIC_XXXX"} {
		_, err := os.Stat(filepath.Join(root, p))
		require.NoError(t, err, "%s is kept", p)
	}
	require.DirExists(t, victim)
	require.Equal(t, int64(1), maxOffset(t, c, "Kept", 0)+maxOffset(t, c, "Kept", 1)+maxOffset(t, c, "Kept", 2)+maxOffset(t, c, "Kept", 3))
	require.Equal(t, int64(1), maxOffset(t, c, "SCHEDULE_TOPIC_XXXX", 17), "the delayed message stays")
}
