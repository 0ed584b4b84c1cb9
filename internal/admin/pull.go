package admin

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// PullStatus is the outcome of a pull, named as Java's PullStatus.
type PullStatus int

// Pull outcomes.
const (
	Found         PullStatus = iota // messages were read
	NoNewMsg                        // the offset is the queue's end (PULL_NOT_FOUND)
	NoMatchedMsg                    // nothing matched the filter (PULL_RETRY_IMMEDIATELY)
	OffsetIllegal                   // the offset is outside the queue (PULL_OFFSET_MOVED)
)

func (s PullStatus) String() string {
	return [...]string{"FOUND", "NO_NEW_MSG", "NO_MATCHED_MSG", "OFFSET_ILLEGAL"}[s]
}

// PullResult is one pull's answer.
type PullResult struct {
	Status          PullStatus
	NextBeginOffset int64
	MinOffset       int64
	MaxOffset       int64
	Msgs            []*message.MessageExt
}

// pullSysFlagSubscription says the pull carries its own subscription (Java PullSysFlag): the
// admin tools neither commit offsets nor wait for new messages.
const pullSysFlagSubscription = 1 << 2

// Pull reads up to maxNums messages of one queue from offset, as Java's DefaultMQPullConsumer
// does for the admin tools (group TOOLS_CONSUMER unless group is set, no offset commit, no long
// polling): the broker
// filters by the tag expression's hash codes, then the tags themselves are compared here. Each
// message gets the queue's MIN_OFFSET and MAX_OFFSET properties, as the Java client adds them.
func (c *Client) Pull(ctx context.Context, addr, group string, mq body.MessageQueue, expr string, offset int64, maxNums int) (*PullResult, error) {
	if expr == "" {
		expr = "*"
	}
	if group == "" {
		group = systopic.ToolsConsumerGroup
	}
	h := &protocol.PullMessageRequestHeader{ConsumerGroup: group, Topic: mq.Topic, QueueID: mq.QueueID,
		QueueOffset: offset, MaxMsgNums: int32(maxNums), SysFlag: pullSysFlagSubscription, Subscription: protocol.Some(expr),
		ExpressionType: protocol.Some("TAG"), BrokerName: protocol.Some(mq.BrokerName)}
	resp, err := c.invokeAny(ctx, addr, protocol.NewHeaderRequest(protocol.PullMessage, h, nil))
	if err != nil {
		return nil, err
	}
	status, ok := pullStatuses[resp.ResponseCode()]
	if !ok {
		return nil, &ServerError{Addr: addr, Request: protocol.PullMessage, Code: resp.ResponseCode(), Remark: resp.Remark}
	}
	var rh protocol.PullMessageResponseHeader
	if err := rh.Decode(resp.ExtFields); err != nil {
		return nil, fmt.Errorf("admin: %s PULL_MESSAGE: %w in the answer", addr, err)
	}
	r := &PullResult{Status: status, NextBeginOffset: rh.NextBeginOffset, MinOffset: rh.MinOffset, MaxOffset: rh.MaxOffset}
	if status != Found {
		return r, nil
	}
	msgs, err := message.DecodeAll(resp.Body, false)
	if err != nil {
		return nil, fmt.Errorf("admin: %s: decode pulled messages: %w", addr, err)
	}
	r.Msgs = filterTags(msgs, expr)
	for _, m := range r.Msgs {
		m.Props[message.PropertyMinOffset] = strconv.FormatInt(rh.MinOffset, 10)
		m.Props[message.PropertyMaxOffset] = strconv.FormatInt(rh.MaxOffset, 10)
	}
	if len(r.Msgs) == 0 {
		r.Status = NoMatchedMsg
	}
	return r, nil
}

var pullStatuses = map[protocol.ResponseCode]PullStatus{
	protocol.Success:              Found,
	protocol.PullNotFound:         NoNewMsg,
	protocol.PullRetryImmediately: NoMatchedMsg,
	protocol.PullOffsetMoved:      OffsetIllegal,
}

// filterTags keeps the messages whose tag the expression names ("*" or "" keeps all; "A || B").
func filterTags(msgs []*message.MessageExt, expr string) []*message.MessageExt {
	expr = strings.TrimSpace(expr)
	if expr == "" || expr == "*" {
		return msgs
	}
	var tags []string
	for _, t := range strings.Split(expr, "||") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return slices.DeleteFunc(msgs, func(m *message.MessageExt) bool { return !slices.Contains(tags, m.Tags()) })
}

// invokeAny sends req and returns the answer whatever its code.
func (c *Client) invokeAny(ctx context.Context, addr string, req *protocol.Command) (*protocol.Command, error) {
	req.SerializeType = c.serialize
	c.sign(req)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.rc.Invoke(ctx, addr, req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", addr, req.RequestCode(), err)
	}
	return resp, nil
}

// MinOffset returns the first offset of a queue still stored on a broker (GET_MIN_OFFSET).
func (c *Client) MinOffset(ctx context.Context, addr string, mq body.MessageQueue) (int64, error) {
	return c.queueOffset(ctx, addr, protocol.GetMinOffset, &protocol.GetMinOffsetRequestHeader{Topic: mq.Topic, QueueID: mq.QueueID})
}

// SearchOffset returns the offset of a queue's first message stored at or after ts (ms)
// (SEARCH_OFFSET_BY_TIMESTAMP).
func (c *Client) SearchOffset(ctx context.Context, addr string, mq body.MessageQueue, ts int64) (int64, error) {
	return c.queueOffset(ctx, addr, protocol.SearchOffsetByTimestamp,
		&protocol.SearchOffsetRequestHeader{Topic: mq.Topic, QueueID: mq.QueueID, Timestamp: ts})
}

// ReadQueues lists the queues a consumer of the route reads: every read queue of every readable
// broker group, by broker name and queue id (Java fetchSubscribeMessageQueues).
func ReadQueues(route *body.TopicRouteData, topic string) []body.MessageQueue {
	var mqs []body.MessageQueue
	for _, qd := range route.QueueDatas {
		if qd.Perm&body.PermRead == 0 {
			continue
		}
		for q := range int32(qd.ReadQueueNums) {
			mqs = append(mqs, body.MessageQueue{Topic: topic, BrokerName: qd.BrokerName, QueueID: q})
		}
	}
	slices.SortFunc(mqs, body.MessageQueue.Compare)
	return mqs
}

// ReadAddr returns the address to read a broker group of the route from (its master, else a
// slave), or an error naming the group.
func ReadAddr(route *body.TopicRouteData, brokerName string) (string, error) {
	for _, bd := range route.BrokerDatas {
		if bd.BrokerName == brokerName {
			if a := SelectAddr(bd); a != "" {
				return a, nil
			}
		}
	}
	return "", fmt.Errorf("admin: the route names no address of broker %s", brokerName)
}
