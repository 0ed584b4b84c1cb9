package send

import (
	"context"
	"strconv"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Requesters hands a reply to the client that sent the request (DefaultMQProducer.request): the
// client is named by the reply's REPLY_TO_CLIENT property and found among the producers. An error
// says why it was not delivered.
type Requesters interface {
	PushReply(ctx context.Context, clientID string, r Reply) error
}

// Reply is a consumer's answer to a request, as the requester is given it: the send that carried
// it, its properties (the stored ones with PUSH_REPLY_TIME) and where and when the broker took it.
type Reply struct {
	ClientID       string // the requester
	Request        *Request
	QueueID        int32
	Properties     string
	StoreHost      string // ip:port
	StoreTimestamp int64
}

// ReplyResult is a reply's outcome: Pushed or not (PushRemark says why not), and Stored with the
// store's result when storeReplyMessageEnable keeps replies.
type ReplyResult struct {
	Result
	Pushed     bool
	PushRemark string
	Stored     bool
}

// Reply takes a consumer's reply (SEND_REPLY_MESSAGE, Apache's ReplyMessageProcessor): the send's
// checks, then a push to the requesting client, then, when storeReplyMessageEnable, the store,
// whether or not the push succeeded.
func (s *Service) Reply(ctx context.Context, req Request) (ReplyResult, error) {
	r := &req
	t, err := s.check(r)
	if err != nil {
		return ReplyResult{}, err
	}
	if len(r.Body) > s.options().MaxMessageSize {
		return ReplyResult{}, outcome.Errorf(outcome.MessageIllegal, "the message body size %d exceeds maxMessageSize %d",
			len(r.Body), s.options().MaxMessageSize)
	}
	msg := s.message(r, t)
	out := ReplyResult{Result: Result{Status: outcome.OK, QueueID: t.queueID}}
	out.Pushed, out.PushRemark = s.pushReply(ctx, r, &msg)
	if !s.options().StoreReplyMessageEnable {
		return out, nil
	}
	put := s.Store.PutMessage(&msg)
	if res, err := s.result(&put, t, msg.Topic, msg.Properties, 1); err == nil {
		out.Result, out.Stored = res, true
	}
	return out, nil
}

// pushReply pushes the reply to the requester named by REPLY_TO_CLIENT.
func (s *Service) pushReply(ctx context.Context, r *Request, m *store.Message) (bool, string) {
	id, ok := message.LookupPropertyString(m.Properties, message.PropertyMessageReplyToClient)
	if !ok {
		return false, "reply message properties[" + message.PropertyMessageReplyToClient + "] is null"
	}
	if err := names.ClientID(id); err != nil {
		return false, "reply message properties[" + message.PropertyMessageReplyToClient + "]: " + err.Error()
	}
	if s.Requesters == nil {
		return false, "push reply message fail, channel of <" + id + "> not found."
	}
	now := time.Now().UnixMilli()
	props := string(message.AppendProperty([]byte(m.Properties), message.PropertyPushReplyTime, strconv.FormatInt(now, 10)))
	err := s.Requesters.PushReply(ctx, id, Reply{ClientID: id, Request: r, QueueID: m.QueueID, Properties: props,
		StoreHost: s.options().StoreHost.String(), StoreTimestamp: now})
	if err != nil {
		_, remark := outcome.Of(err)
		return false, remark
	}
	return true, ""
}
