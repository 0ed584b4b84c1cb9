package metrics

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Subscription is one consumer group's interest in one topic, as the lag gauges report it.
type Subscription struct {
	Group, Topic string
	Queues       int32           // the topic's write queues
	Committed    map[int32]int64 // the group's committed offsets; a queue missing has none
	// Pop marks a group that pops the topic (RocketMQ 5's POP consumption). Its committed
	// offsets are then its pop offsets (the next message a pop reads), InFlight counts per queue
	// what it popped and has neither acknowledged nor revived, and its figures are reported
	// twice under Topic: the topic's as is_retry="false", its POP retry topic's as
	// is_retry="true".
	Pop      bool
	InFlight map[int32]int64
	// Retry is the group's POP retry topic of Topic (itself a Pop subscription); nil when it
	// does not exist or the broker may neither read nor write it: its series reads 0.
	Retry *Subscription
}

// LagSource is the broker state the consumer lag gauges read at scrape time.
type LagSource interface {
	// Subscriptions lists the group/topic pairs to report, with their committed offsets.
	Subscriptions() []Subscription
	// MaxOffset is the queue offset the next message of a queue gets.
	MaxOffset(topic string, queueID int32) int64
	// StoreTime is the store time (ms) of the message at a queue offset, ≤ 0 when there is none.
	StoreTime(topic string, queueID int32, offset int64) int64
}

// pullKey names one group's pulls of one queue.
type pullKey struct {
	group, topic string
	queueID      int32
}

// pullOffsets are the next offsets the broker handed each group for each queue: the end of what a
// group has pulled (RocketMQ 5's pull offset table, kept here because only the metrics read it).
type pullOffsets struct {
	m cowMap[pullKey, *atomic.Int64]
}

func (p *pullOffsets) set(k pullKey, next int64) {
	v, ok := p.m.load(k)
	if !ok {
		v = p.m.loadOrCreate(k, func() *atomic.Int64 { return new(atomic.Int64) })
	}
	v.Store(next)
}

func (p *pullOffsets) get(k pullKey) (int64, bool) {
	if v, ok := p.m.load(k); ok {
		return v.Load(), true
	}
	return 0, false
}

// Pulled records the next offset a pull of group handed back for a queue: everything before it
// has been delivered to the group (or filtered out).
func (b *Broker) Pulled(group, topic string, queueID int32, next int64) {
	if b == nil {
		return
	}
	b.pulls.set(pullKey{group, topic, queueID}, next)
}

// queueLag is one queue's position as a group sees it.
type queueLag struct {
	lag, inflight, ready int64
	// unconsumed and unpulled are the store times of the first message not committed and not
	// pulled; ≤ 0 when there is none.
	unconsumed, unpulled int64
}

// add sums q into g, a topic's total, keeping the earliest store times.
func (g *queueLag) add(q queueLag) {
	g.lag += q.lag
	g.inflight += q.inflight
	g.ready += q.ready
	g.unconsumed = earliest(g.unconsumed, q.unconsumed)
	g.unpulled = earliest(g.unpulled, q.unpulled)
}

