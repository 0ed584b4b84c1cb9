package processor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/queueoffset"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func header(code protocol.RequestCode, h protocol.Header, data []byte) *protocol.Command {
	return protocol.NewHeaderRequest(code, h, data)
}

// TestToolHandlers: each admin call of Apache's tools decodes its header or body, asks its service
// and answers its body; a refusal is the service's.
func TestToolHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)

	resp := c.Call(header(protocol.GetProducerConnectionList, &protocol.GetProducerConnectionListRequestHeader{ProducerGroup: "PG"}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"connectionSet":[{"clientAddr":"","clientId":"p1","language":"JAVA","version":0}]}`, string(resp.Body))
	require.Equal(t, "producers PG", f.last())

	resp = c.Call(protocol.NewRequest(protocol.GetAllProducerInfo, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Contains(t, string(resp.Body), `"data":{"PG":[{"clientId":"p1"`)

	resp = c.Call(header(protocol.ViewBrokerStatsData, &protocol.ViewBrokerStatsDataRequestHeader{StatsName: "TOPIC_PUT_NUMS", StatsKey: "T"}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Contains(t, string(resp.Body), `"statsMinute":{"avgpt":0.0,"sum":4,"tps":0.0}`)
	require.Equal(t, statsDataCall{"TOPIC_PUT_NUMS", "T"}, f.last())

	resp = c.Call(header(protocol.GetBrokerConsumeStats, &protocol.GetConsumeStatsInBrokerHeader{IsOrder: true}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"brokerAddr":"b:1","consumeStatsList":[],"totalDiff":3,"totalInflightDiff":0}`, string(resp.Body))
	require.Equal(t, true, f.last())

	resp = c.Call(header(protocol.GetTopicConfig, &protocol.GetTopicConfigRequestHeader{Topic: "T"}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	var tc body.TopicConfig
	require.NoError(t, body.Unmarshal(resp.Body, &tc))
	require.Equal(t, body.NewTopicConfig("T"), tc)

	resp = c.Call(header(protocol.GetSubscriptionGroupConfig, &protocol.GetSubscriptionGroupConfigRequestHeader{Group: "G"}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	var gc body.SubscriptionGroupConfig
	require.NoError(t, body.Unmarshal(resp.Body, &gc))
	require.Equal(t, body.NewSubscriptionGroupConfig("G"), gc)

	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.TopicNotExist, "No topic in this broker. topic: T") })
	requireAnswer(t, c.Call(header(protocol.GetTopicConfig, &protocol.GetTopicConfigRequestHeader{Topic: "T"}, nil)),
		protocol.TopicNotExist, "No topic in this broker. topic: T")
	requireAnswer(t, c.Call(header(protocol.ViewBrokerStatsData, &protocol.ViewBrokerStatsDataRequestHeader{StatsName: "X", StatsKey: "Y"}, nil)),
		protocol.TopicNotExist, "No topic in this broker. topic: T")
}

func TestToolListHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	data := []byte(`{"topicConfigList":[{"topicName":"A","readQueueNums":2,"writeQueueNums":2,"perm":6}]}`)
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateTopicList, nil, data)), protocol.Success, "")
	got := f.last().(topicList).List
	require.Len(t, got, 1)
	require.Equal(t, "A", got[0].TopicName)
	resp := c.Call(protocol.NewRequest(protocol.UpdateAndCreateTopicList, nil, []byte("[")))
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Contains(t, resp.Remark, "bad CreateTopicListRequestBody")

	data = []byte(`{"groupConfigList":[{"groupName":"G1"},{"groupName":"G2","retryMaxTimes":1}]}`)
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroupList, nil, data)), protocol.Success, "")
	groupsGot := f.last().(groupList).List
	require.Equal(t, []string{"G1", "G2"}, []string{groupsGot[0].GroupName, groupsGot[1].GroupName})
	require.Equal(t, 1, groupsGot[1].RetryMaxTimes)

	f.set(func(a *answers) { a.writable = outcome.Errorf(outcome.SystemError, "slave") })
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroupList, nil, data)), protocol.SystemError, "slave")
}

func TestToolOffsetHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	requireAnswer(t, c.Call(header(protocol.CloneGroupOffset, &protocol.CloneGroupOffsetRequestHeader{SrcGroup: "S", DestGroup: "D",
		Topic: protocol.Some("T"), Offline: protocol.Some(true)}, nil)), protocol.Success, "")
	require.Equal(t, queueoffset.CloneRequest{SrcGroup: "S", DestGroup: "D", Topic: "T", Offline: true}, f.last())

	resp := c.Call(header(protocol.QueryCorrectionOffset, &protocol.QueryCorrectionOffsetHeader{FilterGroups: protocol.Some("a,b"),
		CompareGroup: "C", Topic: "T"}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"correctionOffsets":{"0":5}}`, string(resp.Body))
	require.Equal(t, correction{"T", "a,b", "C"}, f.last())

	resp = c.Call(header(protocol.QueryConsumeQueue, &protocol.QueryConsumeQueueRequestHeader{Topic: "T", QueueID: 1, Index: 2,
		Count: 3, ConsumerGroup: protocol.Some("G")}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, queueoffset.QueueQuery{Topic: "T", QueueID: 1, Index: 2, Count: 3, Group: "G"}, f.last())
	var qb body.QueryConsumeQueueResponseBody
	require.NoError(t, body.Unmarshal(resp.Body, &qb))
	require.Equal(t, int64(9), qb.MaxQueueIndex)
	require.Equal(t, int64(64), qb.QueueData[0].PhysicOffset)

	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.SystemError, "1@T is not exist!") })
	requireAnswer(t, c.Call(header(protocol.QueryConsumeQueue, &protocol.QueryConsumeQueueRequestHeader{Topic: "T"}, nil)),
		protocol.SystemError, "1@T is not exist!")
}
