package body

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBrokerStatsDataJSON(t *testing.T) {
	d := BrokerStatsData{StatsMinute: BrokerStatsItem{Sum: 12, Tps: 0.2, Avgpt: 4}, StatsHour: BrokerStatsItem{Sum: 3}}
	data, err := Marshal(d)
	require.NoError(t, err)
	require.Equal(t, `{"statsDay":{"avgpt":0.0,"sum":0,"tps":0.0},"statsHour":{"avgpt":0.0,"sum":3,"tps":0.0},`+
		`"statsMinute":{"avgpt":4.0,"sum":12,"tps":0.2}}`, string(data), "doubles as fastjson writes them")
	var back BrokerStatsData
	require.NoError(t, Unmarshal(data, &back))
	require.Equal(t, d, back)
}

func TestConsumeStatsListEncode(t *testing.T) {
	mq := MessageQueue{Topic: "T", BrokerName: "b", QueueID: 1}
	l := ConsumeStatsList{BrokerAddr: "10.0.0.9:10911", TotalDiff: 3, ConsumeStatsList: []map[string][]ConsumeStats{
		{"G": {{ConsumeTps: 1.5, OffsetTable: map[MessageQueue]OffsetWrapper{mq: {BrokerOffset: 5, ConsumerOffset: 2}}}}},
		{"Idle": nil},
	}}
	data, err := l.Encode()
	require.NoError(t, err)
	require.Equal(t, `{"brokerAddr":"10.0.0.9:10911","consumeStatsList":[{"G":[{"consumeTps":1.5,"offsetTable":`+
		`{{"brokerName":"b","queueId":1,"topic":"T"}:{"brokerOffset":5,"consumerOffset":2,"lastTimestamp":0,"pullOffset":0}}}]},`+
		`{"Idle":[]}],"totalDiff":3,"totalInflightDiff":0}`, string(data), "queues as object keys, as fastjson reads them")
	var raw map[string]any
	require.NoError(t, Unmarshal(data, &raw), "our tolerant decoder reads it back")
}

func TestProducerBodiesJSON(t *testing.T) {
	data, err := Marshal(ProducerConnection{})
	require.NoError(t, err)
	require.Equal(t, `{"connectionSet":[]}`, string(data))
	data, err = Marshal(ProducerTableInfo{Data: map[string][]ProducerInfo{"PG": {{ClientID: "c", RemoteIP: "/1.2.3.4:5",
		Language: "JAVA", Version: 409, LastUpdateTimestamp: 7}}}})
	require.NoError(t, err)
	require.Equal(t, `{"data":{"PG":[{"clientId":"c","remoteIP":"/1.2.3.4:5","language":"JAVA","version":409,`+
		`"lastUpdateTimestamp":7}]}}`, string(data))
	data, err = Marshal(QueryCorrectionOffsetBody{CorrectionOffsets: map[int32]int64{0: 5}})
	require.NoError(t, err)
	require.Equal(t, `{"correctionOffsets":{"0":5}}`, string(data))
}

func TestListBodiesDecode(t *testing.T) {
	var tl CreateTopicListRequestBody
	require.NoError(t, Unmarshal([]byte(`{"topicConfigList":[{"topicName":"A","readQueueNums":2,"writeQueueNums":2,"perm":6,`+
		`"topicFilterType":"SINGLE_TAG","topicSysFlag":0,"order":false,"attributes":{}}]}`), &tl))
	require.Len(t, tl.TopicConfigList, 1)
	require.Equal(t, "A", tl.TopicConfigList[0].TopicName)
	require.Equal(t, 2, tl.TopicConfigList[0].ReadQueueNums)
	var gl SubscriptionGroupList
	require.NoError(t, Unmarshal([]byte(`{"groupConfigList":[{"groupName":"G","retryMaxTimes":3}]}`), &gl))
	require.Equal(t, "G", gl.GroupConfigList[0].GroupName)
	require.Equal(t, 3, gl.GroupConfigList[0].RetryMaxTimes)
	require.True(t, gl.GroupConfigList[0].ConsumeEnable, "fields left out take Java's defaults")
}
