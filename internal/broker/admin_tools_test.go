package broker_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// adminCall sends an admin request with a typed header (or none) and requires SUCCESS.
func adminCall(t *testing.T, c *brokertest.Conn, code protocol.RequestCode, h protocol.Header, data []byte) *protocol.Command {
	t.Helper()
	var req *protocol.Command
	if h == nil {
		req = protocol.NewRequest(code, nil, data)
	} else {
		req = protocol.NewHeaderRequest(code, h, data)
	}
	resp := c.Call(req)
	requireCode(t, resp, protocol.Success)
	return resp
}

// TestProducerAdmin: GET_PRODUCER_CONNECTION_LIST and GET_ALL_PRODUCER_INFO list the producers a
// heartbeat registered, with their connection.
func TestProducerAdmin(t *testing.T) {
	b := brokertest.Start(t)
	p, admin := b.Dial(t), b.Dial(t)
	requireCode(t, p.Call(producerHeartbeatAs(t, "127.0.0.1@producer-1", "PG_ADMIN")), protocol.Success)

	resp := adminCall(t, admin, protocol.GetProducerConnectionList, &protocol.GetProducerConnectionListRequestHeader{ProducerGroup: "PG_ADMIN"}, nil)
	var pc body.ProducerConnection
	require.NoError(t, body.Unmarshal(resp.Body, &pc))
	require.Len(t, pc.ConnectionSet, 1)
	require.Equal(t, "127.0.0.1@producer-1", pc.ConnectionSet[0].ClientID)
	require.Equal(t, p.LocalAddr(), pc.ConnectionSet[0].ClientAddr)
	require.Equal(t, "JAVA", pc.ConnectionSet[0].Language)
	requireCode(t, admin.Call(protocol.NewHeaderRequest(protocol.GetProducerConnectionList,
		&protocol.GetProducerConnectionListRequestHeader{ProducerGroup: "Nobody"}, nil)), protocol.SystemError,
		"the producer group[Nobody] not exist")

	resp = adminCall(t, admin, protocol.GetAllProducerInfo, nil, nil)
	var info body.ProducerTableInfo
	require.NoError(t, body.Unmarshal(resp.Body, &info))
	require.Len(t, info.Data["PG_ADMIN"], 1)
	got := info.Data["PG_ADMIN"][0]
	require.Equal(t, "127.0.0.1@producer-1", got.ClientID)
	require.Equal(t, "/"+p.LocalAddr(), got.RemoteIP)
	require.Positive(t, got.LastUpdateTimestamp)
}

// TestBrokerStatsData: VIEW_BROKER_STATS_DATA counts what was stored per topic and in total, and
// what a group pulled; an item never counted is refused as Apache refuses it.
func TestBrokerStatsData(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "T_STATS"
	createTopic(t, c, topic, 1)
	for range 3 {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("0123456789")}))
	}
	stats := func(name, key string) body.BrokerStatsData {
		resp := adminCall(t, c, protocol.ViewBrokerStatsData, &protocol.ViewBrokerStatsDataRequestHeader{StatsName: name, StatsKey: key}, nil)
		var d body.BrokerStatsData
		require.NoError(t, body.Unmarshal(resp.Body, &d))
		return d
	}
	put := stats("TOPIC_PUT_NUMS", topic)
	require.Equal(t, int64(3), put.StatsMinute.Sum)
	require.Equal(t, int64(3), put.StatsDay.Sum)
	require.Equal(t, 1.0, put.StatsMinute.Avgpt, "one message per send")
	require.Greater(t, stats("TOPIC_PUT_SIZE", topic).StatsMinute.Sum, int64(30))
	require.Equal(t, int64(3), stats("BROKER_PUT_NUMS", "DefaultCluster").StatsHour.Sum)

	require.Len(t, pullAll(t, c, "G_STATS", topic, 0, 0), 3)
	require.Equal(t, int64(3), stats("GROUP_GET_NUMS", topic+"@G_STATS").StatsMinute.Sum)
	require.Equal(t, int64(3), stats("BROKER_GET_NUMS", "DefaultCluster").StatsMinute.Sum)
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.ViewBrokerStatsData,
		&protocol.ViewBrokerStatsDataRequestHeader{StatsName: "TOPIC_PUT_NUMS", StatsKey: "Nope"}, nil)),
		protocol.SystemError, "The stats <TOPIC_PUT_NUMS> <Nope> not exist")
}

