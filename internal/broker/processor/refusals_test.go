package processor_test

import (
	"testing"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestMissingHeaderFields: every handler with a header refuses a request without it, naming the
// first required field as the client spells it.
func TestMissingHeaderFields(t *testing.T) {
	c := serve(t, &fakes{})
	for code, field := range map[protocol.RequestCode]string{
		protocol.SendMessage: "producerGroup", protocol.SendMessageV2: "a", protocol.SendBatchMessage: "a",
		protocol.ConsumerSendMsgBack: "offset", protocol.PullMessage: "consumerGroup", protocol.EndTransaction: "producerGroup",
		protocol.UnregisterClient: "clientID", protocol.GetConsumerListByGroup: "consumerGroup",
		protocol.QueryConsumerOffset: "consumerGroup", protocol.UpdateConsumerOffset: "consumerGroup",
		protocol.GetMaxOffset: "topic", protocol.GetMinOffset: "topic", protocol.GetEarliestMsgStoreTime: "topic",
		protocol.SearchOffsetByTimestamp: "topic", protocol.QueryMessage: "topic", protocol.ViewMessageByID: "offset",
		protocol.UpdateAndCreateTopic: "topic", protocol.DeleteTopicInBroker: "topic",
		protocol.DeleteSubscriptionGroup: "groupName", protocol.GetTopicStatsInfo: "topic",
		protocol.GetConsumeStats: "consumerGroup", protocol.GetConsumerConnectionList: "consumerGroup",
		protocol.QueryTopicConsumeByWho: "topic", protocol.QueryConsumeTimeSpan: "topic",
		protocol.GetConsumerRunningInfo: "consumerGroup", protocol.ConsumeMessageDirectly: "consumerGroup",
		protocol.InvokeBrokerToResetOffset: "topic", protocol.InvokeBrokerToGetConsumerStatus: "topic",
	} {
		requireAnswer(t, c.Call(protocol.NewRequest(code, nil, nil)), protocol.SystemError, "the custom field <"+field+"> is null")
	}
}

// TestServiceRefusals: what a service refuses is answered with its outcome's code and remark.
func TestServiceRefusals(t *testing.T) {
	f := &fakes{a: answers{err: outcome.Errorf(outcome.NoPermission, "refused")}}
	c := serve(t, f)
	for _, req := range []*protocol.Command{
		protocol.NewHeaderRequest(protocol.DeleteTopicInBroker, &protocol.DeleteTopicRequestHeader{Topic: "T"}, nil),
		protocol.NewHeaderRequest(protocol.DeleteSubscriptionGroup, &protocol.DeleteSubscriptionGroupRequestHeader{GroupName: "G"}, nil),
		protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, []byte(`{"groupName":"G"}`)),
		protocol.NewRequest(protocol.GetAllDelayOffset, nil, nil),
		protocol.NewHeaderRequest(protocol.GetConsumerListByGroup, &protocol.GetConsumerListByGroupRequestHeader{ConsumerGroup: "G"}, nil),
		protocol.NewHeaderRequest(protocol.ViewMessageByID, &protocol.ViewMessageRequestHeader{Offset: 1}, nil),
		protocol.NewHeaderRequest(protocol.QueryConsumeTimeSpan, &protocol.QueryConsumeTimeSpanRequestHeader{Topic: "T", Group: "G"}, nil),
		protocol.NewHeaderRequest(protocol.ConsumeMessageDirectly, &protocol.ConsumeMessageDirectlyResultRequestHeader{ConsumerGroup: "G"}, nil),
		protocol.NewHeaderRequest(protocol.InvokeBrokerToResetOffset, &protocol.ResetOffsetRequestHeader{Topic: "T", Group: "G"}, nil),
		protocol.NewHeaderRequest(protocol.InvokeBrokerToGetConsumerStatus, &protocol.GetConsumerStatusRequestHeader{Topic: "T", Group: "G"}, nil),
	} {
		requireAnswer(t, c.Call(req), protocol.NoPermission, "refused")
	}
}
