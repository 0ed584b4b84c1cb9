package processor_test

import (
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// The fakes of the services' operations the Java clients and Apache's admin tools added.

type checkSubCall struct{ D body.SubscriptionData }

func (f *fakes) CheckSubscription(d body.SubscriptionData) error {
	return f.called(checkSubCall{d}).err
}
