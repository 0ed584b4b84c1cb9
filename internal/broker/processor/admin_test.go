package processor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestTopicAdminHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	req := brokertest.CreateTopicRequest("T", 3)
	req.ExtFields.Set("order", "true")
	requireAnswer(t, c.Call(req), protocol.Success, "")
	want := body.NewTopicConfig("T")
	want.ReadQueueNums, want.WriteQueueNums, want.Order = 3, 3, true
	require.Equal(t, want, f.last())

	req.ExtFields.Delete("defaultTopic")
	requireAnswer(t, c.Call(req), protocol.Success, "")
	require.Equal(t, want, f.last(), "a request without defaultTopic is taken, as it always was")
	req.ExtFields.Delete("perm")
	requireAnswer(t, c.Call(req), protocol.SystemError, "the custom field <perm> is null")

	f.set(func(a *answers) {
		a.err = outcome.Errorf(outcome.SystemError, "The topic[T] is conflict with system topic.")
	})
	requireAnswer(t, c.Call(brokertest.CreateTopicRequest("T", 3)), protocol.SystemError, "The topic[T] is conflict with system topic.")
	f.set(func(a *answers) { a.err = nil })

	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.DeleteTopicInBroker, &protocol.DeleteTopicRequestHeader{Topic: "T"}, nil)),
		protocol.Success, "")
	require.Equal(t, "delete T", f.last())
	resp := c.Call(protocol.NewRequest(protocol.GetAllTopicConfig, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	var w body.TopicConfigSerializeWrapper
	require.NoError(t, body.Unmarshal(resp.Body, &w))
	require.Contains(t, w.TopicConfigTable, "T")
	resp = c.Call(protocol.NewRequest(protocol.GetSystemTopicListFromBroker, nil, nil))
	require.JSONEq(t, `{"topicList":["A","B"]}`, string(resp.Body))
	resp = c.Call(protocol.NewRequest(protocol.GetAllDelayOffset, nil, nil))
	require.Equal(t, `{"offsetTable":{}}`, string(resp.Body))
}

func TestGroupAdminHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	cfg := body.NewSubscriptionGroupConfig("G")
	data, err := body.Marshal(cfg)
	require.NoError(t, err)
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, data)), protocol.Success, "")
	require.Equal(t, cfg, f.last())
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, nil)), protocol.SystemError,
		"UPDATE_AND_CREATE_SUBSCRIPTIONGROUP needs a SubscriptionGroupConfig JSON body")
	resp := c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, []byte("[")))
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Contains(t, resp.Remark, "bad SubscriptionGroupConfig body: ")

	del := func(h protocol.DeleteSubscriptionGroupRequestHeader) *protocol.Command {
		return c.Call(protocol.NewHeaderRequest(protocol.DeleteSubscriptionGroup, &h, nil))
	}
	requireAnswer(t, del(protocol.DeleteSubscriptionGroupRequestHeader{GroupName: "G"}), protocol.Success, "")
	require.Equal(t, groupDelete{"G", false}, f.last())
	del(protocol.DeleteSubscriptionGroupRequestHeader{GroupName: "G", CleanOffset: protocol.Some(true)})
	require.Equal(t, groupDelete{"G", true}, f.last(), "5.x's cleanOffset")
	del(protocol.DeleteSubscriptionGroupRequestHeader{GroupName: "G", RemoveOffset: protocol.Some(true)})
	require.Equal(t, groupDelete{"G", true}, f.last(), "4.9's removeOffset")

	resp = c.Call(protocol.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Contains(t, string(resp.Body), `"G"`)

	slave := outcome.Errorf(outcome.SystemError, "Can't modify topic or subscription group from slave broker")
	f.set(func(a *answers) { a.writable = slave })
	calls := f.count()
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, nil)), protocol.SystemError,
		"Can't modify topic or subscription group from slave broker")
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.DeleteSubscriptionGroup, nil, nil)), protocol.SystemError,
		"Can't modify topic or subscription group from slave broker")
	require.Equal(t, calls, f.count(), "a slave refuses before it reads the request")
}

func TestStatsHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerRuntimeInfo, nil, nil))
	require.JSONEq(t, `{"table":{"brokerVersionDesc":"V4_9_8"}}`, string(resp.Body))

	resp = c.Call(protocol.NewHeaderRequest(protocol.GetTopicStatsInfo, &protocol.GetTopicStatsInfoRequestHeader{Topic: "T"}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Contains(t, string(resp.Body), `"maxOffset":5`)

	resp = c.Call(protocol.NewHeaderRequest(protocol.GetConsumeStats,
		&protocol.GetConsumeStatsRequestHeader{ConsumerGroup: "G", Topic: protocol.Some("T")}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, consumeStats{"G", "T"}, f.last())

	resp = c.Call(protocol.NewHeaderRequest(protocol.GetConsumerConnectionList,
		&protocol.GetConsumerConnectionListRequestHeader{ConsumerGroup: "G"}, nil))
	require.Contains(t, string(resp.Body), `"messageModel":"CLUSTERING"`)

	resp = c.Call(protocol.NewHeaderRequest(protocol.QueryTopicConsumeByWho, &protocol.QueryTopicConsumeByWhoRequestHeader{Topic: "T"}, nil))
	require.JSONEq(t, `{"groupList":["G1","G2"]}`, string(resp.Body))

	resp = c.Call(protocol.NewHeaderRequest(protocol.QueryConsumeTimeSpan, &protocol.QueryConsumeTimeSpanRequestHeader{Topic: "T", Group: "G"}, nil))
	require.Contains(t, string(resp.Body), `{"consumeTimeSpanSet":[{"consumeTimeStamp":0,"delayTime":9,`)
	require.Equal(t, timeSpanCall{"T", "G"}, f.last())

	f.set(func(a *answers) {
		a.err = outcome.Errorf(outcome.ConsumerNotOnline, "the consumer group[G] not online")
	})
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.GetConsumerConnectionList,
		&protocol.GetConsumerConnectionListRequestHeader{ConsumerGroup: "G"}, nil)),
		protocol.ConsumerNotOnline, "the consumer group[G] not online")
	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.TopicNotExist, "topic[T] not exist") })
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.GetTopicStatsInfo, &protocol.GetTopicStatsInfoRequestHeader{Topic: "T"}, nil)),
		protocol.TopicNotExist, "topic[T] not exist")
}

func TestConfigHandlers(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerConfig, nil, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, "brokerName=b\n", string(resp.Body))
	require.JSONEq(t, `{"timestamp":42,"counter":1}`, resp.ExtFields.Get("version"))

	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateBrokerConfig, nil, []byte("a=b"))), protocol.Success, "")
	require.Equal(t, configUpdate{"a=b"}, f.last())
	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.NoPermission, "Can not update config in black list.") })
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UpdateBrokerConfig, nil, []byte("rocketmqHome=/"))),
		protocol.NoPermission, "Can not update config in black list.")
}

func TestLockHandlers(t *testing.T) {
	mq := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 1}
	f := &fakes{a: answers{locked: []body.MessageQueue{mq}}}
	c := serve(t, f)
	data, err := body.Marshal(body.LockBatchRequestBody{ConsumerGroup: "G", ClientID: "c1", MQSet: []body.MessageQueue{mq}})
	require.NoError(t, err)
	resp := c.Call(protocol.NewRequest(protocol.LockBatchMQ, nil, data))
	requireAnswer(t, resp, protocol.Success, "")
	require.JSONEq(t, `{"lockOKMQSet":[{"topic":"T","brokerName":"b","queueId":1}]}`, string(resp.Body))
	require.Equal(t, lockCall{false, "G", "c1", []body.MessageQueue{mq}}, f.last())
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.UnlockBatchMQ, nil, data)), protocol.Success, "")
	require.Equal(t, lockCall{true, "G", "c1", []body.MessageQueue{mq}}, f.last())
	resp = c.Call(protocol.NewRequest(protocol.LockBatchMQ, nil, []byte("x")))
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Contains(t, resp.Remark, "bad lock body: ")
	resp = c.Call(protocol.NewRequest(protocol.UnlockBatchMQ, nil, []byte("x")))
	require.Contains(t, resp.Remark, "bad unlock body: ")

	// Names that are not names never reach the lock table.
	n := f.count()
	for _, bad := range []body.LockBatchRequestBody{
		{ConsumerGroup: "../G", ClientID: "c1", MQSet: []body.MessageQueue{mq}},
		{ConsumerGroup: "G", ClientID: "c 1", MQSet: []body.MessageQueue{mq}},
		{ConsumerGroup: "G", ClientID: "c1", MQSet: []body.MessageQueue{{Topic: "a/b"}}},
	} {
		data, err := body.Marshal(bad)
		require.NoError(t, err)
		for _, code := range []protocol.RequestCode{protocol.LockBatchMQ, protocol.UnlockBatchMQ} {
			resp := c.Call(protocol.NewRequest(code, nil, data))
			require.Equal(t, protocol.SystemError, resp.ResponseCode())
			require.Contains(t, resp.Remark, "bad lock body: ")
		}
	}
	require.Equal(t, n, f.count())
}

