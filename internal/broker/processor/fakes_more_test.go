package processor_test

import (
	"context"
	"net/netip"

	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// The fakes of the services' operations the Java clients and Apache's admin tools added.

type checkSubCall struct{ D body.SubscriptionData }

func (f *fakes) CheckSubscription(d body.SubscriptionData) error {
	return f.called(checkSubCall{d}).err
}

type replyCall struct{ R send.Request }

func (f *fakes) Reply(_ context.Context, r send.Request) (send.ReplyResult, error) {
	r.BornHost = netip.AddrPortFrom(r.BornHost.Addr(), 0)
	a := f.called(replyCall{r})
	return a.replyResult, a.err
}
