package processor

import (
	"context"
	"errors"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// clientCallTimeout bounds a request relayed to a client (Java callConsumer's 5 s).
const clientCallTimeout = 5 * time.Second

// getConsumerRunningInfo relays GET_CONSUMER_RUNNING_INFO to the named client of a group and
// answers with the client's answer (admin tools ask the broker, the broker asks the client).
func (p *Processor) getConsumerRunningInfo(ctx context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	group := f.String("consumerGroup")
	clientID := f.String("clientId")
	jstack := f.OptString("jstackEnable", "false")
	if err := f.Err(); err != nil {
		return nil, err
	}
	ext := map[string]string{"consumerGroup": group, "clientId": clientID, "jstackEnable": jstack}
	return p.callConsumer(ctx, req, protocol.NewRequest(protocol.GetConsumerRunningInfo, ext, nil), group, clientID)
}

// consumeMessageDirectly relays CONSUME_MESSAGE_DIRECTLY: the broker loads the message by its
// offset msgId and asks the named client to consume it now.
func (p *Processor) consumeMessageDirectly(ctx context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	group := f.String("consumerGroup")
	clientID := f.OptString("clientId", "")
	msgID := f.OptString("msgId", "")
	if err := f.Err(); err != nil {
		return nil, err
	}
	_, phyOffset, err := message.ParseOffsetMsgID(msgID)
	if err != nil {
		return nil, fail(protocol.SystemError, "bad msgId %q: %v", msgID, err)
	}
	m := p.Store.LookMessageByOffset(phyOffset)
	if m == nil {
		return nil, fail(protocol.SystemError, "can not find message by the offset, %d", phyOffset)
	}
	rec := make([]byte, m.EncodedSize())
	if _, err := message.Encode(rec, &m.Message); err != nil {
		return nil, err
	}
	ext := map[string]string{"consumerGroup": group, "clientId": clientID, "msgId": msgID,
		"brokerName": p.opts.BrokerName}
	return p.callConsumer(ctx, req, protocol.NewRequest(protocol.ConsumeMessageDirectly, ext, rec), group, clientID)
}

// callConsumer sends call to the group member with clientID and turns its answer into the
// response to req (Java AdminBrokerProcessor.callConsumer).
func (p *Processor) callConsumer(ctx context.Context, req, call *protocol.Command, group, clientID string) (*protocol.Command, error) {
	var ch *remoting.Conn
	for _, m := range p.Consumers.Channels(group) {
		if m.ClientID == clientID {
			if c, ok := m.Channel.(*remoting.Conn); ok {
				ch = c
			}
		}
	}
	if ch == nil {
		return nil, fail(protocol.SystemError, "The Consumer <%s> <%s> not online", group, clientID)
	}
	ctx, cancel := context.WithTimeout(ctx, clientCallTimeout)
	defer cancel()
	answer, err := ch.Invoke(ctx, call)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fail(protocol.ConsumeMsgTimeout, "consumer <%s> <%s> Timeout: %v", group, clientID, err)
	}
	if err != nil {
		return nil, fail(protocol.SystemError, "invoke consumer <%s> <%s> Exception: %v", group, clientID, err)
	}
	resp := protocol.NewResponse(req, answer.ResponseCode(), answer.Remark)
	resp.Body = answer.Body
	return resp, nil
}
