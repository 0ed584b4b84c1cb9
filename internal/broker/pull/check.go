package pull

import (
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// check applies Java's checks in order and returns the group and the subscription to filter
// with.
func (s *Service) check(r *Request) (body.SubscriptionGroupConfig, *client.Subscription, error) {
	gc, err := s.checkGroupAndTopic(r)
	if err != nil {
		return gc, nil, err
	}
	sub, err := s.subscription(r)
	if err != nil {
		return gc, nil, err
	}
	return gc, sub, checkFilter(sub, r.OwnSubscription, s.opts.EnablePropertyFilter)
}

func (s *Service) checkGroupAndTopic(r *Request) (body.SubscriptionGroupConfig, error) {
	if s.opts.BrokerPermission&body.PermRead == 0 {
		return body.SubscriptionGroupConfig{}, outcome.Errorf(outcome.NoPermission, "the broker[%s] pulling message is forbidden", s.opts.BrokerName)
	}
	if err := names.Group(r.Group); err != nil {
		return body.SubscriptionGroupConfig{}, outcome.Errorf(outcome.GroupNotExist, "subscription group does not exist: %v", err)
	}
	gc, ok, refused := s.Groups.FindOrCreateFor(r.Owner, r.Group)
	if refused != nil {
		return gc, outcome.Errorf(outcome.SystemError, "subscription group [%s] cannot be created: %v", r.Group, refused)
	}
	if !ok {
		return gc, outcome.Errorf(outcome.GroupNotExist, "subscription group [%s] does not exist", r.Group)
	}
	if !gc.ConsumeEnable {
		return gc, outcome.Errorf(outcome.NoPermission, "subscription group no permission, %s", r.Group)
	}
	tc, ok := s.Topics.Get(r.Topic)
	if !ok {
		return gc, outcome.Errorf(outcome.TopicNotExist, "topic[%s] not exist, apply first please!", r.Topic)
	}
	if tc.Perm&body.PermRead == 0 {
		return gc, outcome.Errorf(outcome.NoPermission, "the topic[%s] pulling message is forbidden", r.Topic)
	}
	if !policy.PullQueueOK(r.QueueID, tc.ReadQueueNums) {
		return gc, outcome.Errorf(outcome.SystemError, "queueId[%d] is illegal, topic:[%s] topicConfig.readQueueNums:[%d] consumer:[%s]",
			r.QueueID, r.Topic, tc.ReadQueueNums, r.Group)
	}
	return gc, nil
}

// subscription is the pull's own subscription, or the one from the group's last heartbeat (the Go
// push consumer sends none), which must be at least as new as the pull says.
func (s *Service) subscription(r *Request) (*client.Subscription, error) {
	if r.OwnSubscription {
		return s.ownSubscription(r), nil
	}
	if !s.Consumers.HasGroup(r.Group) {
		return nil, outcome.Errorf(outcome.SubscriptionNotExist, "the consumer's group info not exist, %s", r.Group)
	}
	sub, ok := s.Consumers.Subscription(r.Group, r.Topic)
	if !ok {
		return nil, outcome.Errorf(outcome.SubscriptionNotExist, "the consumer's subscription not exist, group %s topic %s", r.Group, r.Topic)
	}
	if sub.SubVersion < r.SubVersion {
		return nil, outcome.Errorf(outcome.SubscriptionNotLatest, "the consumer's subscription not latest, group %s topic %s", r.Group, r.Topic)
	}
	return sub, nil
}

// ownSubscription is the subscription a pull carries. The group's heartbeat subscription to the
// topic stands in for it when it has the same expression, so that its tag codes or compiled SQL92
// filter are reused; that also serves the Go pull consumer, whose polling labels a SQL92
// expression TAG.
func (s *Service) ownSubscription(r *Request) *client.Subscription {
	typ := r.ExpressionType
	if typ == "" {
		typ = body.ExpressionTag
	}
	if hb, ok := s.Consumers.Subscription(r.Group, r.Topic); ok && hb.SubString == r.Subscription &&
		(hb.ExpressionType == typ || hb.ExpressionType == body.ExpressionSQL92 && typ == body.ExpressionTag) {
		return hb
	}
	return s.Consumers.BuildSubscription(body.SubscriptionData{Topic: r.Topic, SubString: r.Subscription,
		ExpressionType: typ, SubVersion: body.Int64(r.SubVersion)})
}

// checkFilter refuses a subscription the broker cannot filter by: anything but TAG unless
// enablePropertyFilter is on and it is SQL92 with an expression that compiles. A pull's own
// expression that does not compile is SubscriptionParseFailed; a heartbeat's is
// FilterDataNotExist, as Java answers when it could not register the heartbeat's filter.
func checkFilter(sub *client.Subscription, own, sqlEnabled bool) error {
	switch {
	case sub.ExpressionType == body.ExpressionTag:
		return nil
	case !sqlEnabled || sub.ExpressionType != body.ExpressionSQL92:
		return outcome.Errorf(outcome.SystemError, "The broker does not support consumer to filter message by %s", sub.ExpressionType)
	case sub.Filter != nil:
		return nil
	case own:
		return outcome.Errorf(outcome.SubscriptionParseFailed, "parse the consumer's subscription failed: %v", sub.FilterErr)
	default:
		return outcome.Errorf(outcome.FilterDataNotExist, "The broker's consumer filter data is not exist!Your expression may be wrong! %v", sub.FilterErr)
	}
}
