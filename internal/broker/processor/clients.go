package processor

import (
	"context"
	"fmt"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// pushReplyTimeout bounds the wait for a requester's answer to a pushed reply.
const pushReplyTimeout = 10 * time.Second

// languageCPP is the requester language for which Java tells clients of a reset in the C++
// client's encoding.
const languageCPP = "CPP"

// Clients calls clients connected over remoting: the per-protocol half of the services' calls to
// clients (rebalance notifications, relays). Server-initiated requests are JSON, as Java sends
// them. A channel that is no remoting connection cannot take a call that awaits an answer
// (relay.ErrNotCallable).
type Clients struct{}

// NotifyConsumerIDsChanged tells a consumer to rebalance (NOTIFY_CONSUMER_IDS_CHANGED, oneway).
func (Clients) NotifyConsumerIDsChanged(ch client.Channel, group string) error {
	return ch.InvokeOneway(protocol.NewHeaderRequest(protocol.NotifyConsumerIdsChanged,
		&protocol.NotifyConsumerIdsChangedRequestHeader{ConsumerGroup: group}, nil))
}

// RunningInfo sends GET_CONSUMER_RUNNING_INFO.
func (Clients) RunningInfo(ctx context.Context, ch client.Channel, q relay.RunningInfoQuery) (relay.Answer, error) {
	return invoke(ctx, ch, protocol.NewHeaderRequest(protocol.GetConsumerRunningInfo,
		&protocol.GetConsumerRunningInfoRequestHeader{ConsumerGroup: q.Group, ClientID: q.ClientID,
			JstackEnable: protocol.Some(q.Jstack)}, nil))
}

// ConsumeDirectly sends CONSUME_MESSAGE_DIRECTLY with the record as the body.
func (Clients) ConsumeDirectly(ctx context.Context, ch client.Channel, q relay.DirectQuery) (relay.Answer, error) {
	return invoke(ctx, ch, protocol.NewHeaderRequest(protocol.ConsumeMessageDirectly,
		&protocol.ConsumeMessageDirectlyResultRequestHeader{ConsumerGroup: q.Group, ClientID: protocol.Some(q.ClientID),
			MsgID: protocol.Some(q.MsgID), BrokerName: protocol.Some(q.BrokerName)}, q.Record))
}

// ConsumerStatus sends GET_CONSUMER_STATUS_FROM_CLIENT and decodes the client's
// {"messageQueueTable":{MQ:offset}}; an answer other than SUCCESS, or one without a body, is nil.
func (Clients) ConsumerStatus(ctx context.Context, ch client.Channel, topic, group string) (map[body.MessageQueue]int64, error) {
	a, err := invoke(ctx, ch, protocol.NewHeaderRequest(protocol.GetConsumerStatusFromClient,
		&protocol.GetConsumerStatusRequestHeader{Topic: topic, Group: group}, nil))
	if err != nil {
		return nil, err
	}
	if protocol.ResponseCode(a.Code) != protocol.Success || len(a.Body) == 0 {
		return nil, nil
	}
	return decodeConsumerStatus(a.Body)
}

// ResetOffset sends RESET_CONSUMER_CLIENT_OFFSET (oneway) with the new offsets as the body.
func (Clients) ResetOffset(ch client.Channel, n relay.ResetNotice) error {
	data, err := resetOffsetBody(n.Offsets, n.Language == languageCPP)
	if err != nil {
		return err
	}
	return ch.InvokeOneway(protocol.NewHeaderRequest(protocol.ResetConsumerClientOffset,
		&protocol.ResetOffsetRequestHeader{Topic: n.Topic, Group: n.Group, Timestamp: n.Timestamp, IsForce: n.Force}, data))
}

// invoke sends call on a remoting connection and returns the answer.
func invoke(ctx context.Context, ch client.Channel, call *protocol.Command) (relay.Answer, error) {
	conn, ok := ch.(*remoting.Conn)
	if !ok {
		return relay.Answer{}, relay.ErrNotCallable
	}
	answer, err := conn.Invoke(ctx, call)
	if err != nil {
		return relay.Answer{}, err
	}
	return relay.Answer{Code: answer.Code, Remark: answer.Remark, Body: answer.Body}, nil
}

// decodeConsumerStatus reads a client's {"messageQueueTable":{MQ:offset}}, whose keys are
// queues written as JSON objects.
func decodeConsumerStatus(data []byte) (map[body.MessageQueue]int64, error) {
	var raw struct {
		MessageQueueTable map[string]int64 `json:"messageQueueTable"`
	}
	if err := body.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("decode consumer status: %w", err)
	}
	table := make(map[body.MessageQueue]int64, len(raw.MessageQueueTable))
	for k, off := range raw.MessageQueueTable {
		mq, err := body.ParseMessageQueueKey(k)
		if err != nil {
			return nil, fmt.Errorf("decode consumer status: %w", err)
		}
		table[mq] = off
	}
	return table, nil
}

// PushReply sends a consumer's reply to the requesting producer (PUSH_REPLY_MESSAGE_TO_CLIENT) and
// waits up to 10 s for its answer, as Java's Broker2Client.callClient does; anything but SUCCESS
// is an error.
func (Clients) PushReply(ctx context.Context, ch client.Channel, r send.Reply) error {
	ctx, cancel := context.WithTimeout(ctx, pushReplyTimeout)
	defer cancel()
	q := r.Request
	a, err := invoke(ctx, ch, protocol.NewHeaderRequest(protocol.PushReplyMessageToClient, &protocol.ReplyMessageRequestHeader{
		ProducerGroup: q.ProducerGroup, Topic: q.Topic, DefaultTopic: q.DefaultTopic,
		DefaultTopicQueueNums: q.DefaultTopicQueueNums, QueueID: r.QueueID, SysFlag: q.SysFlag,
		BornTimestamp: q.BornTimestamp, Flag: q.Flag, Properties: protocol.Some(r.Properties),
		ReconsumeTimes: protocol.Some(q.ReconsumeTimes), UnitMode: protocol.Some(q.UnitMode),
		BornHost: q.BornHost.String(), StoreHost: r.StoreHost, StoreTimestamp: r.StoreTimestamp,
	}, q.Body))
	if err == nil && protocol.ResponseCode(a.Code) != protocol.Success {
		err = fmt.Errorf("the client answered %d %s", a.Code, a.Remark)
	}
	if err != nil {
		return outcome.Errorf(outcome.SystemError, "push reply message to %s fail: %v", r.ClientID, err)
	}
	return nil
}
