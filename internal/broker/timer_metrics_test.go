package broker_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// TestTimerMetricsCountPendingAndDelivered: on a running broker, timer messages show up as
// pending (rocketmq_timing_messages, GET_TIMER_METRICS's counts) and taken in
// (rocketmq_timer_enqueue_total) per topic; once delivered they are counted in
// rocketmq_timer_dequeue_total and leave the pending count, while one due in an hour stays.
func TestTimerMetricsCountPendingAndDelivered(t *testing.T) {
	reg := metrics.NewRegistry()
	b := brokertest.Start(t, func(o *broker.Options) {
		o.Metrics = reg
		o.Timer.PrecisionMs = 100
	})
	c := b.Dial(t)
	const topic = "TimerMetricsTopic"
	createTopic(t, c, topic, 1)
	soon := strconv.FormatInt(time.Now().UnixMilli()+1500, 10)
	for i, due := range []string{soon, soon, strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)} {
		resp := c.Call(brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("timer"),
			Props: map[string]string{message.PropertyTimerDeliverMS: due, message.PropertyUniqClientMessageID: "TM-" + strconv.Itoa(i)}}))
		requireCode(t, resp, protocol.Success)
		require.NotEmpty(t, resp.ExtFields.Get("recallHandle"), "stored as a timer message")
	}
	series := func(name string) float64 { return topicSeries(t, reg, name, topic) }
	require.Eventually(t, func() bool { return series("rocketmq_timer_enqueue_total") == 3 }, waitFor, tick, "3 taken in")
	require.Eventually(t, func() bool { return series("rocketmq_timer_dequeue_total") == 2 }, waitFor, tick, "the 2 due soon delivered")
	require.Equal(t, 1.0, series("rocketmq_timing_messages"), "the one due in an hour is still pending")
	require.Len(t, pullAll(t, c, "G_TIMER_METRICS", topic, 0, 0), 2)
}

// topicSeries is the value of a counter or gauge's series for topic; 0 while it has none.
func topicSeries(t *testing.T, reg *prometheus.Registry, name, topic string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "topic" && lp.GetValue() == topic {
					return m.GetCounter().GetValue() + m.GetGauge().GetValue()
				}
			}
		}
	}
	return 0
}
