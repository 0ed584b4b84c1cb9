package body

import (
	"encoding/json"
	"testing"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"
)

// goHeartbeat is what rocketmq-client-go's heartbeatData.encode produces (jsoniter, struct order,
// codeSet as strings, subVersion in nanoseconds).
const goHeartbeat = `{"clientID":"10.0.0.9@4242","producerDataSet":[{"groupName":"pg"}],` +
	`"consumerDataSet":[{"groupName":"cg","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",` +
	`"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[` +
	`{"classFilterMode":false,"topic":"t1","subString":"TagA||TagB","tagsSet":["TagA","TagB"],"codeSet":["2598919","2598920"],"subVersion":1700000000123456789,"expressionType":"TAG"},` +
	`{"classFilterMode":false,"topic":"%RETRY%cg","subString":"*","tagsSet":[],"codeSet":[],"subVersion":1700000000123456790,"expressionType":"TAG"}],` +
	`"unitMode":false}]}`

// aliOnsHeartbeat carries numbers everywhere and omits expressionType.
const aliOnsHeartbeat = `{"clientID":"10.0.0.9@DEFAULT","producerDataSet":[],"consumerDataSet":[{"groupName":"cg",` +
	`"consumeType":"CONSUME_PASSIVELY","messageModel":"BROADCASTING","consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",` +
	`"subscriptionDataSet":[{"topic":"t1","subString":"TagA","tagsSet":["TagA"],"codeSet":[2598919],"subVersion":1700000000123,"classFilterMode":false}],"unitMode":false}]}`

func TestDecodeGoHeartbeat(t *testing.T) {
	h, err := DecodeHeartbeatData([]byte(goHeartbeat))
	require.NoError(t, err)
	require.Equal(t, "10.0.0.9@4242", h.ClientID)
	require.Equal(t, []ProducerData{{GroupName: "pg"}}, h.ProducerDataSet)
	require.Len(t, h.ConsumerDataSet, 1)
	cd := h.ConsumerDataSet[0]
	require.Equal(t, ConsumePassively, cd.ConsumeType)
	require.Equal(t, Clustering, cd.MessageModel)
	sub := cd.SubscriptionDataSet[0]
	require.Equal(t, CodeSet{2598919, 2598920}, sub.CodeSet)
	require.True(t, sub.CodeSet.Contains(2598920))
	require.False(t, sub.CodeSet.Contains(1))
	require.Equal(t, Int64(1700000000123456789), sub.SubVersion)
	require.Equal(t, ExpressionTag, sub.ExpressionType)
	require.Empty(t, cd.SubscriptionDataSet[1].CodeSet)
}

func TestDecodeAliOnsHeartbeat(t *testing.T) {
	h, err := DecodeHeartbeatData([]byte(aliOnsHeartbeat))
	require.NoError(t, err)
	sub := h.ConsumerDataSet[0].SubscriptionDataSet[0]
	require.Equal(t, CodeSet{2598919}, sub.CodeSet)
	require.Equal(t, Int64(1700000000123), sub.SubVersion)
	require.Equal(t, "", sub.ExpressionType)
}

func TestHeartbeatRejectsBadCodes(t *testing.T) {
	for _, body := range []string{
		`{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":["x"]}]}]}`,
		`{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":[99999999999]}]}]}`,
		`{"consumerDataSet":[{"subscriptionDataSet":[{"codeSet":{}}]}]}`,
		`{"consumerDataSet":[{"subscriptionDataSet":[{"subVersion":1.5}]}]}`,
		`{"clientID":`,
	} {
		_, err := DecodeHeartbeatData([]byte(body))
		require.Error(t, err, body)
	}
}

func TestInt64Forms(t *testing.T) {
	for in, want := range map[string]Int64{`12`: 12, `"12"`: 12, `12.0`: 12, `null`: 0, `-3`: -3, `"-9223372036854775808"`: -9223372036854775808} {
		var n Int64
		require.NoError(t, json.Unmarshal([]byte(in), &n), in)
		require.Equal(t, want, n, in)
	}
	for _, in := range []string{`true`, `"a"`, `1e30`, `"1.5"`} {
		var n Int64
		require.Error(t, json.Unmarshal([]byte(in), &n), in)
	}
}

func TestSubscriptionDataEncodesEmptySets(t *testing.T) {
	got, err := Marshal(SubscriptionData{Topic: "t", SubString: "*", SubVersion: 5, ExpressionType: "TAG"})
	require.NoError(t, err)
	require.Equal(t, `{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":5,"tagsSet":[],"topic":"t"}`, string(got))
}

func TestMessageQueueMatchesGoClient(t *testing.T) {
	got, err := Marshal(MessageQueue{Topic: "t", BrokerName: "b", QueueID: 3})
	require.NoError(t, err)
	require.Equal(t, `{"brokerName":"b","queueId":3,"topic":"t"}`, string(got))
	var mq primitive.MessageQueue
	require.NoError(t, json.Unmarshal(got, &mq))
	require.Equal(t, primitive.MessageQueue{Topic: "t", BrokerName: "b", QueueId: 3}, mq)

	// The Go client writes topic, brokerName, queueId; we read any order.
	lock, err := DecodeLockBatchRequest([]byte(`{"consumerGroup":"g","clientId":"c","mqSet":[{"topic":"t","brokerName":"b","queueId":1}]}`))
	require.NoError(t, err)
	require.Equal(t, []MessageQueue{{Topic: "t", BrokerName: "b", QueueID: 1}}, lock.MQSet)
	require.Equal(t, "g", lock.ConsumerGroup)
	require.Equal(t, "c", lock.ClientID)
}