// TestBrokerConsumeStats: GET_BROKER_CONSUME_STATS lists every group with its lag per topic.
func TestBrokerConsumeStats(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "T_BCS"
	createTopic(t, c, topic, 2)
	for range 4 {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 1, Body: []byte("x")}))
	}
	requireCode(t, c.Call(createGroupRequest(t, body.NewSubscriptionGroupConfig("G_BCS"))), protocol.Success)
	updateOffset(t, c, "G_BCS", topic, 1, 1)
	// A commit for an unknown group creates it (autoCreateSubscriptionGroup), so it is listed too.
	updateOffset(t, c, "G_AUTO", topic, 1, 0)
	resp := adminCall(t, c, protocol.GetBrokerConsumeStats, &protocol.GetConsumeStatsInBrokerHeader{}, nil)
	var raw struct {
		BrokerAddr       string                       `json:"brokerAddr"`
		TotalDiff        int64                        `json:"totalDiff"`
		ConsumeStatsList []map[string][]consumeStatsJ `json:"consumeStatsList"`
	}
	require.NoError(t, body.Unmarshal(resp.Body, &raw))
	require.Equal(t, brokertest.StoreHost.String(), raw.BrokerAddr)
	require.Equal(t, int64(3+4), raw.TotalDiff, "G_BCS is 3 behind on queue 1, G_AUTO 4")
	var found, auto bool
	for _, m := range raw.ConsumeStatsList {
		if list, ok := m["G_BCS"]; ok {
			found = true
			require.Len(t, list, 1)
			require.Len(t, list[0].OffsetTable, 2, "the topic's two write queues")
		}
		if _, ok := m["G_AUTO"]; ok {
			auto = true
		}
	}
	require.True(t, found)
	require.True(t, auto, "the group the commit created")
}

// consumeStatsJ reads a ConsumeStats whose queue keys arrive as strings.
type consumeStatsJ struct {
	OffsetTable map[string]body.OffsetWrapper `json:"offsetTable"`
}

// TestTopicAndGroupConfigs: GET_TOPIC_CONFIG and GET_SUBSCRIPTIONGROUP_CONFIG answer one config;
// the list forms of create write several.
func TestTopicAndGroupConfigs(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	list := body.CreateTopicListRequestBody{TopicConfigList: []body.TopicConfig{topicCfg("T_LIST_A", 2), topicCfg("T_LIST_B", 3)}}
	data, err := body.Marshal(list)
	require.NoError(t, err)
	adminCall(t, c, protocol.UpdateAndCreateTopicList, nil, data)
	resp := adminCall(t, c, protocol.GetTopicConfig, &protocol.GetTopicConfigRequestHeader{Topic: "T_LIST_B"}, nil)
	var tc body.TopicConfig
	require.NoError(t, body.Unmarshal(resp.Body, &tc))
	require.Equal(t, topicCfg("T_LIST_B", 3), tc)
	require.Equal(t, int64(0), maxOffset(t, c, "T_LIST_A", 1), "the queues exist")
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.GetTopicConfig, &protocol.GetTopicConfigRequestHeader{Topic: "Nope"}, nil)),
		protocol.TopicNotExist, "No topic in this broker. topic: Nope")
	bad, err := body.Marshal(body.CreateTopicListRequestBody{TopicConfigList: []body.TopicConfig{topicCfg("T_LIST_C", 1), topicCfg("a b", 1)}})
	require.NoError(t, err)
	requireCode(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateTopicList, nil, bad)), protocol.SystemError, "illegal characters")
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.GetTopicConfig, &protocol.GetTopicConfigRequestHeader{Topic: "T_LIST_C"}, nil)),
		protocol.TopicNotExist)

	g2 := body.NewSubscriptionGroupConfig("G_LIST_2")
	g2.RetryMaxTimes = 5
	data, err = body.Marshal(body.SubscriptionGroupList{GroupConfigList: []body.SubscriptionGroupConfig{body.NewSubscriptionGroupConfig("G_LIST_1"), g2}})
	require.NoError(t, err)
	adminCall(t, c, protocol.UpdateAndCreateSubscriptionGroupList, nil, data)
	resp = adminCall(t, c, protocol.GetSubscriptionGroupConfig, &protocol.GetSubscriptionGroupConfigRequestHeader{Group: "G_LIST_2"}, nil)
	var gc body.SubscriptionGroupConfig
	require.NoError(t, body.Unmarshal(resp.Body, &gc))
	require.Equal(t, g2, gc)
	require.Contains(t, groupConfigs(t, c), "G_LIST_1")
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.GetSubscriptionGroupConfig,
		&protocol.GetSubscriptionGroupConfigRequestHeader{Group: "Nope"}, nil)), protocol.SubscriptionGroupNotExist, "No group in this broker")
}

