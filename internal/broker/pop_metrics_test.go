package broker_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// TestConsumerLagOfPopGroup: a group whose request mode of a topic is POP has, as RocketMQ 5
// reports a POP consumer, an is_retry="false" series with the topic's figures (ready past its
// pop offset, in flight what its checkpoints hold, lag their sum) and an is_retry="true" series,
// under the same topic, with its POP retry topic's figures: 0 before the retry topic exists,
// then what was revived there and what the group popped from there without acknowledging.
func TestConsumerLagOfPopGroup(t *testing.T) {
	b, reg := metricsBroker(t, fastRevive)
	c := b.Dial(t)
	const topic, group = "PopLagTopic", "G_POP_LAG"
	createTopic(t, c, topic, 2)
	sendN(t, c, topic, 2, "m", 6, "") // m-0, m-2, m-4 in queue 0; m-1, m-3, m-5 in queue 1
	requireCode(t, setMode(t, c, topic, group, body.RequestModePop, -1), protocol.Success)

	p := doPop(t, c, popArgs{group: group, topic: topic, queueID: 0, max: 2, invisible: time.Minute})
	require.Equal(t, []string{"m-0", "m-2"}, p.bodies())
	// queue 0: popped up to 2, both in flight, one ready; queue 1 has no pop offset: nothing
	requirePopLag(t, reg, group, topic, "false", 3, 2, 1)
	requirePopLag(t, reg, group, topic, "true", 0, 0, 0)
	require.Positive(t, lagOf(t, reg, "rocketmq_consumer_lag_latency_milliseconds", group, "false"))
	require.Positive(t, lagOf(t, reg, "rocketmq_consumer_queueing_latency_milliseconds", group, "false"))

	p = doPop(t, c, popArgs{group: group, topic: topic, queueID: 1, max: 1, invisible: time.Second})
	require.Equal(t, []string{"m-1"}, p.bodies())
	retry := systopic.PopRetry(group, topic)
	require.Eventually(t, func() bool { return b.PopOutstanding() == 1 }, waitFor, tick,
		"m-1, not acknowledged in time, revived to the retry topic")
	require.Equal(t, int64(1), maxOffset(t, c, retry, 0))
	// the revive started the group's pop offset of the retry topic at 0: m-1 is ready there
	requirePopLag(t, reg, group, topic, "true", 1, 0, 1)
	require.Positive(t, lagOf(t, reg, "rocketmq_consumer_queueing_latency_milliseconds", group, "true"))
	requirePopLag(t, reg, group, topic, "false", 5, 2, 3) // m-1 settled; m-4, m-3 and m-5 ready

	// m-4, m-3, m-5 and the revived m-1, none acknowledged
	require.Equal(t, "m-1,m-3,m-4,m-5", sortedBodies(popUntil(t, c,
		popArgs{group: group, topic: topic, queueID: -1, invisible: time.Minute}, 4)))
	requirePopLag(t, reg, group, topic, "false", 5, 5, 0) // m-1 settled by its revive
	requirePopLag(t, reg, group, topic, "true", 1, 1, 0)
	for _, retry := range []string{"false", "true"} {
		require.Positive(t, lagOf(t, reg, "rocketmq_consumer_lag_latency_milliseconds", group, retry), retry)
		require.Zero(t, lagOf(t, reg, "rocketmq_consumer_queueing_latency_milliseconds", group, retry), retry)
	}
	require.Zero(t, sumSeries(t, reg, "rocketmq_consumer_lag_messages", "topic", retry),
		"the retry topic has no series of its own")
}

// TestConsumerLagOfPopHeartbeat: a group whose consumers heartbeat as CONSUME_POP (RocketMQ 5's
// test) pops every topic it subscribes to; a group that pulls has no is_retry="true" series.
func TestConsumerLagOfPopHeartbeat(t *testing.T) {
	b, reg := metricsBroker(t)
	c := b.Dial(t)
	const topic = "PopHeartbeatTopic"
	createTopic(t, c, topic, 1)
	sendN(t, c, topic, 1, "m", 2, "")
	hb := brokertest.HeartbeatRequest(t, "127.0.0.1@pop", "G_POP_HB", map[string]string{topic: "*"})
	var data body.HeartbeatData
	require.NoError(t, body.Unmarshal(hb.Body, &data))
	data.ConsumerDataSet[0].ConsumeType = body.ConsumePop
	var err error
	hb.Body, err = body.Marshal(data)
	require.NoError(t, err)
	requireCode(t, c.Call(hb), protocol.Success)
	requireCode(t, c.Call(brokertest.HeartbeatRequest(t, "127.0.0.1@pull", "G_PULL_HB", map[string]string{topic: "*"})),
		protocol.Success)

	require.Len(t, gathered(t, reg, "rocketmq_consumer_lag_messages", "consumer_group", "G_POP_HB"), 2)
	require.Len(t, gathered(t, reg, "rocketmq_consumer_lag_messages", "consumer_group", "G_PULL_HB"), 1)
	require.Zero(t, lagOf(t, reg, "rocketmq_consumer_lag_messages", "G_PULL_HB", "true"))
}

// requirePopLag checks a group's lag, in-flight and ready messages of one is_retry series.
func requirePopLag(t *testing.T, reg *prometheus.Registry, group, topic, retry string, lag, inflight, ready float64) {
	t.Helper()
	for name, want := range map[string]float64{"rocketmq_consumer_lag_messages": lag,
		"rocketmq_consumer_inflight_messages": inflight, "rocketmq_consumer_ready_messages": ready} {
		ms := gathered(t, reg, name, "consumer_group", group)
		found := false
		for _, m := range ms {
			if hasLabel(m, "is_retry", retry) {
				require.True(t, hasLabel(m, "topic", topic), "%s is_retry=%s is under the topic", name, retry)
				require.Equal(t, want, m.GetGauge().GetValue(), "%s is_retry=%s", name, retry)
				found = true
			}
		}
		require.True(t, found, "%s has an is_retry=%s series of %s", name, retry, group)
	}
}

// lagOf is the value of a group's series of one lag gauge with is_retry = retry (0 without one).
func lagOf(t *testing.T, reg *prometheus.Registry, name, group, retry string) float64 {
	t.Helper()
	for _, m := range gathered(t, reg, name, "consumer_group", group) {
		if hasLabel(m, "is_retry", retry) {
			return m.GetGauge().GetValue()
		}
	}
	return 0
}
