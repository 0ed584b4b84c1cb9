package metrics

import (
	"fmt"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// TimerBounds are the upper bounds, in seconds from now, of rocketmq_timer_message_snapshot's
// buckets (Java TimerMetrics.timerDist).
var TimerBounds = []int64{5, 60, 300, 900, 3600, 14400, 28800, 86400}

// TimerGauges are the timer's scrape-time readings. A nil function reads as 0 (or no series).
type TimerGauges struct {
	// Pending is the timer messages not yet delivered, per real topic (rocketmq_timing_messages).
	Pending func() map[string]int64
	// EnqueueLag is the rmq_sys_wheel_timer messages not taken into the wheel yet.
	EnqueueLag func() int64
	// DequeueLatency is how far delivery is behind the clock, in ms.
	DequeueLatency func() int64
	// Snapshot counts the pending messages due within each of TimerBounds (each bucket those
	// after the previous bound).
	Snapshot func(boundsSec []int64) []int64
}

// Timer is the timer's metric set (RocketMQ 5 DefaultStoreMetricsManager's timer series).
type Timer struct {
	enqueued, dequeued *prometheus.CounterVec
	enq, deq           cowMap[string, prometheus.Counter]
}

// NewTimer builds the timer's metric set and registers it on reg.
func NewTimer(reg prometheus.Registerer, labels Labels, g TimerGauges) (*Timer, error) {
	labels.NodeType = NodeTypeBroker
	cl := labels.constLabels()
	for k, v := range storageLabels {
		cl[k] = v
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: cl}, []string{"topic"})
	}
	t := &Timer{
		enqueued: counter("rocketmq_timer_enqueue_total", "Timer messages taken into the timer wheel."),
		dequeued: counter("rocketmq_timer_dequeue_total", "Timer messages delivered to their topic."),
	}
	gauge := func(name, help string, f func() int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: cl},
			func() float64 { return readInt64(f) })
	}
	cs := []prometheus.Collector{t.enqueued, t.dequeued,
		gauge("rocketmq_timer_enqueue_lag", "Timer messages stored but not yet taken into the wheel.", g.EnqueueLag),
		gauge("rocketmq_timer_dequeue_latency", "Milliseconds the timer's delivery is behind the clock.", g.DequeueLatency),
		&timerSeries{g: g,
			pending: prometheus.NewDesc("rocketmq_timing_messages", "Timer messages not yet delivered.", []string{"topic"}, cl),
			snapshot: prometheus.NewDesc("rocketmq_timer_message_snapshot",
				"Timer messages due within each bound (seconds from now) and after the previous one.", []string{"timer_bound_s"}, cl)},
	}
	if err := register(reg, cs...); err != nil {
		return nil, fmt.Errorf("metrics: register timer metrics: %w", err)
	}
	return t, nil
}

// TimerEnqueued counts a timer message taken into the wheel.
func (t *Timer) TimerEnqueued(topic string) { t.inc(&t.enq, t.enqueued, topic) }

// TimerDequeued counts a timer message delivered.
func (t *Timer) TimerDequeued(topic string) { t.inc(&t.deq, t.dequeued, topic) }

func (t *Timer) inc(m *cowMap[string, prometheus.Counter], vec *prometheus.CounterVec, topic string) {
	c, ok := m.load(topic)
	if !ok {
		c = m.loadOrCreate(topic, func() prometheus.Counter { return vec.WithLabelValues(validUTF8(topic)) })
	}
	c.Inc()
}

// timerSeries collects the series read from the timer at scrape time.
type timerSeries struct {
	g                 TimerGauges
	pending, snapshot *prometheus.Desc
}

func (c *timerSeries) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.snapshot
}

func (c *timerSeries) Collect(ch chan<- prometheus.Metric) {
	if c.g.Pending != nil {
		for topic, n := range c.g.Pending() {
			send(ch, c.pending, float64(n), topic)
		}
	}
	if c.g.Snapshot != nil {
		for i, n := range c.g.Snapshot(TimerBounds) {
			send(ch, c.snapshot, float64(n), strconv.FormatInt(TimerBounds[i], 10))
		}
	}
}
