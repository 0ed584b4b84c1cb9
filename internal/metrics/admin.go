package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// createTimeBuckets are RocketMQ 5's buckets of the topic and group creation times, in ms.
var createTimeBuckets = []float64{10, 100, 1000, 3000, 5000}

// adminTimes are the durations of the admin requests that create or update topics and groups.
type adminTimes struct {
	topic, group *prometheus.HistogramVec
}

func newAdminTimes(cl prometheus.Labels) *adminTimes {
	hist := func(name, help string, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help,
			Buckets: createTimeBuckets, ConstLabels: cl}, labels)
	}
	return &adminTimes{
		topic: hist("rocketmq_topic_create_execution_time_milliseconds",
			"Milliseconds UPDATE_AND_CREATE_TOPIC took.", "invocation_status", "is_system"),
		group: hist("rocketmq_consumer_group_create_execution_time_milliseconds",
			"Milliseconds UPDATE_AND_CREATE_SUBSCRIPTIONGROUP took.", "invocation_status"),
	}
}

func (a *adminTimes) collectors() []prometheus.Collector {
	return []prometheus.Collector{a.topic, a.group}
}

// invocationStatus is RocketMQ 5's invocation_status label.
func invocationStatus(ok bool) string {
	if ok {
		return "success"
	}
	return "failure"
}

func millis(d time.Duration) float64 { return float64(d.Milliseconds()) }

// TopicCreated records an update or creation of topic that took d and succeeded or not.
func (b *Broker) TopicCreated(topic string, d time.Duration, ok bool) {
	if b == nil {
		return
	}
	b.admin.topic.WithLabelValues(invocationStatus(ok), boolLabel(b.isSystemTopic(topic))).Observe(millis(d))
}

// GroupCreated records an update or creation of a subscription group that took d.
func (b *Broker) GroupCreated(d time.Duration, ok bool) {
	if b == nil {
		return
	}
	b.admin.group.WithLabelValues(invocationStatus(ok)).Observe(millis(d))
}
