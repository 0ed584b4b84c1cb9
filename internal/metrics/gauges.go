package metrics

import (
	"strings"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// ProducerConnections counts producer connections of one client language and version.
type ProducerConnections struct {
	Language string // e.g. "java", "go"
	Version  string // MQVersion name, e.g. "V4_9_8"
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
// connection lists, the lag source and the optional gauges).
type BrokerGauges struct {
	BrokerPermission    func() int
	TopicNumber         func() int
	ConsumerGroupNumber func() int
	// StorageSize is the used bytes of the file system holding the store, as RocketMQ 5 reports
	// rocketmq_storage_size_bytes; false (no sample) when it cannot be read.
	StorageSize         func() (int64, bool)
	FlushBehindBytes    func() int64 // written but not yet flushed CommitLog bytes
	DispatchBehindBytes func() int64 // CommitLog bytes not yet dispatched to ConsumeQueue/index
	// MessageReserveTime is the ms between now and the oldest stored message; false (no sample)
	// while the store holds none.
	MessageReserveTime  func() (int64, bool)
	ProducerConnections func() []ProducerConnections
	ConsumerConnections func() []ConsumerConnections
	// Lag is what the consumer lag gauges read.
	Lag LagSource
	// Slaves are a master's connected slaves; nil on a slave and on a master without an HA
	// listener (no series).
	Slaves func() []SlaveBehind
	// MasterConnected reports whether a slave is connected to its master; nil on a master.
	MasterConnected func() bool
}

// SlaveBehind is one connected slave of a master and the CommitLog bytes it has not acknowledged.
type SlaveBehind struct {
	Addr   string
	Behind int64
}

// storageLabels are RocketMQ 5's labels of the storage gauges.
var storageLabels = prometheus.Labels{"storage_type": "local", "storage_medium": "disk"}

// brokerGauges are the collectors of the scrape-time gauges.
func brokerGauges(cl prometheus.Labels, g *atomic.Pointer[BrokerGauges]) []prometheus.Collector {
	gauge := func(name, help string, extra prometheus.Labels, read func(*BrokerGauges) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: merge(cl, extra)},
			func() float64 { return read(g.Load()) })
	}
	return []prometheus.Collector{
		gauge("rocketmq_broker_permission", "Broker permission (read 4, write 2).", nil,
			func(g *BrokerGauges) float64 { return readInt(g.BrokerPermission) }),
		gauge("rocketmq_topic_number", "Topics configured on the broker.", nil,
			func(g *BrokerGauges) float64 { return readInt(g.TopicNumber) }),
		gauge("rocketmq_consumer_group_number", "Subscription groups configured on the broker.", nil,
			func(g *BrokerGauges) float64 { return readInt(g.ConsumerGroupNumber) }),
		gauge("rocketmq_storage_flush_behind_bytes", "CommitLog bytes written but not flushed.", storageLabels,
			func(g *BrokerGauges) float64 { return readInt64(g.FlushBehindBytes) }),
		gauge("rocketmq_storage_dispatch_behind_bytes", "CommitLog bytes not yet dispatched.", storageLabels,
			func(g *BrokerGauges) float64 { return readInt64(g.DispatchBehindBytes) }),
		&optionalGauge{desc: prometheus.NewDesc("rocketmq_storage_size_bytes",
			"Used bytes of the file system holding the store.", nil, merge(cl, storageLabels)),
			read: func() (int64, bool) { return readOptional(g.Load().StorageSize) }},
		&optionalGauge{desc: prometheus.NewDesc("rocketmq_storage_message_reserve_time_milliseconds",
			"Milliseconds since the oldest stored message was stored.", nil, merge(cl, storageLabels)),
			read: func() (int64, bool) { return readOptional(g.Load().MessageReserveTime) }},
		newConnections(cl, g),
		newReplication(cl, g),
	}
}

func merge(a, b prometheus.Labels) prometheus.Labels {
	out := make(prometheus.Labels, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
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

func readOptional(f func() (int64, bool)) (int64, bool) {
	if f == nil {
		return 0, false
	}
	return f()
}

// optionalGauge is a gauge with no sample while its value is unknown, as RocketMQ 5 records
// nothing for an empty store's reserve time.
type optionalGauge struct {
	desc *prometheus.Desc
	read func() (int64, bool)
}

func (o *optionalGauge) Describe(ch chan<- *prometheus.Desc) { ch <- o.desc }

func (o *optionalGauge) Collect(ch chan<- prometheus.Metric) {
	if v, ok := o.read(); ok {
		ch <- prometheus.MustNewConstMetric(o.desc, prometheus.GaugeValue, float64(v))
	}
}

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
			send(ch, c.producer, float64(n), lv[:]...)
		}
	}
	if g.ConsumerConnections != nil {
		sums := map[[6]string]int{}
		for _, p := range g.ConsumerConnections() {
			sums[[6]string{p.Group, strings.ToLower(p.Language), strings.ToLower(p.Version),
				strings.ToLower(p.ConsumeMode), protocolRemoting, boolLabel(systopic.IsSystemGroup(p.Group))}] += p.Count
		}
		for lv, n := range sums {
			send(ch, c.consumer, float64(n), lv[:]...)
		}
	}
}

// send emits one gauge sample with label values made valid UTF-8.
func send(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, lv ...string) {
	for i := range lv {
		lv[i] = validUTF8(lv[i])
	}
	if m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, v, lv...); err == nil {
		ch <- m
	}
}
