package admin

import (
	"context"
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// MaxOffset returns the end of one queue on a broker: the ConsumeQueue offset its next message
// gets, which is its entry count while nothing has been cleaned up (GET_MAX_OFFSET).
func (c *Client) MaxOffset(ctx context.Context, addr string, mq body.MessageQueue) (int64, error) {
	return c.queueOffset(ctx, addr, protocol.GetMaxOffset,
		&protocol.GetMaxOffsetRequestHeader{Topic: mq.Topic, QueueID: mq.QueueID})
}

// ConsumerOffset returns a group's committed offset of one queue on a broker
// (QUERY_CONSUMER_OFFSET); ok is false when the broker answers QUERY_NOT_FOUND. A 4.9 broker (and
// this project's) answers 0 for a group without an offset while the queue still begins at 0; the
// request says setZeroIfNotFound=false, which makes a RocketMQ 5 broker answer QUERY_NOT_FOUND
// instead.
func (c *Client) ConsumerOffset(ctx context.Context, addr, group string, mq body.MessageQueue) (offset int64, ok bool, err error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.QueryConsumerOffset,
		&protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: mq.Topic, QueueID: mq.QueueID,
			SetZeroIfNotFound: protocol.Some(false)}, nil))
	if IsCode(err, protocol.QueryNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var answer protocol.QueryConsumerOffsetResponseHeader
	if err := answer.Decode(resp.ExtFields); err != nil {
		return 0, false, fmt.Errorf("admin: %s %s: %w in the answer", addr, protocol.QueryConsumerOffset, err)
	}
	return answer.Offset, true, nil
}

// CloneGroupOffset commits, for group dest, the offsets group src has committed on the topic's
// queues (Java cloneGroupOffset's tool: src's consume stats, then UPDATE_CONSUMER_OFFSET on the
// broker of each queue). Queues src has no offset of are left alone.
func (c *Client) CloneGroupOffset(ctx context.Context, src, dest, topic string) error {
	cs, err := c.ExamineConsumeStats(ctx, src)
	if err != nil {
		return err
	}
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return err
	}
	for mq, w := range cs.OffsetTable {
		if mq.Topic != topic || w.ConsumerOffset < 0 {
			continue
		}
		addr, err := ReadAddr(route, mq.BrokerName)
		if err != nil {
			return err
		}
		if err := c.UpdateConsumerOffset(ctx, addr, dest, mq, w.ConsumerOffset); err != nil {
			return err
		}
	}
	return nil
}