func earliest(a, b int64) int64 {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

// lagOf computes one queue as RocketMQ 5's ConsumerLagCalculator does for a pull consumer: a
// queue without a committed offset counts from its end (no lag), a queue the group has not pulled
// since the broker started from the committed offset (nothing in flight).
func (b *Broker) lagOf(src LagSource, s *Subscription, q int32) queueLag {
	if s.Pop {
		return popLagOf(src, s, q)
	}
	topic := s.Topic
	end := max(src.MaxOffset(topic, q), 0)
	commit := committed(s, q, end)
	pulled, ok := b.pulls.get(pullKey{s.Group, topic, q})
	if !ok || pulled < commit {
		pulled = commit
	}
	var l queueLag
	l.lag, l.inflight, l.ready = max(end-commit, 0), max(pulled-commit, 0), max(end-pulled, 0)
	if l.lag > 0 {
		l.unconsumed = src.StoreTime(topic, q, commit)
	}
	if l.ready > 0 {
		l.unpulled = src.StoreTime(topic, q, pulled)
	}
	return l
}

// popLagOf computes one queue as RocketMQ 5 does for a POP consumer: what is not popped yet is
// ready, the lag is that plus what is in flight, and the oldest message not consumed is taken to
// be as many messages before the pop offset as are in flight.
func popLagOf(src LagSource, s *Subscription, q int32) queueLag {
	topic := s.Topic
	end := max(src.MaxOffset(topic, q), 0)
	popped := committed(s, q, end)
	var l queueLag
	l.inflight = max(s.InFlight[q], 0)
	l.ready = max(end-popped, 0)
	l.lag = l.ready + l.inflight
	if first := popped - l.inflight; l.lag > 0 && first >= 0 {
		l.unconsumed = src.StoreTime(topic, q, first)
	}
	if l.ready > 0 {
		l.unpulled = src.StoreTime(topic, q, popped)
	}
	return l
}

// committed is s's committed offset of queue q, end when it has none.
func committed(s *Subscription, q int32, end int64) int64 {
	if c, ok := s.Committed[q]; ok && c >= 0 {
		return c
	}
	return end
}

// lag is the collector of the five consumer lag gauges, computed in one pass per scrape.
type lag struct {
	b                                              *Broker
	now                                            func() time.Time
	lagMsgs, lagLatency, inflight, queueing, ready *prometheus.Desc
}

func newLag(cl prometheus.Labels, b *Broker) *lag {
	labels := []string{"consumer_group", "topic", "is_retry", "is_system"}
	desc := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, labels, cl) }
	return &lag{b: b, now: time.Now,
		lagMsgs:    desc("rocketmq_consumer_lag_messages", "Messages stored but not yet committed by the group."),
		lagLatency: desc("rocketmq_consumer_lag_latency_milliseconds", "Age of the oldest message the group has not committed."),
		inflight:   desc("rocketmq_consumer_inflight_messages", "Messages pulled (popped) by the group but not yet committed (acknowledged)."),
		queueing:   desc("rocketmq_consumer_queueing_latency_milliseconds", "Age of the oldest message the group has not pulled (popped)."),
		ready:      desc("rocketmq_consumer_ready_messages", "Messages stored but not yet pulled (popped) by the group."),
	}
}

func (l *lag) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{l.lagMsgs, l.lagLatency, l.inflight, l.queueing, l.ready} {
		ch <- d
	}
}

func (l *lag) Collect(ch chan<- prometheus.Metric) {
	src := l.b.gauges.Load().Lag
	if src == nil {
		return
	}
	now := l.now().UnixMilli()
	for _, s := range src.Subscriptions() {
		l.send(ch, now, &s, l.sum(src, &s), false)
		if s.Pop {
			var retry queueLag
			if s.Retry != nil {
				retry = l.sum(src, s.Retry)
			}
			l.send(ch, now, &s, retry, true)
		}
	}
}

// sum adds up the queues of a subscription.
func (l *lag) sum(src LagSource, s *Subscription) queueLag {
	var g queueLag
	for q := int32(0); q < s.Queues; q++ {
		g.add(l.b.lagOf(src, s, q))
	}
	return g
}

// send sends the five series of a subscription's figures g, under the subscription's topic.
func (l *lag) send(ch chan<- prometheus.Metric, now int64, s *Subscription, g queueLag, retry bool) {
	lv := []string{s.Group, s.Topic, boolLabel(retry), boolLabel(l.b.isSystem(s.Topic, s.Group))}
	send(ch, l.lagMsgs, float64(g.lag), lv...)
	send(ch, l.lagLatency, float64(age(now, g.unconsumed)), lv...)
	send(ch, l.inflight, float64(g.inflight), lv...)
	send(ch, l.queueing, float64(age(now, g.unpulled)), lv...)
	send(ch, l.ready, float64(g.ready), lv...)
}

// age is now minus a store time, 0 without one.
func age(now, stored int64) int64 {
	if stored <= 0 {
		return 0
	}
	return max(now-stored, 0)
}