func topicCfg(name string, queues int) body.TopicConfig {
	tc := body.NewTopicConfig(name)
	tc.ReadQueueNums, tc.WriteQueueNums = queues, queues
	return tc
}

// TestOffsetAdmin: CLONE_GROUP_OFFSET copies a group's offsets, QUERY_CORRECTION_OFFSET answers
// the lowest offset among groups, QUERY_CONSUME_QUEUE reads ConsumeQueue entries.
func TestOffsetAdmin(t *testing.T) {
	b := brokertest.Start(t)
	c := b.Dial(t)
	const topic = "T_OFFADMIN"
	createTopic(t, c, topic, 2)
	var sends []sent
	for i := range 3 {
		sends = append(sends, mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0,
			Body: []byte{'a' + byte(i)}, Tags: "TagA"})))
	}
	updateOffset(t, c, "G_SRC", topic, 0, 2)
	updateOffset(t, c, "G_SRC", topic, 1, 0)
	updateOffset(t, c, "G_OTHER", topic, 0, 1)

	adminCall(t, c, protocol.CloneGroupOffset, &protocol.CloneGroupOffsetRequestHeader{SrcGroup: "G_SRC", DestGroup: "G_DEST",
		Topic: protocol.Some(topic), Offline: protocol.Some(false)}, nil)
	requireOffset(t, c, "G_DEST", topic, 0, 2)
	requireOffset(t, c, "G_DEST", topic, 1, 0)

	resp := adminCall(t, c, protocol.QueryCorrectionOffset, &protocol.QueryCorrectionOffsetHeader{
		FilterGroups: protocol.Some("G_OTHER"), CompareGroup: "G_SRC", Topic: topic}, nil)
	var corr body.QueryCorrectionOffsetBody
	require.NoError(t, body.Unmarshal(resp.Body, &corr))
	require.Equal(t, map[int32]int64{0: 2, 1: 0}, corr.CorrectionOffsets, "the lowest of G_SRC and G_DEST")
	updateOffset(t, c, "G_LAG", topic, 0, 0)
	resp = adminCall(t, c, protocol.QueryCorrectionOffset, &protocol.QueryCorrectionOffsetHeader{
		FilterGroups: protocol.Some("G_LAG"), CompareGroup: "G_LAG", Topic: topic}, nil)
	require.NoError(t, body.Unmarshal(resp.Body, &corr))
	require.Equal(t, map[int32]int64{0: math.MaxInt64, 1: 0}, corr.CorrectionOffsets, "G_LAG is behind every other group on queue 0")

	resp = adminCall(t, c, protocol.QueryConsumeQueue, &protocol.QueryConsumeQueueRequestHeader{Topic: topic, QueueID: 0,
		Index: 1, Count: 5, ConsumerGroup: protocol.Some("G_SRC")}, nil)
	var cq body.QueryConsumeQueueResponseBody
	require.NoError(t, body.Unmarshal(resp.Body, &cq))
	require.Equal(t, int64(0), cq.MinQueueIndex)
	require.Equal(t, int64(3), cq.MaxQueueIndex)
	require.Len(t, cq.QueueData, 2)
	for i, e := range cq.QueueData {
		_, off, err := message.ParseOffsetMsgID(sends[i+1].msgID)
		require.NoError(t, err)
		require.Equal(t, off, e.PhysicOffset, "entry %d points at its record", i+1)
		require.Equal(t, int64(message.JavaHash("TagA")), e.TagsCode)
	}
	require.Equal(t, "G_SRC@"+topic+" is not online!", cq.FilterData)
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.QueryConsumeQueue, &protocol.QueryConsumeQueueRequestHeader{
		Topic: topic, QueueID: 0, Index: 3, Count: 1}, nil)), protocol.SystemError, "Index 3 of 0@"+topic+" is not exist!")
}
