package send

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// fakeRequesters records the replies pushed and answers with err.
type fakeRequesters struct {
	err    error
	pushed []Reply
}

func (f *fakeRequesters) PushReply(_ context.Context, clientID string, r Reply) error {
	f.pushed = append(f.pushed, r)
	return f.err
}

func replyEnv(storeReplies bool) (*env, *fakeRequesters) {
	e := newEnv(func(o *Options) { o.StoreReplyMessageEnable = storeReplies })
	req := &fakeRequesters{}
	e.svc.Requesters = req
	return e, req
}

func replyRequest() Request {
	return *request("T", message.PropertyUniqClientMessageID, "U1", message.PropertyMessageReplyToClient, "client-1",
		message.PropertyCorrelationID, "corr-1", message.PropertyMessageType, "reply")
}

// TestReplyPushedAndStored: a reply goes to the requester its REPLY_TO_CLIENT names, with
// PUSH_REPLY_TIME added, and is stored without it.
func TestReplyPushedAndStored(t *testing.T) {
	e, req := replyEnv(true)
	res, err := e.svc.Reply(context.Background(), replyRequest())
	require.NoError(t, err)
	require.True(t, res.Pushed)
	require.True(t, res.Stored)
	require.Equal(t, int64(7), res.Put.QueueOffset)
	require.Equal(t, outcome.OK, res.Status)
	require.Len(t, req.pushed, 1)
	p := req.pushed[0]
	require.Equal(t, "client-1", p.ClientID)
	require.Equal(t, int32(1), p.QueueID)
	require.Equal(t, "10.0.0.9:10911", p.StoreHost)
	require.Equal(t, []byte("hello"), p.Request.Body)
	pushed := message.ParseProperties(p.Properties)
	require.Equal(t, "corr-1", pushed[message.PropertyCorrelationID])
	require.NotEmpty(t, pushed[message.PropertyPushReplyTime])
	require.Equal(t, "DefaultCluster", pushed[message.PropertyCluster])
	require.Len(t, e.store.puts, 1)
	stored := message.ParseProperties(e.store.puts[0].Properties)
	require.NotContains(t, stored, message.PropertyPushReplyTime)
	require.Equal(t, "corr-1", stored[message.PropertyCorrelationID])
	require.Equal(t, "T", e.store.puts[0].Topic)
}

// TestReplyNotDelivered: a reply nobody can take is still stored (as Java does), and says why it
// was not delivered; with storeReplyMessageEnable off nothing is stored.
func TestReplyNotDelivered(t *testing.T) {
	e, req := replyEnv(true)
	r := *request("T", message.PropertyCorrelationID, "c")
	res, err := e.svc.Reply(context.Background(), r)
	require.NoError(t, err)
	require.False(t, res.Pushed)
	require.Equal(t, "reply message properties[REPLY_TO_CLIENT] is null", res.PushRemark)
	require.True(t, res.Stored)
	require.Empty(t, req.pushed)

	req.err = outcome.Errorf(outcome.SystemError, "push reply message fail, channel of <client-1> not found.")
	res, err = e.svc.Reply(context.Background(), replyRequest())
	require.NoError(t, err)
	require.False(t, res.Pushed)
	require.Equal(t, "push reply message fail, channel of <client-1> not found.", res.PushRemark)

	e, req = replyEnv(false)
	res, err = e.svc.Reply(context.Background(), replyRequest())
	require.NoError(t, err)
	require.True(t, res.Pushed)
	require.False(t, res.Stored)
	require.Empty(t, e.store.puts, "storeReplyMessageEnable=false keeps no reply")
	require.Len(t, req.pushed, 1)

	e.svc.Requesters = nil
	res, _ = e.svc.Reply(context.Background(), replyRequest())
	require.False(t, res.Pushed, "without requesters nobody gets it")
}

// TestReplyChecks: a reply gets the send's checks.
func TestReplyChecks(t *testing.T) {
	e, req := replyEnv(true)
	r := replyRequest()
	r.Topic = "Nope"
	_, err := e.svc.Reply(context.Background(), r)
	requireKind(t, err, outcome.TopicNotExist, "topic[Nope] not exist, apply first please!")
	r = replyRequest()
	r.Body = make([]byte, 2048)
	_, err = e.svc.Reply(context.Background(), r)
	k, _ := outcome.Of(err)
	require.Equal(t, outcome.MessageIllegal, k)
	require.Empty(t, req.pushed)
	require.Empty(t, e.store.puts)
}

// TestReconfigure: brokerPermission and storeReplyMessageEnable change while the service runs.
func TestReconfigure(t *testing.T) {
	e, req := replyEnv(true)
	e.svc.Reconfigure(func(o *Options) { o.BrokerPermission = body.PermRead; o.StoreReplyMessageEnable = false })
	_, err := e.svc.Send(*request("T"))
	requireKind(t, err, outcome.NoPermission, "the broker[broker-a] sending message is forbidden")
	e.svc.Reconfigure(func(o *Options) { o.BrokerPermission = body.PermRead | body.PermWrite })
	res, err := e.svc.Reply(context.Background(), replyRequest())
	require.NoError(t, err)
	require.False(t, res.Stored, "storeReplyMessageEnable stayed off")
	require.Len(t, req.pushed, 1)
}

// TestReplyToBadClientID: a REPLY_TO_CLIENT that is not a client id is pushed to nobody, looked
// up nowhere, and the remark shows it quoted and cut.
func TestReplyToBadClientID(t *testing.T) {
	e, req := replyEnv(false)
	for _, id := range []string{"a b", strings.Repeat("c", 5000), "x\ty"} {
		r := *request("T", message.PropertyMessageReplyToClient, id, message.PropertyCorrelationID, "c")
		res, err := e.svc.Reply(context.Background(), r)
		require.NoError(t, err)
		require.False(t, res.Pushed)
		require.Contains(t, res.PushRemark, "The client id")
		require.Less(t, len(res.PushRemark), 400)
	}
	require.Empty(t, req.pushed)
}
