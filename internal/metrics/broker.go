package metrics

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// MessageType is the message_type label: how a message was sent.
type MessageType uint8

// Message types, as RocketMQ 5 classifies a send: TRAN_MSG=true is a transaction, a sharding key
// makes it FIFO, a delay level or timer property makes it a delay message.
const (
	Normal MessageType = iota
	FIFO
	Delay
	Transaction
	numMessageTypes
)

func (t MessageType) String() string {
	switch t {
	case FIFO:
		return "fifo"
	case Delay:
		return "delay"
	case Transaction:
		return "transaction"
	}
	return "normal"
}

// messageSizeBuckets are RocketMQ 5's rocketmq_message_size buckets.
var messageSizeBuckets = []float64{1 << 10, 4 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20}

// BrokerOptions configure NewBroker. Labels.NodeType is set to "broker".
type BrokerOptions struct {
	Labels Labels
	RPC    RPCOptions
	Gauges BrokerGauges
}

// Broker is the broker's metric set.
type Broker struct {
	rpc *RPC

	msgsIn, bytesIn, msgsOut, bytesOut *prometheus.CounterVec
	msgSize                            *prometheus.HistogramVec
	dlq                                *prometheus.CounterVec
	system                             map[string]bool // topics RocketMQ counts as system topics
	gauges                             atomic.Pointer[BrokerGauges]

	in    cowMap[inKey, *inSeries]
	out   cowMap[string, *cowMap[string, *outSeries]] // topic → consumer group → series
	pulls pullOffsets
	lag   *lag
	tx    *transactions
	admin *adminTimes
	marks *watermarks
}

type inKey struct {
	topic string
	typ   MessageType
}

type inSeries struct {
	msgs, bytes prometheus.Counter
	size        prometheus.Observer
}

type outSeries struct{ msgs, bytes prometheus.Counter }

// NewBroker builds the broker's metric set and registers it on reg.
func NewBroker(reg prometheus.Registerer, opts BrokerOptions) (*Broker, error) {
	labels := opts.Labels
	labels.NodeType = NodeTypeBroker
	cl := labels.constLabels()
	counter := func(name, help string, labelNames ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: cl}, labelNames)
	}
	b := &Broker{
		rpc:      newRPC(labels, opts.RPC),
		msgsIn:   counter("rocketmq_messages_in_total", "Messages stored by producers' sends (retry and DLQ topics excluded).", "topic", "message_type", "is_system"),
		bytesIn:  counter("rocketmq_throughput_in_total", "Bytes stored by producers' sends (retry and DLQ topics excluded).", "topic", "message_type", "is_system"),
		msgsOut:  counter("rocketmq_messages_out_total", "Messages delivered to consumers (retry and DLQ topics excluded).", "topic", "consumer_group", "is_system"),
		bytesOut: counter("rocketmq_throughput_out_total", "Bytes delivered to consumers (retry and DLQ topics excluded).", "topic", "consumer_group", "is_system"),
		msgSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rocketmq_message_size", Help: "Size of stored messages in bytes.",
			Buckets: messageSizeBuckets, ConstLabels: cl,
		}, []string{"topic", "message_type", "is_system"}),
		dlq: counter("rocketmq_send_to_dlq_messages_total", "Messages moved to a dead-letter topic after their last retry.",
			"consumer_group", "topic", "is_system"),
		system: systemTopics(labels),
		tx:     newTransactions(cl),
		admin:  newAdminTimes(cl),
		marks:  newWatermarks(cl),
	}
	b.lag = newLag(cl, b)
	b.gauges.Store(&opts.Gauges)
	cs := append([]prometheus.Collector{b.rpc.hist, b.msgsIn, b.bytesIn, b.msgsOut, b.bytesOut, b.msgSize, b.dlq,
		b.lag, b.marks},
		append(b.tx.collectors(), b.admin.collectors()...)...)
	cs = append(cs, brokerGauges(cl, &b.gauges)...)
	if err := register(reg, cs...); err != nil {
		return nil, fmt.Errorf("metrics: register broker metrics: %w", err)
	}
	return b, nil
}

// SetGauges replaces the scrape-time callbacks, for components created after the metric set.
func (b *Broker) SetGauges(g BrokerGauges) {
	if b != nil {
		b.gauges.Store(&g)
	}
}

// MessagesIn records n messages of bytes total stored in topic (the topic they were written to:
// SCHEDULE_TOPIC_XXXX for a delayed send, RMQ_SYS_TRANS_HALF_TOPIC for a transaction's half).
// Sends to retry and DLQ topics are not counted, as in RocketMQ. The size histogram gets the
// average message size once.
func (b *Broker) MessagesIn(topic string, typ MessageType, n, bytes int) {
	if b == nil || isRetryOrDLQ(topic) {
		return
	}
	b.countIn(topic, typ, n, bytes)
}

