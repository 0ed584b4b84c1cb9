package processor_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestCheckClientConfigHandler: the body's subscription goes to the pull service, whose refusal
// is the answer; a body without one (or none at all) is SUCCESS without asking.
func TestCheckClientConfigHandler(t *testing.T) {
	f := &fakes{}
	c := serve(t, f)
	data := []byte(`{"clientId":"127.0.0.1@1","group":"G","subscriptionData":{"classFilterMode":false,` +
		`"codeSet":[],"expressionType":"SQL92","subString":"a > 1","subVersion":1700000000000,"tagsSet":[],"topic":"T"}}`)
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, data)), protocol.Success, "")
	require.Equal(t, checkSubCall{body.SubscriptionData{Topic: "T", SubString: "a > 1", ExpressionType: "SQL92",
		SubVersion: 1700000000000, CodeSet: body.CodeSet{}, TagsSet: []string{}}}, f.last())

	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.SubscriptionParseFailed, "bad expression") })
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, data)),
		protocol.SubscriptionParseFailed, "bad expression")

	n := f.count()
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, []byte(`{"clientId":"x","group":"G"}`))),
		protocol.Success, "")
	requireAnswer(t, c.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, nil)), protocol.Success, "")
	require.Equal(t, n, f.count(), "no subscription, nothing to check")
	resp := c.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, []byte("{")))
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Contains(t, resp.Remark, "bad CheckClientRequestBody")

	// Names that names.Group or names.Topic refuse are answered before the service is asked.
	n = f.count()
	resp = c.Call(protocol.NewRequest(protocol.CheckClientConfig, nil, []byte(`{"clientId":"x","group":"G\u0000"}`)))
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Contains(t, resp.Remark, "bad CheckClientRequestBody: group")
	resp = c.Call(protocol.NewRequest(protocol.CheckClientConfig, nil,
		[]byte(`{"clientId":"x","group":"G","subscriptionData":{"topic":"a/b","subString":"*"}}`)))
	require.Equal(t, protocol.SystemError, resp.ResponseCode())
	require.Contains(t, resp.Remark, "bad CheckClientRequestBody: topic")
	require.Equal(t, n, f.count(), "refused before the pull service")
}

// TestLitePullHandler: LITE_PULL_MESSAGE is PULL_MESSAGE's header and answer, marked lite.
func TestLitePullHandler(t *testing.T) {
	f := &fakes{a: answers{pullResult: pull.Result{Status: outcome.OK, Remark: "FOUND", NextBeginOffset: 4,
		MaxOffset: 9, Records: [][]byte{[]byte("r1")}}}}
	c := serve(t, f)
	req := brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "T", QueueID: 2, Offset: 3, Sub: "*"})
	req.Code = int32(protocol.LitePullMessage)
	resp := c.Call(req)
	requireAnswer(t, resp, protocol.Success, "FOUND")
	require.Equal(t, "4", resp.ExtFields.Get("nextBeginOffset"))
	require.Equal(t, []byte("r1"), resp.Body)
	got := f.last().(pull.Request)
	require.True(t, got.Lite)
	require.Equal(t, "T", got.Topic)
	require.Equal(t, int64(3), got.QueueOffset)

	c.Call(brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "T"}))
	require.False(t, f.last().(pull.Request).Lite, "PULL_MESSAGE is not lite")
}

// TestSendReplyHandler: SEND_REPLY_MESSAGE (long names) and _V2 (one-letter names) go to the send
// service's Reply; a pushed reply is SUCCESS with the stored offsets, or msgId "0" when not
// stored; one not delivered is SYSTEM_ERROR saying why.
func TestSendReplyHandler(t *testing.T) {
	host := netip.MustParseAddrPort("10.0.0.9:10911")
	f := &fakes{a: answers{replyResult: send.ReplyResult{Pushed: true, Stored: true, Result: send.Result{
		Status: outcome.OK, QueueID: 0, Put: store.PutResult{WroteOffset: 64, QueueOffset: 3, StoreHost: host}}}}}
	c := serve(t, f)
	m := brokertest.Msg{Topic: "C_REPLY_TOPIC", Body: []byte("reply")}
	v1 := brokertest.SendRequest(m)
	v1.Code = int32(protocol.SendReplyMessage)
	resp := c.Call(v1)
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, message.OffsetMsgID(host, 64), resp.ExtFields.Get("msgId"))
	require.Equal(t, "3", resp.ExtFields.Get("queueOffset"))
	require.Equal(t, "C_REPLY_TOPIC", f.last().(replyCall).R.Topic)
	require.Equal(t, []byte("reply"), f.last().(replyCall).R.Body)

	v2 := brokertest.SendV2Request(m)
	v2.Code = int32(protocol.SendReplyMessageV2)
	f.set(func(a *answers) { a.replyResult.Stored = false })
	resp = c.Call(v2)
	requireAnswer(t, resp, protocol.Success, "")
	require.Equal(t, map[string]string{"msgId": "0", "queueId": "0", "queueOffset": "0", "MSG_REGION": "DefaultRegion",
		"TRACE_ON": "true"}, resp.ExtFields.Map(), "an unstored reply answers msgId 0, as Java does")
	require.Equal(t, "C_REPLY_TOPIC", f.last().(replyCall).R.Topic, "V2's one-letter names")

	f.set(func(a *answers) { a.replyResult.Pushed, a.replyResult.PushRemark = false, "channel of <x> not found." })
	requireAnswer(t, c.Call(v2), protocol.SystemError, "channel of <x> not found.")
	f.set(func(a *answers) { a.err = outcome.Errorf(outcome.TopicNotExist, "no topic") })
	requireAnswer(t, c.Call(v2), protocol.TopicNotExist, "no topic")
}