func TestRelayHandlers(t *testing.T) {
	mq := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 0}
	f := &fakes{a: answers{answer: relay.Answer{Code: int32(protocol.SystemBusy), Remark: "busy", Body: []byte("info")},
		resetTable: map[body.MessageQueue]int64{mq: 4}, statuses: map[string]map[body.MessageQueue]int64{"c1": {mq: 3}}}}
	c := serve(t, f)
	resp := c.Call(protocol.NewHeaderRequest(protocol.GetConsumerRunningInfo, &protocol.GetConsumerRunningInfoRequestHeader{
		ConsumerGroup: "G", ClientID: "c1", JstackEnable: protocol.Some(true)}, nil))
	requireAnswer(t, resp, protocol.SystemBusy, "busy")
	require.Equal(t, []byte("info"), resp.Body, "the client's answer, as it came")
	require.Equal(t, relay.RunningInfoQuery{Group: "G", ClientID: "c1", Jstack: true}, f.last())

	resp = c.Call(protocol.NewHeaderRequest(protocol.ConsumeMessageDirectly, &protocol.ConsumeMessageDirectlyResultRequestHeader{
		ConsumerGroup: "G", ClientID: protocol.Some("c1"), MsgID: protocol.Some("M")}, nil))
	requireAnswer(t, resp, protocol.SystemBusy, "busy")
	require.Equal(t, directCall{"G", "c1", "M"}, f.last())

	req := protocol.NewHeaderRequest(protocol.InvokeBrokerToResetOffset, &protocol.ResetOffsetRequestHeader{
		Topic: "T", Group: "G", Timestamp: 77, IsForce: true}, nil)
	req.Language = "CPP"
	resp = c.Call(req)
	requireAnswer(t, resp, protocol.Success, "")
	back, err := body.DecodeResetOffsetBody(resp.Body)
	require.NoError(t, err)
	require.Equal(t, map[body.MessageQueue]int64{mq: 4}, back.OffsetTable, "the requester gets Java's ResetOffsetBody")
	require.Equal(t, relay.ResetRequest{Topic: "T", Group: "G", Timestamp: 77, Force: true, Language: "CPP"}, f.last())

	resp = c.Call(protocol.NewHeaderRequest(protocol.InvokeBrokerToGetConsumerStatus, &protocol.GetConsumerStatusRequestHeader{
		Topic: "T", Group: "G", ClientAddr: protocol.Some("c1")}, nil))
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, `{"consumerTable":{"c1":{{"brokerName":"b","queueId":0,"topic":"T"}:3}},"messageQueueTable":{}}`, string(resp.Body))
	require.Equal(t, statusCall{"T", "G", "c1"}, f.last())

	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.ClientTimeout, "consumer <G> <c1> Timeout") })
	requireAnswer(t, c.Call(protocol.NewHeaderRequest(protocol.GetConsumerRunningInfo, &protocol.GetConsumerRunningInfoRequestHeader{
		ConsumerGroup: "G", ClientID: "c1"}, nil)), protocol.ConsumeMsgTimeout, "consumer <G> <c1> Timeout")
}
