package processor

import (
	"context"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/longpoll"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Pull sysFlag bits (Java PullSysFlag).
const (
	pullCommitOffset = 1 << 0
	pullSuspend      = 1 << 1
	pullSubscription = 1 << 2
)

type pullHeader struct {
	group          string
	topic          string
	queueID        int32
	queueOffset    int64
	maxMsgNums     int32
	sysFlag        int32
	commitOffset   int64
	suspendTimeout time.Duration
	subscription   string
	subVersion     int64
	expressionType string
}

func parsePullHeader(req *protocol.Command) (pullHeader, error) {
	f := protocol.Fields(req)
	h := pullHeader{
		group:          f.String("consumerGroup"),
		topic:          f.String("topic"),
		queueID:        f.Int32("queueId"),
		queueOffset:    f.Int64("queueOffset"),
		maxMsgNums:     f.Int32("maxMsgNums"),
		sysFlag:        f.Int32("sysFlag"),
		commitOffset:   f.Int64("commitOffset"),
		suspendTimeout: time.Duration(f.Int64("suspendTimeoutMillis")) * time.Millisecond,
		subscription:   f.OptString("subscription", ""),
		subVersion:     f.Int64("subVersion"),
		expressionType: f.OptString("expressionType", body.ExpressionTag),
	}
	return h, f.Err()
}

// pullMessage serves PULL_MESSAGE, holding it (long polling) when the queue has nothing new.
func (p *Processor) pullMessage(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	h, err := parsePullHeader(req)
	if err != nil {
		return nil, err
	}
	return p.pull(c, req, &h, true)
}

// pull runs one pull. allowSuspend is false when a held pull is re-run after waking.
func (p *Processor) pull(c *remoting.Conn, req *protocol.Command, h *pullHeader, allowSuspend bool) (*protocol.Command, error) {
	gc, sub, err := p.checkPull(h)
	if err != nil {
		return nil, err
	}
	filter := tagFilter{sub}
	r := p.Store.GetMessage(h.group, h.topic, h.queueID, h.queueOffset, h.maxMsgNums, filter)
	if r == nil {
		return nil, fail(protocol.SystemError, "store getMessage returned nil: the store is closed")
	}
	code := pullResponseCode(r.Status, h.queueOffset)
	resp := protocol.NewResponse(req, code, r.Status.String())
	suggest := int64(body.MasterID)
	if p.opts.SlaveReadEnable {
		suggest = gc.BrokerID
		if r.SuggestPullingFromSlave {
			suggest = gc.WhichBrokerWhenConsumeSlowly
		}
	}
	resp.ExtFields = map[string]string{
		"suggestWhichBrokerId": itoa64(suggest),
		"nextBeginOffset":      itoa64(r.NextBeginOffset),
		"minOffset":            itoa64(r.MinOffset),
		"maxOffset":            itoa64(r.MaxOffset),
	}
	switch {
	case code == protocol.Success:
		p.Metrics.MessagesOut(h.topic, h.group, r.MessageCount(), r.BufferTotalSize)
		resp.BodyParts, resp.Release = r.Records, r.Release
	case code == protocol.PullNotFound && allowSuspend && h.sysFlag&pullSuspend != 0:
		r.Release()
		p.hold(c, req, h, sub)
		resp = nil
	default:
		r.Release()
	}
	if allowSuspend && h.sysFlag&pullCommitOffset != 0 && !p.opts.Slave {
		p.Offsets.Commit(h.group, h.topic, h.queueID, h.commitOffset)
	}
	return resp, nil
}

// checkPull applies Java's checks in order and returns the group and the subscription to filter
// with: the request's own, or the one from the group's last heartbeat (the Go push consumer sends
// none).
func (p *Processor) checkPull(h *pullHeader) (body.SubscriptionGroupConfig, *client.Subscription, error) {
	if p.opts.BrokerPermission&body.PermRead == 0 {
		return body.SubscriptionGroupConfig{}, nil, fail(protocol.NoPermission, "the broker[%s] pulling message is forbidden", p.opts.BrokerName)
	}
	gc, ok := p.Groups.FindOrCreate(h.group)
	if !ok {
		return gc, nil, fail(protocol.SubscriptionGroupNotExist, "subscription group [%s] does not exist", h.group)
	}
	if !gc.ConsumeEnable {
		return gc, nil, fail(protocol.NoPermission, "subscription group no permission, %s", h.group)
	}
	tc, ok := p.Topics.Get(h.topic)
	if !ok {
		return gc, nil, fail(protocol.TopicNotExist, "topic[%s] not exist, apply first please!", h.topic)
	}
	if tc.Perm&body.PermRead == 0 {
		return gc, nil, fail(protocol.NoPermission, "the topic[%s] pulling message is forbidden", h.topic)
	}
	if h.queueID < 0 || int(h.queueID) >= tc.ReadQueueNums {
		return gc, nil, fail(protocol.SystemError, "queueId[%d] is illegal, topic:[%s] topicConfig.readQueueNums:[%d] consumer:[%s]",
			h.queueID, h.topic, tc.ReadQueueNums, h.group)
	}
	sub, err := p.pullSubscription(h)
	return gc, sub, err
}

func (p *Processor) pullSubscription(h *pullHeader) (*client.Subscription, error) {
	var sub *client.Subscription
	if h.sysFlag&pullSubscription != 0 {
		sub = client.NewSubscription(body.SubscriptionData{Topic: h.topic, SubString: h.subscription,
			ExpressionType: h.expressionType, SubVersion: body.Int64(h.subVersion)})
	} else {
		if _, ok := p.Consumers.Group(h.group); !ok {
			return nil, fail(protocol.SubscriptionNotExist, "the consumer's group info not exist, %s", h.group)
		}
		s, ok := p.Consumers.Subscription(h.group, h.topic)
		if !ok {
			return nil, fail(protocol.SubscriptionNotExist, "the consumer's subscription not exist, group %s topic %s", h.group, h.topic)
		}
		if s.SubVersion < h.subVersion {
			return nil, fail(protocol.SubscriptionNotLatest, "the consumer's subscription not latest, group %s topic %s", h.group, h.topic)
		}
		sub = s
	}
	if sub.ExpressionType != body.ExpressionTag {
		return nil, fail(protocol.SystemError, "The broker does not support consumer to filter message by %s", sub.ExpressionType)
	}
	return sub, nil
}

// hold parks a pull that found nothing until a message it wants arrives or its suspend timeout.
func (p *Processor) hold(c *remoting.Conn, req *protocol.Command, h *pullHeader, sub *client.Subscription) {
	wait := h.suspendTimeout
	if !p.opts.LongPollingEnable {
		wait = p.opts.ShortPollingTime
	}
	filter := tagFilter{sub}
	p.Holds.Hold(&longpoll.Request{
		Topic:    h.topic,
		QueueID:  h.queueID,
		Offset:   h.queueOffset,
		Deadline: time.Now().Add(wait),
		Match:    func(tagsCode int64, _ []byte) bool { return filter.MatchByConsumeQueue(tagsCode) },
		Wake: func(bool) {
			resp, err := p.pull(c, req, h, false)
			_ = c.WriteResponse(respond(req, resp, err))
		},
	})
}

// pullResponseCode is the one table from store outcomes to pull response codes (§2.6).
func pullResponseCode(st store.GetStatus, requested int64) protocol.ResponseCode {
	switch st {
	case store.Found:
		return protocol.Success
	case store.MessageWasRemoving, store.NoMatchedMessage:
		return protocol.PullRetryImmediately
	case store.NoMatchedLogicQueue, store.NoMessageInQueue:
		if requested != 0 {
			return protocol.PullOffsetMoved
		}
		return protocol.PullNotFound
	case store.OffsetFoundNull, store.OffsetOverflowOne:
		return protocol.PullNotFound
	case store.OffsetOverflowBadly, store.OffsetTooSmall:
		return protocol.PullOffsetMoved
	default:
		return protocol.SystemError
	}
}

// tagFilter filters a pull by tag codes; a nil subscription or "*" takes everything.
type tagFilter struct{ sub *client.Subscription }

func (f tagFilter) MatchByConsumeQueue(tagsCode int64) bool {
	if f.sub == nil || f.sub.MatchAll() {
		return true
	}
	_, ok := f.sub.Codes[tagsCode]
	return ok
}

func (f tagFilter) MatchByCommitLog([]byte) bool { return true }
