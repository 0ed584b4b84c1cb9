package broker

import (
	"strconv"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/configview"
	"github.com/rocketgo/rocketgo/internal/broker/endtx"
	"github.com/rocketgo/rocketgo/internal/broker/groupadmin"
	"github.com/rocketgo/rocketgo/internal/broker/hastatus"
	"github.com/rocketgo/rocketgo/internal/broker/membership"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/broker/queueoffset"
	"github.com/rocketgo/rocketgo/internal/broker/rebalance"
	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/internal/broker/stats"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/broker/topicadmin"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// services builds the protocol-neutral services over the broker's components; the remoting
// adapter (processor) serves them.
func (b *Broker) services() processor.Services {
	clients, boot := processor.Clients{}, time.Now()
	b.members = membership.New(membership.Options{MaxNewGroupsPerRequest: b.opts.Limits.MaxNewGroupsPerRequest,
		NotifyConsumerIdsChangedDisabled: !b.opts.NotifyConsumerIdsChangedEnable},
		membership.Deps{Groups: b.groups, Topics: b.topics, Consumers: b.consumers, Producers: b.producers, Notifier: clients},
		b.lg.Named("membership"))
	queries := query.New(query.Options{DefaultQueryMaxNum: b.opts.DefaultQueryMaxNum}, b.store)
	b.relay = relay.New(relay.Options{BrokerName: b.opts.BrokerName}, relay.Deps{Groups: b.groups, Consumers: b.consumers,
		Messages: queries, Offsets: b.offsets, Store: b.store, Topics: b.topics, Clients: clients}, b.lg.Named("relay"))
	b.live = live{send: b.sendService(clients), sendBack: b.sendBackService(), pull: b.pullService()}
	return processor.Services{
		Send:        b.live.send,
		SendBack:    b.live.sendBack,
		Pull:        b.live.pull,
		Offsets:     queueoffset.New(b.offsets, b.store, knownNames{b.groups, b.topics}),
		OffsetAdmin: &queueoffset.Admin{Offsets: b.offsets, Store: b.store, Topics: b.topics, Consumers: b.consumers},
		Members:     b.members,
		Query:       queries,
		EndTx:       endtx.New(endtx.Options{BrokerName: b.opts.BrokerName, Slave: b.opts.IsSlave()}, b.tx),
		Topics: timedTopics{topicadmin.New(topicadmin.Options{ClusterName: b.opts.ClusterName}, b.topics, b.offsets, b.store),
			b.metrics},
		Groups: timedGroups{groupadmin.New(groupadmin.Options{Slave: b.opts.IsSlave()}, b.groups, b.offsets,
			b.lg.Named("groupadmin")), b.metrics},
		Stats: b.statsService(boot),
		Config: configview.New(configview.Options{Text: b.opts.ConfigText, Keys: b.configKeys(), BootTime: boot,
			Runtime: b.runtimeKeys()}, b.lg.Named("config")),
		Relay:        b.relay,
		Locks:        rebalance.NewLockManager(0, nil),
		DelayOffsets: b.schedule,
		Pop:          b.pops,
		Assign:       b.assign,
		Timers:       b.timers,
		HA:           b.haStatusService(),
	}
}

// haStatusService reads the role's replication part; a nil *ha.Service or *ha.Client must not
// become a non-nil interface.
func (b *Broker) haStatusService() *hastatus.Service {
	deps := hastatus.Deps{Log: b.store}
	if b.repl.svc != nil {
		deps.Master = b.repl.svc
	}
	if b.repl.cli != nil {
		deps.Client = b.repl.cli
	}
	return hastatus.New(deps)
}

func (b *Broker) sendService(clients processor.Clients) *send.Service {
	return send.New(send.Options{
		BrokerName:       b.opts.BrokerName,
		BrokerPermission: b.opts.BrokerPermission,
		MaxMessageSize:   b.opts.Store.MaxMessageSize,
		StoreHost:        b.opts.Store.StoreHost,
		MaxDelayLevel:    len(b.opts.Store.DelayLevels),
		ClusterName:      b.opts.ClusterName,
		RegionID:         b.opts.RegionID,
		TraceOn:          b.opts.TraceOn,

		StoreReplyMessageEnable: b.opts.StoreReplyMessageEnable,
	}, send.Deps{Store: b.store, Topics: b.topics, Groups: b.groups, Transactions: b.tx, Timers: b.timers,
		Metrics: b.counting(), Requesters: requesters{producers: b.producers, clients: clients}})
}

func (b *Broker) sendBackService() *sendback.Service {
	return sendback.New(sendback.Options{
		BrokerName:       b.opts.BrokerName,
		BrokerPermission: b.opts.BrokerPermission,
		MaxDelayLevel:    len(b.opts.Store.DelayLevels),
		Metrics:          b.metrics,
	}, b.store, b.topics, b.groups)
}

func (b *Broker) pullService() *pull.Service {
	return pull.New(pull.Options{
		BrokerName:            b.opts.BrokerName,
		BrokerPermission:      b.opts.BrokerPermission,
		Replica:               policy.Replica{Slave: b.opts.IsSlave(), SlaveReadEnable: b.opts.SlaveReadEnable},
		LongPollingEnable:     b.opts.LongPollingEnable,
		ShortPollingTime:      b.opts.ShortPollingTime,
		MaxSuspendTimeout:     b.opts.Limits.MaxSuspendTimeout,
		EnablePropertyFilter:  b.opts.EnablePropertyFilter,
		LitePullMessageEnable: b.opts.LitePullMessageEnable,
	}, pull.Deps{Store: b.store, Groups: b.groups, Topics: b.topics, Consumers: b.consumers, Holds: b.holds,
		Offsets: b.offsets, Metrics: b.counting()})
}

func (b *Broker) statsService(boot time.Time) *stats.Service {
	return stats.New(stats.Options{BrokerName: b.opts.BrokerName, BrokerAddr: b.opts.BrokerAddr, BootTime: boot,
		Version: int(protocol.VersionV4_9_8), VersionDesc: "V4_9_8"},
		stats.Deps{Store: b.store, Topics: b.topics, Offsets: b.offsets, Consumers: b.consumers,
			Producers: b.producers, Groups: b.groups, Counters: b.counters})
}

// counting is what sends and pulls count with.
func (b *Broker) counting() counting { return counting{counters: b.counters, Broker: b.metrics} }

// configKeys are the settings GET_BROKER_CONFIG shows for a broker built without
// Options.ConfigText (embedded, tests).
func (b *Broker) configKeys() map[string]string {
	o := &b.opts
	queryMax := o.DefaultQueryMaxNum
	if queryMax <= 0 {
		queryMax = query.DefaultMaxNum
	}
	return map[string]string{
		"brokerClusterName":       o.ClusterName,
		"brokerName":              o.BrokerName,
		"brokerId":                strconv.FormatInt(o.BrokerID, 10),
		"brokerPermission":        strconv.Itoa(o.BrokerPermission),
		"maxMessageSize":          strconv.Itoa(o.Store.MaxMessageSize),
		"regionId":                o.RegionID,
		"traceOn":                 strconv.FormatBool(o.TraceOn),
		"longPollingEnable":       strconv.FormatBool(o.LongPollingEnable),
		"shortPollingTimeMills":   strconv.FormatInt(o.ShortPollingTime.Milliseconds(), 10),
		"slaveReadEnable":         strconv.FormatBool(o.SlaveReadEnable),
		"enablePropertyFilter":    strconv.FormatBool(o.EnablePropertyFilter),
		"litePullMessageEnable":   strconv.FormatBool(o.LitePullMessageEnable),
		"storeReplyMessageEnable": strconv.FormatBool(o.StoreReplyMessageEnable),
		"defaultQueryMaxNum":      strconv.Itoa(queryMax),
	}
}

// knownNames tells queueoffset which groups and topics exist.
type knownNames struct {
	groups *subscription.Manager
	topics *topic.Manager
}

func (k knownNames) FindOrCreateGroup(owner uint64, group string) (bool, error) {
	_, ok, refused := k.groups.FindOrCreateFor(owner, group)
	return ok, refused
}

func (k knownNames) TopicQueues(name string) (int, bool) {
	tc, ok := k.topics.Get(name)
	return max(tc.ReadQueueNums, tc.WriteQueueNums), ok
}
