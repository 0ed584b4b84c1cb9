package body

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"
)

func TestConsumeStatsGolden(t *testing.T) {
	cs := &ConsumeStats{
		ConsumeTps: 1.5,
		OffsetTable: map[MessageQueue]OffsetWrapper{
			{Topic: "t", BrokerName: "b", QueueID: 1}: {BrokerOffset: 9, ConsumerOffset: 8, LastTimestamp: 1700000000000},
			{Topic: "t", BrokerName: "b", QueueID: 0}: {BrokerOffset: 5, ConsumerOffset: 5},
		},
	}
	got, err := cs.Encode()
	require.NoError(t, err)
	want := `{"consumeTps":1.5,"offsetTable":{` +
		`{"brokerName":"b","queueId":0,"topic":"t"}:{"brokerOffset":5,"consumerOffset":5,"lastTimestamp":0,"pullOffset":0},` +
		`{"brokerName":"b","queueId":1,"topic":"t"}:{"brokerOffset":9,"consumerOffset":8,"lastTimestamp":1700000000000,"pullOffset":0}}}`
	require.Equal(t, want, string(got))

	back, err := DecodeConsumeStats(got)
	require.NoError(t, err)
	require.Equal(t, cs, back)

	empty, err := (&ConsumeStats{}).Encode()
	require.NoError(t, err)
	require.Equal(t, `{"consumeTps":0.0,"offsetTable":{}}`, string(empty))
}

func TestTopicStatsTableGolden(t *testing.T) {
	ts := &TopicStatsTable{OffsetTable: map[MessageQueue]TopicOffset{
		{Topic: "t", BrokerName: "b", QueueID: 0}: {MinOffset: 1, MaxOffset: 10, LastUpdateTimestamp: 1700000000000},
	}}
	got, err := ts.Encode()
	require.NoError(t, err)
	require.Equal(t, `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:{"lastUpdateTimestamp":1700000000000,"maxOffset":10,"minOffset":1}},"topicPutTps":0.0}`, string(got))
	back, err := DecodeTopicStatsTable(got)
	require.NoError(t, err)
	require.Equal(t, ts, back)
}

// goParseFastJSONReset re-implements rocketmq-client-go's parseFastJsonFormat (internal/model.go):
// take the offsetTable text, drop "{{" and the last "}", split on ",{" and "}:".
func goParseFastJSONReset(t *testing.T, body string) map[primitive.MessageQueue]int64 {
	t.Helper()
	require.False(t, json.Valid([]byte(body)), "the Go client takes the gson path for valid JSON")
	i := strings.Index(body, `"offsetTable":`)
	require.GreaterOrEqual(t, i, 0)
	offsetStr := body[i+len(`"offsetTable":`) : len(body)-1]
	out := map[primitive.MessageQueue]int64{}
	for _, v := range strings.Split(offsetStr[2:len(offsetStr)-1], ",{") {
		tuple := strings.Split(v, "}:")
		require.Len(t, tuple, 2)
		var mq primitive.MessageQueue
		require.NoError(t, json.Unmarshal([]byte("{"+tuple[0]+"}"), &mq))
		off, err := strconv.Atoi(tuple[1])
		require.NoError(t, err)
		out[mq] = int64(off)
	}
	return out
}

func TestResetOffsetBodySurvivesGoClientParser(t *testing.T) {
	r := &ResetOffsetBody{OffsetTable: map[MessageQueue]int64{
		{Topic: "t", BrokerName: "broker-a", QueueID: 0}:  100,
		{Topic: "t", BrokerName: "broker-a", QueueID: 11}: 7,
	}}
	got, err := r.Encode()
	require.NoError(t, err)
	require.Equal(t, `{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"t"}:100,{"brokerName":"broker-a","queueId":11,"topic":"t"}:7}}`, string(got))
	require.Equal(t, map[primitive.MessageQueue]int64{
		{Topic: "t", BrokerName: "broker-a", QueueId: 0}:  100,
		{Topic: "t", BrokerName: "broker-a", QueueId: 11}: 7,
	}, goParseFastJSONReset(t, string(got)))

	back, err := DecodeResetOffsetBody(got)
	require.NoError(t, err)
	require.Equal(t, r, back)
}

func TestDecodeObjectKeyErrors(t *testing.T) {
	for _, in := range []string{
		`{"offsetTable":{{"queueId":"x"}:1}}`,
		`{"offsetTable":{{"queueId":0}:"x"}}`,
		`{"offsetTable":{{"queueId":0}}}`,
		`{"offsetTable":{abc:1}}`,
	} {
		_, err := DecodeResetOffsetBody([]byte(in))
		require.Error(t, err, in)
	}
}

func TestConsumerConnectionGolden(t *testing.T) {
	got, err := Marshal(ConsumerConnection{
		ConnectionSet:     []Connection{{ClientID: "c1", ClientAddr: "10.0.0.9:5000", Language: "GO", Version: 317}},
		SubscriptionTable: map[string]SubscriptionData{"t": {Topic: "t", SubString: "*", SubVersion: 1}},
		ConsumeType:       ConsumePassively,
		MessageModel:      Clustering,
		ConsumeFromWhere:  "CONSUME_FROM_LAST_OFFSET",
	})
	require.NoError(t, err)
	require.Equal(t, `{"connectionSet":[{"clientAddr":"10.0.0.9:5000","clientId":"c1","language":"GO","version":317}],`+
		`"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",`+
		`"subscriptionTable":{"t":{"classFilterMode":false,"codeSet":[],"subString":"*","subVersion":1,"tagsSet":[],"topic":"t"}}}`, string(got))
}
