package pull

import "github.com/rocketgo/rocketgo/pkg/protocol/body"

// CheckSubscription says whether the broker can filter by a subscription, as a consumer asks with
// CHECK_CLIENT_CONFIG before it starts: a tag subscription always; SQL92 only with
// enablePropertyFilter and an expression that compiles (SubscriptionParseFailed naming the error
// when it does not); any other type never.
func (s *Service) CheckSubscription(d body.SubscriptionData) error {
	return checkFilter(s.Consumers.BuildSubscription(d), true, s.options().EnablePropertyFilter)
}
