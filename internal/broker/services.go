package broker

import (
	"github.com/rocketgo/rocketgo/internal/broker/endtx"
	"github.com/rocketgo/rocketgo/internal/broker/membership"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/broker/queueoffset"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
)

// services builds the protocol-neutral services over the broker's components; the remoting
// adapter (processor) serves them.
func (b *Broker) services() processor.Services {
	b.members = membership.New(membership.Deps{Groups: b.groups, Topics: b.topics, Consumers: b.consumers,
		Producers: b.producers, Notifier: processor.Clients{}}, b.lg.Named("membership"))
	return processor.Services{
		Offsets: queueoffset.New(b.offsets, b.store),
		Members: b.members,
		Query:   query.New(query.Options{}, b.store),
		EndTx:   endtx.New(endtx.Options{BrokerName: b.opts.BrokerName, Slave: b.opts.IsSlave()}, b.tx),
		Send: send.New(send.Options{
			BrokerName:       b.opts.BrokerName,
			BrokerPermission: b.opts.BrokerPermission,
			MaxMessageSize:   b.opts.Store.MaxMessageSize,
			StoreHost:        b.opts.Store.StoreHost,
			MaxDelayLevel:    len(b.opts.Store.DelayLevels),
		}, send.Deps{Store: b.store, Topics: b.topics, Groups: b.groups, Transactions: b.tx, Metrics: b.metrics}),
		SendBack: sendback.New(sendback.Options{
			BrokerName:       b.opts.BrokerName,
			BrokerPermission: b.opts.BrokerPermission,
			MaxDelayLevel:    len(b.opts.Store.DelayLevels),
		}, b.store, b.topics, b.groups),
		Pull: pull.New(pull.Options{
			BrokerName:           b.opts.BrokerName,
			BrokerPermission:     b.opts.BrokerPermission,
			Replica:              policy.Replica{Slave: b.opts.IsSlave(), SlaveReadEnable: b.opts.SlaveReadEnable},
			LongPollingEnable:    b.opts.LongPollingEnable,
			ShortPollingTime:     b.opts.ShortPollingTime,
			EnablePropertyFilter: b.opts.EnablePropertyFilter,
		}, pull.Deps{Store: b.store, Groups: b.groups, Topics: b.topics, Consumers: b.consumers, Holds: b.holds,
			Offsets: b.offsets, Metrics: b.metrics}),
	}
}
