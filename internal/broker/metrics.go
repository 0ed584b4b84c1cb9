package broker

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketgo/rocketgo/internal/broker/groupadmin"
	"github.com/rocketgo/rocketgo/internal/broker/offset"
	"github.com/rocketgo/rocketgo/internal/broker/pop"
	"github.com/rocketgo/rocketgo/internal/broker/topicadmin"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// metricLabels are the labels on every series of this broker.
func (b *Broker) metricLabels() metrics.Labels {
	return metrics.Labels{Cluster: b.opts.ClusterName, NodeType: metrics.NodeTypeBroker, NodeID: b.opts.BrokerName,
		Extra: b.opts.MetricsExtra}
}

// storeMetrics is where the store registers its collectors (rocketgo_store_*), with the broker's
// labels; nil with metrics off.
func (b *Broker) storeMetrics() prometheus.Registerer {
	if b.opts.Metrics == nil {
		return nil
	}
	return b.metricLabels().Registerer(b.opts.Metrics)
}

// buildMetrics builds the broker's metric set (nil with metrics off) over the components opened
// so far; its gauges read them, and the replication built later, at scrape time.
func (b *Broker) buildMetrics() error {
	if b.opts.Metrics == nil {
		return nil
	}
	m, err := metrics.NewBroker(b.opts.Metrics, metrics.BrokerOptions{
		Labels: b.metricLabels(),
		RPC:    metrics.RPCOptions{RequestCodeName: RequestCodeName, ResponseCodeName: ResponseCodeName},
	})
	if err != nil {
		return fmt.Errorf("broker: metrics: %w", err)
	}
	m.SetGauges(b.gauges())
	b.metrics = m
	return b.buildTimerMetrics()
}

func (b *Broker) gauges() metrics.BrokerGauges {
	return metrics.BrokerGauges{
		BrokerPermission:    b.brokerPermission,
		TopicNumber:         func() int { return len(b.topics.Topics()) },
		ConsumerGroupNumber: func() int { return len(b.groups.Groups()) },
		StorageSize:         b.store.DiskUsed, // RocketMQ 5's storage size: the store's file system's used bytes
		FlushBehindBytes:    func() int64 { return b.store.CommitLogMaxOffset() - b.store.CommitLogFlushedOffset() },
		DispatchBehindBytes: b.store.DispatchBehindBytes,
		MessageReserveTime:  b.messageReserveTime,
		ProducerConnections: b.producerConnections,
		ConsumerConnections: b.consumerConnections,
		Lag:                 lagSource{b},
		Slaves:              b.slavesBehind(),
		MasterConnected:     b.masterConnected(),
	}
}

// messageReserveTime is how long ago the oldest stored message was stored.
func (b *Broker) messageReserveTime() (int64, bool) {
	oldest := b.store.EarliestMessageTimeInStore()
	if oldest <= 0 {
		return 0, false
	}
	return max(time.Now().UnixMilli()-oldest, 0), true
}

func (b *Broker) producerConnections() []metrics.ProducerConnections {
	var out []metrics.ProducerConnections
	for _, chs := range b.producers.All() {
		for _, ch := range chs {
			out = append(out, metrics.ProducerConnections{Language: ch.Language,
				Version: protocol.VersionDesc(int(ch.Version)), Count: 1})
		}
	}
	return out
}

func (b *Broker) consumerConnections() []metrics.ConsumerConnections {
	var out []metrics.ConsumerConnections
	for _, group := range b.groups.Groups() {
		info, ok := b.consumers.Group(group)
		if !ok {
			continue
		}
		for _, ch := range info.Members {
			out = append(out, metrics.ConsumerConnections{Group: group, Language: ch.Language,
				Version: protocol.VersionDesc(int(ch.Version)), ConsumeMode: consumeMode(info.ConsumeType), Count: 1})
		}
	}
	return out
}

// consumeMode is RocketMQ 5's consume_mode label of a heartbeat's consumeType.
func consumeMode(consumeType string) string {
	switch consumeType {
	case "CONSUME_ACTIVELY":
		return "pull"
	case "CONSUME_POP":
		return "pop"
	}
	return "push"
}

