package broker

import (
	"github.com/rocketgo/rocketgo/internal/broker/configview"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// live are the services whose options UPDATE_BROKER_CONFIG changes while the broker runs.
type live struct {
	send     *send.Service
	sendBack *sendback.Service
	pull     *pull.Service
}

// runtimeKeys are the broker.conf keys UPDATE_BROKER_CONFIG applies while the broker runs, each
// where it takes effect. Apache's broker takes any key and most only matter at start-up; here
// every other key is refused, naming it.
func (b *Broker) runtimeKeys() map[string]configview.RuntimeKey {
	return map[string]configview.RuntimeKey{
		// Operators drain a broker with it: 4 (read only) stops sends, and the name servers learn
		// it at once.
		"brokerPermission": configview.IntKey(0, 15, b.setBrokerPermission),
		"enablePropertyFilter": configview.BoolKey(func(v bool) {
			b.live.pull.Reconfigure(func(o *pull.Options) { o.EnablePropertyFilter = v })
		}),
		"litePullMessageEnable": configview.BoolKey(func(v bool) {
			b.live.pull.Reconfigure(func(o *pull.Options) { o.LitePullMessageEnable = v })
		}),
		"slaveReadEnable": configview.BoolKey(func(v bool) {
			b.live.pull.Reconfigure(func(o *pull.Options) { o.Replica.SlaveReadEnable = v })
		}),
		"storeReplyMessageEnable": configview.BoolKey(func(v bool) {
			b.live.send.Reconfigure(func(o *send.Options) { o.StoreReplyMessageEnable = v })
		}),
	}
}

// setBrokerPermission applies a new brokerPermission to sends, send-backs, pulls and recalls and
// registers it with the name servers now, as Apache's broker does, rather than at the next period.
func (b *Broker) setBrokerPermission(p int) {
	b.perm.Store(int32(p))
	b.permEpoch.Add(1)
	b.live.send.Reconfigure(func(o *send.Options) { o.BrokerPermission = p })
	b.live.sendBack.Reconfigure(func(o *sendback.Options) { o.BrokerPermission = p })
	b.live.pull.Reconfigure(func(o *pull.Options) { o.BrokerPermission = p })
	b.timers.SetBrokerPermission(p)
	if r := b.registrar; r != nil {
		r.Trigger()
	}
}

// brokerPermission is the permission in effect.
func (b *Broker) brokerPermission() int { return int(b.perm.Load()) }

// registration is the topic table registered with the name servers, under the permission in
// effect. Its data version counts the permission changes too: name servers take a registration's
// topics only when its version differs from the last (Apache's broker moves the topic table's
// version on for this).
func (b *Broker) registration() body.TopicConfigSerializeWrapper {
	w := b.topics.RegistrationWrapper(b.brokerPermission())
	w.DataVersion.Counter += b.permEpoch.Load()
	return w
}