// DelayDelivered records a delayed message the schedule moved to its real topic, as RocketMQ 5
// counts it: stored in topic (message_type delay, retry topics included) and delivered from
// SCHEDULE_TOPIC_XXXX to the SCHEDULE_CONSUMER group.
func (b *Broker) DelayDelivered(topic string, bytes int) {
	if b == nil {
		return
	}
	b.countIn(topic, Delay, 1, bytes)
	b.countOut(systopic.Schedule, systopic.ScheduleGroup, 1, bytes)
}

func (b *Broker) countIn(topic string, typ MessageType, n, bytes int) {
	if n <= 0 {
		return
	}
	if typ >= numMessageTypes {
		typ = Normal
	}
	key := inKey{topic, typ}
	s, ok := b.in.load(key)
	if !ok {
		s = b.in.loadOrCreate(key, func() *inSeries {
			lv := []string{validUTF8(topic), typ.String(), boolLabel(b.isSystemTopic(topic))}
			return &inSeries{
				msgs:  b.msgsIn.WithLabelValues(lv...),
				bytes: b.bytesIn.WithLabelValues(lv...),
				size:  b.msgSize.WithLabelValues(lv...),
			}
		})
	}
	s.msgs.Add(float64(n))
	s.bytes.Add(float64(bytes))
	s.size.Observe(float64(bytes / n))
}

// MessagesOut records n messages of bytes total delivered from topic to group. Deliveries from
// retry and DLQ topics are not counted, as in RocketMQ.
func (b *Broker) MessagesOut(topic, group string, n, bytes int) {
	if b == nil || isRetryOrDLQ(topic) {
		return
	}
	b.countOut(topic, group, n, bytes)
}

func (b *Broker) countOut(topic, group string, n, bytes int) {
	if n <= 0 {
		return
	}
	groups, ok := b.out.load(topic)
	if !ok {
		groups = b.out.loadOrCreate(topic, func() *cowMap[string, *outSeries] { return new(cowMap[string, *outSeries]) })
	}
	s, ok := groups.load(group)
	if !ok {
		s = groups.loadOrCreate(group, func() *outSeries {
			lv := []string{validUTF8(topic), validUTF8(group), boolLabel(b.isSystem(topic, group))}
			return &outSeries{msgs: b.msgsOut.WithLabelValues(lv...), bytes: b.bytesOut.WithLabelValues(lv...)}
		})
	}
	s.msgs.Add(float64(n))
	s.bytes.Add(float64(bytes))
}

// SentToDLQ records one message of group, consumed from topic, moved to the group's dead-letter
// topic.
func (b *Broker) SentToDLQ(group, topic string) {
	if b == nil {
		return
	}
	b.dlq.WithLabelValues(validUTF8(group), validUTF8(topic), boolLabel(b.isSystem(topic, group))).Inc()
}

// ObserveRPC records a request answered with respCode after d.
func (b *Broker) ObserveRPC(code, respCode int32, d time.Duration, longPolling bool) {
	if b == nil {
		return
	}
	b.rpc.Observe(code, respCode, d, longPolling)
}

// ObserveRPCResult records a request with an explicit result.
func (b *Broker) ObserveRPCResult(code, respCode int32, d time.Duration, longPolling bool, result RPCResult) {
	if b == nil {
		return
	}
	b.rpc.ObserveResult(code, respCode, d, longPolling, result)
}

// RPC returns the rpc latency recorder, for the remoting server (nil for a nil Broker).
func (b *Broker) RPC() *RPC {
	if b == nil {
		return nil
	}
	return b.rpc
}

// systemTopics are the topics RocketMQ 5's TopicValidator treats as system topics (4.9's and
// CHECKPOINT_TOPIC), plus the cluster- and broker-name topics it adds at start-up.
func systemTopics(l Labels) map[string]bool {
	m := map[string]bool{}
	for _, t := range append(systopic.Static(), systopic.Checkpoint, l.Cluster, l.NodeID) {
		if t != "" {
			m[t] = true
		}
	}
	return m
}

func (b *Broker) isSystemTopic(topic string) bool {
	return b.system[topic] || systopic.IsSystem(topic)
}

// isSystem is RocketMQ 5's is_system for a topic and consumer group pair.
func (b *Broker) isSystem(topic, group string) bool {
	return b.isSystemTopic(topic) || systopic.IsSystemGroup(group)
}

func isRetryOrDLQ(topic string) bool { return systopic.IsRetry(topic) || systopic.IsDLQ(topic) }
