package processor

import (
	"context"
	"math/rand/v2"
	"strconv"

	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// consumerSendMsgBack re-sends a message its consumer failed to process (CONSUMER_SEND_MSG_BACK):
// to the group's retry topic after a delay that grows with each attempt, or to its dead-letter
// topic once the group's maximum is reached (Java asyncConsumerSendMsgBack).
func (p *Processor) consumerSendMsgBack(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	phyOffset := f.Int64("offset")
	group := f.String("group")
	delayLevel := int(f.Int32("delayLevel"))
	originMsgID := f.OptString("originMsgId", "")
	maxTimes := f.OptInt32("maxReconsumeTimes", -1)
	if err := f.Err(); err != nil {
		return nil, err
	}
	gc, ok := p.Groups.FindOrCreate(group)
	if !ok {
		return nil, fail(protocol.SubscriptionGroupNotExist, "subscription group not exist, %s", group)
	}
	if p.opts.BrokerPermission&body.PermWrite == 0 {
		return nil, fail(protocol.NoPermission, "the broker[%s] sending message is forbidden", p.opts.BrokerName)
	}
	if gc.RetryQueueNums <= 0 {
		return success(req), nil // the group asked for no retries: drop it, as Java does
	}
	orig := p.Store.LookMessageByOffset(phyOffset)
	if orig == nil {
		return nil, fail(protocol.SystemError, "look message by offset failed, %d", phyOffset)
	}
	if maxTimes < 0 {
		maxTimes = int32(gc.RetryMaxTimes)
	}
	props := orig.Props
	if _, ok := props[message.PropertyRetryTopic]; !ok {
		props[message.PropertyRetryTopic] = orig.Topic
	}
	props[message.PropertyWaitStoreMsgOK] = "false"
	if props[message.PropertyOriginMessageID] == "" {
		if originMsgID == "" {
			originMsgID = orig.OffsetMsgID()
		}
		props[message.PropertyOriginMessageID] = originMsgID
	}
	target, queueID := systopic.Retry(group), rand.Int32N(int32(gc.RetryQueueNums))
	p.Topics.CreateTopicInSendMessageBack(target, gc.RetryQueueNums, body.PermRead|body.PermWrite, 0)
	dlq := orig.ReconsumeTimes >= maxTimes || delayLevel < 0
	if dlq {
		target, queueID = systopic.DLQ(group), 0
		p.Topics.CreateTopicInSendMessageBack(target, 1, body.PermRead|body.PermWrite, 0)
		delete(props, message.PropertyDelayTimeLevel)
	} else {
		if delayLevel == 0 {
			delayLevel = 3 + int(orig.ReconsumeTimes)
		}
		props[message.PropertyDelayTimeLevel] = strconv.Itoa(delayLevel)
	}
	props[message.PropertyMaxReconsumeTimes] = strconv.Itoa(int(maxTimes))
	m := store.Message{
		Topic:          target,
		QueueID:        queueID,
		Flag:           orig.Flag,
		SysFlag:        orig.SysFlag,
		BornTimestamp:  orig.BornTimestamp,
		BornHost:       orig.BornHost,
		ReconsumeTimes: orig.ReconsumeTimes + 1,
		Body:           orig.Body,
		Properties:     message.EncodeProperties(props),
	}
	if !dlq {
		schedule.Defer(&m, delayLevel, p.opts.MaxDelayLevel)
	}
	res := p.Store.PutMessage(&m)
	if err := policy.PutFailure(&res); err != nil {
		return nil, err
	}
	return success(req), nil
}