// slavesBehind reads a master's slaves; nil (no series) on a slave or without an HA listener.
func (b *Broker) slavesBehind() func() []metrics.SlaveBehind {
	if b.opts.IsSlave() || b.opts.HA.ListenAddr == "" {
		return nil
	}
	return func() []metrics.SlaveBehind {
		svc := b.repl.svc
		if svc == nil {
			return nil
		}
		end := b.store.CommitLogMaxOffset()
		var out []metrics.SlaveBehind
		for _, s := range svc.Slaves() {
			out = append(out, metrics.SlaveBehind{Addr: s.Addr, Behind: end - max(s.AckOffset, 0)})
		}
		return out
	}
}

// masterConnected reads a slave's connection to its master; nil on a master.
func (b *Broker) masterConnected() func() bool {
	if !b.opts.IsSlave() {
		return nil
	}
	return func() bool { return b.repl.cli != nil && b.repl.cli.Connected() }
}

// lagSource is what the consumer lag gauges read: for each subscription group, the topics its
// online members subscribe to (RocketMQ 5's choice) and, beyond RocketMQ 5, the topics it has
// committed offsets for, so that a group whose consumers are all down still shows its lag.
// Retry topics, system groups' offsets and topics the broker may neither read nor write are left
// out. A group that pops a topic also reports its POP retry topic of it.
type lagSource struct{ b *Broker }

func (l lagSource) Subscriptions() []metrics.Subscription {
	b := l.b
	byGroup := map[string]map[string]map[int32]int64{} // group → topic → committed offsets
	for key, queues := range b.offsets.Wrapper().OffsetTable {
		if topic, group, ok := offset.SplitKey(key); ok && !systopic.IsSystemGroup(group) {
			topics(byGroup, group)[topic] = queues
		}
	}
	var out []metrics.Subscription
	for _, group := range b.groups.Groups() {
		ts := topics(byGroup, group)
		info, online := b.consumers.Group(group)
		for _, s := range info.Subscriptions {
			if _, ok := ts[s.Topic]; !ok {
				ts[s.Topic] = b.offsets.QueryAll(group, s.Topic)
			}
		}
		popAll := online && info.ConsumeType == body.ConsumePop
		out = append(out, l.subscriptions(group, ts, popAll)...)
	}
	return out
}

func topics(byGroup map[string]map[string]map[int32]int64, group string) map[string]map[int32]int64 {
	ts := byGroup[group]
	if ts == nil {
		ts = map[string]map[int32]int64{}
		byGroup[group] = ts
	}
	return ts
}

// subscriptions lists a group's topics that are not retry topics and that the broker may read or
// write; popAll says the group pops every topic (its consumers heartbeat as CONSUME_POP).
func (l lagSource) subscriptions(group string, ts map[string]map[int32]int64, popAll bool) []metrics.Subscription {
	var out []metrics.Subscription
	for topic, committed := range ts {
		if systopic.IsRetry(topic) {
			continue
		}
		s, ok := l.subscription(group, topic, committed)
		if !ok {
			continue
		}
		if popAll || l.pops(group, topic) {
			l.addPop(&s)
		}
		out = append(out, s)
	}
	return out
}

// subscription is a group's interest in a topic the broker may read or write.
func (l lagSource) subscription(group, topic string, committed map[int32]int64) (metrics.Subscription, bool) {
	cfg, ok := l.b.topics.Get(topic)
	if !ok || cfg.Perm&l.b.brokerPermission()&(body.PermRead|body.PermWrite) == 0 {
		return metrics.Subscription{}, false
	}
	return metrics.Subscription{Group: group, Topic: topic, Queues: int32(cfg.WriteQueueNums), Committed: committed}, true
}

// pops reports whether the group's request mode of the topic is POP.
func (l lagSource) pops(group, topic string) bool {
	a := l.b.assign
	return a != nil && a.Mode(topic, group) == body.RequestModePop
}

// addPop makes s a POP subscription: its messages in flight, and its POP retry topic's, the one
// the pop service reads and revives to.
func (l lagSource) addPop(s *metrics.Subscription) {
	p := l.b.pops
	s.Pop = true
	if p == nil {
		return
	}
	s.InFlight = p.InFlight(s.Topic, s.Group)
	retry := pop.RetryTopic(s.Group, s.Topic)
	if r, ok := l.subscription(s.Group, retry, l.b.offsets.QueryAll(s.Group, retry)); ok {
		r.Pop, r.InFlight = true, p.InFlight(retry, s.Group)
		s.Retry = &r
	}
}

func (l lagSource) MaxOffset(topic string, q int32) int64 {
	return l.b.store.MaxOffsetInQueue(topic, q)
}

func (l lagSource) StoreTime(topic string, q int32, off int64) int64 {
	return l.b.store.MessageStoreTime(topic, q, off)
}

