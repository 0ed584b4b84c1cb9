package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// finishLatencyBuckets are RocketMQ 5's rocketmq_finish_message_latency buckets: 5 s, 1 min,
// 10 min, 1 h, 12 h, 24 h. RocketMQ 5 records the latency in seconds although the exported name
// says milliseconds; so does this broker, so that both read alike on one dashboard.
var finishLatencyBuckets = []float64{5, 60, 600, 3600, 12 * 3600, 24 * 3600}

// transactions are the transaction metrics: commits, rollbacks, the time from a half message's
// birth to its commit, and the half messages not yet ended per real topic.
type transactions struct {
	commits, rollbacks *prometheus.CounterVec
	finish             *prometheus.HistogramVec
	halfDesc           *prometheus.Desc

	mu   sync.Mutex
	half map[string]int64 // real topic → half messages prepared and not ended since start
}

func newTransactions(cl prometheus.Labels) *transactions {
	topic := []string{"topic"}
	return &transactions{
		commits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rocketmq_commit_messages_total",
			Help: "Transaction messages committed.", ConstLabels: cl}, topic),
		rollbacks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rocketmq_rollback_messages_total",
			Help: "Transaction messages rolled back.", ConstLabels: cl}, topic),
		finish: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rocketmq_finish_message_latency_milliseconds",
			Help:    "Seconds (as RocketMQ 5 records it) from a transaction message's birth to its commit.",
			Buckets: finishLatencyBuckets, ConstLabels: cl}, topic),
		halfDesc: prometheus.NewDesc("rocketmq_half_messages",
			"Half messages prepared and not yet committed, rolled back or discarded since the broker started.", topic, cl),
		half: map[string]int64{},
	}
}

func (t *transactions) collectors() []prometheus.Collector {
	return []prometheus.Collector{t.commits, t.rollbacks, t.finish, t}
}

func (t *transactions) Describe(ch chan<- *prometheus.Desc) { ch <- t.halfDesc }

func (t *transactions) Collect(ch chan<- prometheus.Metric) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for topic, n := range t.half {
		send(ch, t.halfDesc, float64(n), topic)
	}
}

// addHalf moves a topic's half count by delta, never below 0: a half prepared before a restart
// and ended after it was not counted.
func (t *transactions) addHalf(topic string, delta int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.half[topic]
	if !ok && delta < 0 {
		return
	}
	t.half[topic] = max(n+delta, 0)
}

// HalfPrepared records a transaction's half message stored for realTopic.
func (b *Broker) HalfPrepared(realTopic string) {
	if b == nil {
		return
	}
	b.tx.addHalf(realTopic, 1)
}

// TransactionEnded records END_TRANSACTION (or a check-back answer) committing or rolling back the
// half message of realTopic born at bornMillis.
func (b *Broker) TransactionEnded(realTopic string, commit bool, bornMillis int64) {
	if b == nil {
		return
	}
	b.tx.addHalf(realTopic, -1)
	if !commit {
		b.tx.rollbacks.WithLabelValues(validUTF8(realTopic)).Inc()
		return
	}
	b.tx.commits.WithLabelValues(validUTF8(realTopic)).Inc()
	secs := time.Since(time.UnixMilli(bornMillis)).Seconds()
	b.tx.finish.WithLabelValues(validUTF8(realTopic)).Observe(float64(int64(max(secs, 0))))
}

// HalfDiscarded records a half message the check-back loop gave up on (checked too often or too
// old).
func (b *Broker) HalfDiscarded(realTopic string) {
	if b == nil {
		return
	}
	b.tx.addHalf(realTopic, -1)
}
