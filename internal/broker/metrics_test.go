package broker_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/metrics"
)

// TestMetricsCountMessagesAndRequests: sends and pulls show up under RocketMQ 5's metric names,
// per topic (and consumer group), beside the request latency histogram.
func TestMetricsCountMessagesAndRequests(t *testing.T) {
	reg := metrics.NewRegistry()
	b := brokertest.Start(t, func(o *broker.Options) { o.Metrics = reg })
	c := b.Dial(t)
	const topic = "MetricsTopic"
	createTopic(t, c, topic, 1)
	for i := 0; i < 3; i++ {
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: 0, Body: []byte("0123456789")}))
	}
	require.Len(t, pullAll(t, c, "G_METRICS", topic, 0, 0), 3)

	require.Equal(t, 3.0, sumSeries(t, reg, "rocketmq_messages_in_total", "topic", topic))
	require.Equal(t, 3.0, sumSeries(t, reg, "rocketmq_messages_out_total", "consumer_group", "G_METRICS"))
	// Throughput counts stored record bytes both ways, as RocketMQ 5 does (wrote bytes in, buffer
	// size out): more than the 30 body bytes, and the same in as out.
	in := sumSeries(t, reg, "rocketmq_throughput_in_total", "topic", topic)
	require.Greater(t, in, 30.0)
	require.Equal(t, in, sumSeries(t, reg, "rocketmq_throughput_out_total", "consumer_group", "G_METRICS"))
	require.Positive(t, sumSeries(t, reg, "rocketmq_rpc_latency", "request_code", "send_message"))
	require.Positive(t, sumSeries(t, reg, "rocketmq_topic_number", "", ""))
}

// sumSeries adds the values (a histogram's sample count) of a metric's series that carry the
// label with the value; an empty label takes every series.
func sumSeries(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	total, found := 0.0, false
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		found = true
		for _, m := range mf.GetMetric() {
			match := label == ""
			for _, lp := range m.GetLabel() {
				if lp.GetName() == label && lp.GetValue() == value {
					match = true
				}
			}
			if !match {
				continue
			}
			switch {
			case m.GetCounter() != nil:
				total += m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				total += m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				total += float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	require.True(t, found, "metric %s not registered", name)
	return total
}