// watermarked registers handlers with the watermark of their processor around them.
type watermarked struct {
	srv interface {
		Handle(code protocol.RequestCode, h remoting.Handler)
		HandleInline(code protocol.RequestCode, h remoting.Handler)
	}
	m *metrics.Broker
}

func (w watermarked) Handle(code protocol.RequestCode, h remoting.Handler) {
	w.srv.Handle(code, w.wrap(code, h))
}

func (w watermarked) HandleInline(code protocol.RequestCode, h remoting.Handler) {
	w.srv.HandleInline(code, w.wrap(code, h))
}

// wrap counts h's requests in the watermark of code's processor, when there are metrics.
func (w watermarked) wrap(code protocol.RequestCode, h remoting.Handler) remoting.Handler {
	if w.m == nil {
		return h
	}
	p := processorOf(code)
	return remoting.HandlerFunc(func(ctx context.Context, c *remoting.Conn, req *protocol.Command) *protocol.Command {
		w.m.RequestStarted(p)
		defer w.m.RequestDone(p)
		return h.Serve(ctx, c, req)
	})
}

// processorOf is the RocketMQ 5 request processor (thread pool) that serves code.
func processorOf(code protocol.RequestCode) metrics.Processor {
	switch code {
	case protocol.SendMessage, protocol.SendMessageV2, protocol.SendBatchMessage, protocol.ConsumerSendMsgBack:
		return metrics.ProcessorSend
	case protocol.PullMessage:
		return metrics.ProcessorPull
	case protocol.QueryMessage, protocol.ViewMessageByID:
		return metrics.ProcessorQueryMessage
	case protocol.HeartBeat:
		return metrics.ProcessorHeartbeat
	case protocol.UnregisterClient:
		return metrics.ProcessorClientManager
	case protocol.GetConsumerListByGroup, protocol.UpdateConsumerOffset, protocol.QueryConsumerOffset:
		return metrics.ProcessorConsumerManager
	case protocol.EndTransaction:
		return metrics.ProcessorTransaction
	}
	return processorByName(code)
}

// processorByName places the codes this broker may not serve yet by their RocketMQ names.
func processorByName(code protocol.RequestCode) metrics.Processor {
	name := RequestCodeName(int32(code))
	switch {
	case name == "lite_pull_message":
		return metrics.ProcessorLitePull
	case strings.HasPrefix(name, "pop_") || name == "peek_message" || name == "notification" || name == "polling_info":
		return metrics.ProcessorPull
	case strings.Contains(name, "ack_message") || name == "change_message_invisibletime":
		return metrics.ProcessorAck
	case strings.HasPrefix(name, "send_reply_message"):
		return metrics.ProcessorReply
	case name == "check_client_config":
		return metrics.ProcessorClientManager
	case name == "recall_message":
		return metrics.ProcessorSend
	}
	return metrics.ProcessorAdmin
}

// timedTopics records how long topic creations and updates take.
type timedTopics struct {
	*topicadmin.Service
	m *metrics.Broker
}

func (t timedTopics) Update(tc body.TopicConfig) error {
	start := time.Now()
	err := t.Service.Update(tc)
	t.m.TopicCreated(tc.TopicName, time.Since(start), err == nil)
	return err
}

// UpdateList records one creation of the whole list, as RocketMQ 5 does for
// UPDATE_AND_CREATE_TOPIC_LIST (its is_system label reads the names joined, so false).
func (t timedTopics) UpdateList(list []body.TopicConfig) error {
	start := time.Now()
	err := t.Service.UpdateList(list)
	names := make([]string, len(list))
	for i := range list {
		names[i] = list[i].TopicName
	}
	t.m.TopicCreated(strings.Join(names, ";"), time.Since(start), err == nil)
	return err
}

// timedGroups records how long subscription group creations and updates take.
type timedGroups struct {
	*groupadmin.Service
	m *metrics.Broker
}

func (g timedGroups) Update(cfg body.SubscriptionGroupConfig, from string) error {
	start := time.Now()
	err := g.Service.Update(cfg, from)
	g.m.GroupCreated(time.Since(start), err == nil)
	return err
}

// UpdateList records one creation of the whole list (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST).
func (g timedGroups) UpdateList(list []body.SubscriptionGroupConfig, from string) error {
	start := time.Now()
	err := g.Service.UpdateList(list, from)
	g.m.GroupCreated(time.Since(start), err == nil)
	return err
}
