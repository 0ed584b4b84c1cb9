package broker_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

const replyTopic = "DefaultCluster_REPLY_TOPIC"

// producerHeartbeatAs is a Java producer's HEART_BEAT: its client id and producer group.
func producerHeartbeatAs(t *testing.T, clientID, group string) *protocol.Command {
	t.Helper()
	data, err := body.Marshal(body.HeartbeatData{ClientID: clientID, ConsumerDataSet: []body.ConsumerData{},
		ProducerDataSet: []body.ProducerData{{GroupName: group}}})
	require.NoError(t, err)
	return protocol.NewRequest(protocol.HeartBeat, nil, data)
}

// replyRequest is a responder's SEND_REPLY_MESSAGE_V2 (MessageUtil.createReplyMessage's message).
func replyRequest(to, correlation, text string) *protocol.Command {
	req := brokertest.SendV2Request(brokertest.Msg{Topic: replyTopic, QueueID: 0, Body: []byte(text), Props: map[string]string{
		message.PropertyMessageReplyToClient: to, message.PropertyCorrelationID: correlation,
		message.PropertyMessageType: "reply", message.PropertyMessageTTL: "3000"}})
	req.Code = int32(protocol.SendReplyMessageV2)
	return req
}

// TestRequestReply: a reply (SEND_REPLY_MESSAGE_V2) is pushed to the requesting producer, found
// by the REPLY_TO_CLIENT client id of its heartbeat, as PUSH_REPLY_MESSAGE_TO_CLIENT on that
// producer's connection; the responder is answered once the requester has, and the reply is
// stored in the cluster's reply topic.
func TestRequestReply(t *testing.T) {
	b := brokertest.Start(t)
	requester, responder := b.Dial(t), b.Dial(t)
	requireCode(t, requester.Call(producerHeartbeatAs(t, "requester-1", "PG_REQUEST")), protocol.Success)

	op := responder.Send(replyRequest("requester-1", "corr-1", "the answer"))
	push := requester.AwaitRequest(protocol.PushReplyMessageToClient)
	var h protocol.ReplyMessageRequestHeader
	require.NoError(t, h.Decode(push.ExtFields))
	require.Equal(t, replyTopic, h.Topic)
	require.Equal(t, brokertest.StoreHost.String(), h.StoreHost)
	require.Equal(t, responder.LocalAddr(), h.BornHost)
	require.Positive(t, h.StoreTimestamp)
	require.Equal(t, []byte("the answer"), push.Body)
	props := message.ParseProperties(h.Properties.V)
	require.Equal(t, "corr-1", props[message.PropertyCorrelationID])
	require.NotEmpty(t, props[message.PropertyPushReplyTime])
	require.False(t, responder.Answered(op), "the responder waits for the requester")
	requester.WriteRaw(encode(t, protocol.NewResponse(push, protocol.Success, "")))

	resp := responder.Await(op)
	requireCode(t, resp, protocol.Success)
	require.Regexp(t, offsetMsgID, resp.ExtFields.Get("msgId"), "a stored reply answers its offset id")
	waitDispatched(t, responder, replyTopic, 0, 1)
	stored := pullAll(t, responder, "G_REPLY_READER", replyTopic, 0, 0)
	require.Equal(t, []string{"the answer"}, bodies(stored))
	require.Equal(t, "corr-1", message.ParseProperties(stored[0].Properties)[message.PropertyCorrelationID])

	// Nobody to deliver it to, or a requester that refuses it: SYSTEM_ERROR saying so.
	requireCode(t, responder.Call(replyRequest("nobody", "corr-2", "lost")), protocol.SystemError,
		"push reply message fail, channel of <nobody> not found.")
	op = responder.Send(replyRequest("requester-1", "corr-3", "refused"))
	push = requester.AwaitRequest(protocol.PushReplyMessageToClient)
	requester.WriteRaw(encode(t, protocol.NewResponse(push, protocol.SystemError, "no such request")))
	requireCode(t, responder.Await(op), protocol.SystemError, "push reply message to requester-1 fail", "no such request")
}

// TestReplyNotStored: with storeReplyMessageEnable=false a delivered reply answers msgId "0" and
// offset 0, as Apache's broker does, and the reply topic stays empty.
func TestReplyNotStored(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) { o.StoreReplyMessageEnable = false })
	requester, responder := b.Dial(t), b.Dial(t)
	requireCode(t, requester.Call(producerHeartbeatAs(t, "requester-2", "PG_REQUEST")), protocol.Success)
	op := responder.Send(replyRequest("requester-2", "corr-1", "unkept"))
	push := requester.AwaitRequest(protocol.PushReplyMessageToClient)
	requester.WriteRaw(encode(t, protocol.NewResponse(push, protocol.Success, "")))
	resp := responder.Await(op)
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "0", resp.ExtFields.Get("msgId"))
	require.Equal(t, "0", resp.ExtFields.Get("queueOffset"))
	require.Equal(t, int64(0), maxOffset(t, responder, replyTopic, 0))
}

func encode(t *testing.T, cmd *protocol.Command) []byte {
	t.Helper()
	data, err := protocol.EncodeCommand(cmd)
	require.NoError(t, err)
	return data
}
