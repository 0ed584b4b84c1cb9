package processor

import (
	"context"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/filter"
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
	r := p.Store.GetMessage(h.group, h.topic, h.queueID, h.queueOffset, h.maxMsgNums, messageFilter(sub))
	if r == nil {
		return nil, fail(protocol.SystemError, "store getMessage returned nil: the store is closed")
	}
	code, suggest := p.pullRoute(pullResponseCode(r.Status, h.queueOffset), gc, r.SuggestPullingFromSlave)
	resp := protocol.NewResponse(req, code, r.Status.String())
	resp.SetExt("suggestWhichBrokerId", itoa64(suggest))
	resp.SetExt("nextBeginOffset", itoa64(r.NextBeginOffset))
	resp.SetExt("minOffset", itoa64(r.MinOffset))
	resp.SetExt("maxOffset", itoa64(r.MaxOffset))
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
	own := h.sysFlag&pullSubscription != 0
	if own {
		sub = p.ownSubscription(h)
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
	if err := p.checkFilter(sub, own); err != nil {
		return nil, err
	}
	return sub, nil
}

// ownSubscription is the subscription a pull carries (SUBSCRIPTION flag). The group's heartbeat
// subscription to the topic stands in for it when it has the same expression, so that its tag
// codes or compiled SQL92 filter are reused; that also serves the Go pull consumer, whose polling
// labels a SQL92 expression TAG.
func (p *Processor) ownSubscription(h *pullHeader) *client.Subscription {
	typ := h.expressionType
	if typ == "" {
		typ = body.ExpressionTag
	}
	if hb, ok := p.Consumers.Subscription(h.group, h.topic); ok && hb.SubString == h.subscription &&
		(hb.ExpressionType == typ || hb.ExpressionType == body.ExpressionSQL92 && typ == body.ExpressionTag) {
		return hb
	}
	return p.Consumers.BuildSubscription(body.SubscriptionData{Topic: h.topic, SubString: h.subscription,
		ExpressionType: typ, SubVersion: body.Int64(h.subVersion)})
}

// checkFilter refuses a subscription the broker cannot filter by: anything but TAG unless
// enablePropertyFilter is on and it is SQL92 with an expression that compiles. A pull's own
// expression that does not compile is SUBSCRIPTION_PARSE_FAILED; a heartbeat's is
// FILTER_DATA_NOT_EXIST, as Java answers when it could not register the heartbeat's filter.
func (p *Processor) checkFilter(sub *client.Subscription, own bool) error {
	switch {
	case sub.ExpressionType == body.ExpressionTag:
		return nil
	case !p.opts.EnablePropertyFilter || sub.ExpressionType != body.ExpressionSQL92:
		return fail(protocol.SystemError, "The broker does not support consumer to filter message by %s", sub.ExpressionType)
	case sub.Filter != nil:
		return nil
	case own:
		return fail(protocol.SubscriptionParseFailed, "parse the consumer's subscription failed: %v", sub.FilterErr)
	default:
		return fail(protocol.FilterDataNotExist, "The broker's consumer filter data is not exist!Your expression may be wrong! %v", sub.FilterErr)
	}
}

// hold parks a pull that found nothing until a message it wants arrives or its suspend timeout.
func (p *Processor) hold(c *remoting.Conn, req *protocol.Command, h *pullHeader, sub *client.Subscription) {
	wait := h.suspendTimeout
	if !p.opts.LongPollingEnable {
		wait = p.opts.ShortPollingTime
	}
	f := messageFilter(sub)
	p.Holds.Hold(&longpoll.Request{
		Topic:    h.topic,
		QueueID:  h.queueID,
		Offset:   h.queueOffset,
		Deadline: time.Now().Add(wait),
		Match: func(tagsCode int64, props []byte) bool {
			return f.MatchByConsumeQueue(tagsCode) && f.MatchByCommitLog(props)
		},
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

// messageFilter is what the store filters a pull with: a SQL92 subscription's compiled expression
// over each record's properties, else the subscription's tag codes over the ConsumeQueue.
func messageFilter(sub *client.Subscription) store.MessageFilter {
	if sub != nil && sub.Filter != nil {
		return sqlFilter{sub.Filter}
	}
	return tagFilter{sub}
}

// sqlFilter filters a pull by a SQL92 expression over the message properties in the CommitLog.
type sqlFilter struct{ expr *filter.Expr }

func (f sqlFilter) MatchByConsumeQueue(int64) bool { return true }

func (f sqlFilter) MatchByCommitLog(props []byte) bool { return f.expr.Match(props) }

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
