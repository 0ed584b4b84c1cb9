package metrics

import (
	"fmt"
	"strings"
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

// ProducerConnections counts producer connections of one client language and version.
type ProducerConnections struct {
	Language string // e.g. "java", "go"
	Version  string // e.g. "v4_9_8"
	Count    int
}

// ConsumerConnections counts consumer connections of one group, language, version and mode.
type ConsumerConnections struct {
	Group       string
	Language    string
	Version     string
	ConsumeMode string // "push", "pull" or "pop"
	Count       int
}

// BrokerGauges are read at scrape time. A nil function reads as 0 (or no series, for the
// connection lists).
type BrokerGauges struct {
	BrokerPermission    func() int
	TopicNumber         func() int
	ConsumerGroupNumber func() int
	StorageSize         func() int64 // bytes of the store directory
	FlushBehindBytes    func() int64 // written but not yet flushed CommitLog bytes
	DispatchBehindBytes func() int64 // CommitLog bytes not yet dispatched to ConsumeQueue/index
	MessageReserveTime  func() int64 // ms between now and the oldest stored message
	ProducerConnections func() []ProducerConnections
	ConsumerConnections func() []ConsumerConnections
}

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
	system                             map[string]bool // topics RocketMQ counts as system topics
	gauges                             atomic.Pointer[BrokerGauges]

	in  cowMap[inKey, *inSeries]
	out cowMap[string, *cowMap[string, *outSeries]] // topic → consumer group → series
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
		msgsOut:  counter("rocketmq_messages_out_total", "Messages delivered to consumers.", "topic", "consumer_group", "is_system"),
		bytesOut: counter("rocketmq_throughput_out_total", "Bytes delivered to consumers.", "topic", "consumer_group", "is_system"),
		msgSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rocketmq_message_size", Help: "Size of stored messages in bytes.",
			Buckets: messageSizeBuckets, ConstLabels: cl,
		}, []string{"topic", "message_type", "is_system"}),
		system: systemTopics(labels),
	}
	b.gauges.Store(&opts.Gauges)

	gauge := func(name, help string, extra prometheus.Labels, read func(*BrokerGauges) float64) prometheus.Collector {
		l := prometheus.Labels{}
		for k, v := range cl {
			l[k] = v
		}
		for k, v := range extra {
			l[k] = v
		}
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: l},
			func() float64 { return read(b.gauges.Load()) })
	}
	storage := prometheus.Labels{"storage_type": "local", "storage_medium": "disk"}
	cs := []prometheus.Collector{
		b.rpc.hist, b.msgsIn, b.bytesIn, b.msgsOut, b.bytesOut, b.msgSize,
		gauge("rocketmq_broker_permission", "Broker permission (read 4, write 2).", nil,
			func(g *BrokerGauges) float64 { return readInt(g.BrokerPermission) }),
		gauge("rocketmq_topic_number", "Topics configured on the broker.", nil,
			func(g *BrokerGauges) float64 { return readInt(g.TopicNumber) }),
		gauge("rocketmq_consumer_group_number", "Subscription groups configured on the broker.", nil,
			func(g *BrokerGauges) float64 { return readInt(g.ConsumerGroupNumber) }),
		gauge("rocketmq_storage_size", "Bytes used by the store.", storage,
			func(g *BrokerGauges) float64 { return readInt64(g.StorageSize) }),
		gauge("rocketmq_storage_flush_behind_bytes", "CommitLog bytes written but not flushed.", storage,
			func(g *BrokerGauges) float64 { return readInt64(g.FlushBehindBytes) }),
		gauge("rocketmq_storage_dispatch_behind_bytes", "CommitLog bytes not yet dispatched.", storage,
			func(g *BrokerGauges) float64 { return readInt64(g.DispatchBehindBytes) }),
		gauge("rocketmq_storage_message_reserve_time", "Milliseconds since the oldest stored message.", storage,
			func(g *BrokerGauges) float64 { return readInt64(g.MessageReserveTime) }),
		newConnections(cl, &b.gauges),
	}
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

func readInt(f func() int) float64 {
	if f == nil {
		return 0
	}
	return float64(f())
}

func readInt64(f func() int64) float64 {
	if f == nil {
		return 0
	}
	return float64(f())
}

// MessagesIn records n messages of bytes total stored in topic by a send. Sends to retry and DLQ
// topics are not counted, as in RocketMQ. The size histogram gets the average message size once.
func (b *Broker) MessagesIn(topic string, typ MessageType, n, bytes int) {
	if b == nil || n <= 0 || isRetryOrDLQ(topic) {
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

// MessagesOut records n messages of bytes total delivered from topic to group.
func (b *Broker) MessagesOut(topic, group string, n, bytes int) {
	if b == nil || n <= 0 {
		return
	}
	groups, ok := b.out.load(topic)
	if !ok {
		groups = b.out.loadOrCreate(topic, func() *cowMap[string, *outSeries] { return new(cowMap[string, *outSeries]) })
	}
	s, ok := groups.load(group)
	if !ok {
		s = groups.loadOrCreate(group, func() *outSeries {
			system := b.isSystemTopic(topic) || systopic.IsSystemGroup(group)
			lv := []string{validUTF8(topic), validUTF8(group), boolLabel(system)}
			return &outSeries{msgs: b.msgsOut.WithLabelValues(lv...), bytes: b.bytesOut.WithLabelValues(lv...)}
		})
	}
	s.msgs.Add(float64(n))
	s.bytes.Add(float64(bytes))
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

func isRetryOrDLQ(topic string) bool { return systopic.IsRetry(topic) || systopic.IsDLQ(topic) }

// connections is the collector behind rocketmq_producer_connections and
// rocketmq_consumer_connections.
type connections struct {
	producer, consumer *prometheus.Desc
	gauges             *atomic.Pointer[BrokerGauges]
}

func newConnections(cl prometheus.Labels, g *atomic.Pointer[BrokerGauges]) *connections {
	return &connections{
		producer: prometheus.NewDesc("rocketmq_producer_connections", "Producer connections.",
			[]string{"language", "version", "protocol_type"}, cl),
		consumer: prometheus.NewDesc("rocketmq_consumer_connections", "Consumer connections.",
			[]string{"consumer_group", "language", "version", "consume_mode", "protocol_type", "is_system"}, cl),
		gauges: g,
	}
}

func (c *connections) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.producer
	ch <- c.consumer
}

func (c *connections) Collect(ch chan<- prometheus.Metric) {
	g := c.gauges.Load()
	if g.ProducerConnections != nil {
		sums := map[[3]string]int{}
		for _, p := range g.ProducerConnections() {
			sums[[3]string{strings.ToLower(p.Language), strings.ToLower(p.Version), protocolRemoting}] += p.Count
		}
		for lv, n := range sums {
			send(ch, c.producer, n, lv[:]...)
		}
	}
	if g.ConsumerConnections != nil {
		sums := map[[6]string]int{}
		for _, p := range g.ConsumerConnections() {
			sums[[6]string{p.Group, strings.ToLower(p.Language), strings.ToLower(p.Version),
				strings.ToLower(p.ConsumeMode), protocolRemoting, boolLabel(systopic.IsSystemGroup(p.Group))}] += p.Count
		}
		for lv, n := range sums {
			send(ch, c.consumer, n, lv[:]...)
		}
	}
}

func send(ch chan<- prometheus.Metric, d *prometheus.Desc, n int, lv ...string) {
	for i := range lv {
		lv[i] = validUTF8(lv[i])
	}
	if m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, float64(n), lv...); err == nil {
		ch <- m
	}
}
