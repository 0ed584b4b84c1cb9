package broker_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// metricsBroker starts a broker whose metrics register on a registry of their own.
func metricsBroker(t *testing.T, edits ...func(*broker.Options)) (*brokertest.Broker, *prometheus.Registry) {
	t.Helper()
	reg := metrics.NewRegistry()
	b := brokertest.Start(t, append([]func(*broker.Options){func(o *broker.Options) { o.Metrics = reg }}, edits...)...)
	return b, reg
}

// TestMetricsAgainstTraffic: N messages sent to two queues, a group that pulled some and committed
// fewer, a dead letter, a committed transaction and a delayed message; every RocketMQ 5 series
// says what was sent, stored, delivered and is lagging.
func TestMetricsAgainstTraffic(t *testing.T) {
	b, reg := metricsBroker(t, shortDelays)
	c := b.Dial(t)
	const topic, group = "MetricsTopic", "G_METRICS"
	createTopic(t, c, topic, 2)
	firstSend := time.Now()
	for i := 0; i < 10; i++ { // N = 10: 6 in queue 0, 4 in queue 1
		q := int32(0)
		if i >= 6 {
			q = 1
		}
		mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: q, Body: []byte("0123456789")}))
	}
	require.Equal(t, int64(6), maxOffset(t, c, topic, 0))
	wrote := sumSeries(t, reg, "rocketmq_throughput_in_total", "topic", topic)
	requireCode(t, c.Call(brokertest.HeartbeatRequest(t, "127.0.0.1@metrics", group, map[string]string{topic: "*"})), protocol.Success)
	resp := c.Call(brokertest.PullRequest(brokertest.Pull{Group: group, Topic: topic, QueueID: 0, MaxMsgs: 4,
		SysFlag: brokertest.PullSubscription, Sub: "*"}))
	requireCode(t, resp, protocol.Success)
	pulled := brokertest.Records(t, resp)
	require.Len(t, pulled, 4)
	updateOffset(t, c, group, topic, 0, 3) // M = 3 consumed (committed) of queue 0
	updateOffset(t, c, group, topic, 1, 0) // queue 1: none yet

	require.Equal(t, 10.0, sumSeries(t, reg, "rocketmq_messages_in_total", "topic", topic))
	require.Equal(t, 10.0, sumSeries(t, reg, "rocketmq_message_size", "topic", topic), "one size sample a message")
	require.Greater(t, wrote, 100.0, "stored record bytes, more than the bodies")
	require.Equal(t, 4.0, sumSeries(t, reg, "rocketmq_messages_out_total", "consumer_group", group))
	require.Equal(t, wrote*4/10, sumSeries(t, reg, "rocketmq_throughput_out_total", "consumer_group", group),
		"the four records pulled, as stored")

	lag := func(name string) float64 { return sumSeries(t, reg, name, "consumer_group", group) }
	require.Equal(t, 7.0, lag("rocketmq_consumer_lag_messages"), "N − M = 10 − 3")
	require.Equal(t, 1.0, lag("rocketmq_consumer_inflight_messages"), "pulled 4, committed 3")
	require.Equal(t, 6.0, lag("rocketmq_consumer_ready_messages"), "not pulled: 2 of queue 0, 4 of queue 1")
	since := float64(time.Since(firstSend).Milliseconds())
	for _, name := range []string{"rocketmq_consumer_lag_latency_milliseconds", "rocketmq_consumer_queueing_latency_milliseconds"} {
		require.Positive(t, lag(name), name)
		require.LessOrEqual(t, lag(name), since+1000, name)
	}
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_consumer_connections", "consumer_group", group))
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_consumer_connections", "version", "v4_9_8"))

	// A dead letter: the consumer gives up on the first message.
	requireCode(t, c.Call(protocol.NewHeaderRequest(protocol.ConsumerSendMsgBack, &protocol.ConsumerSendMsgBackRequestHeader{
		Offset: pulled[0].PhysicalOffset, Group: group, DelayLevel: -1, OriginTopic: protocol.Some(topic),
		MaxReconsumeTimes: protocol.Some(int32(16)),
	}, nil)), protocol.Success)
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_send_to_dlq_messages_total", "topic", topic))

	// A transaction: half, then commit.
	producerHeartbeat(t, c, "PG_METRICS")
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_producer_connections", "language", "java"))
	createTopic(t, c, txTopic, 4)
	half := sendHalf(t, c, "PG_METRICS", "UNIQ-METRICS-TX", "tx")
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_half_messages", "topic", txTopic))
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_messages_in_total", "topic", systopic.TransHalf))
	requireCode(t, c.Call(half.end("PG_METRICS", transaction.StateCommit)), protocol.Success)
	require.Equal(t, 0.0, sumSeries(t, reg, "rocketmq_half_messages", "topic", txTopic))
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_commit_messages_total", "topic", txTopic))
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_finish_message_latency_milliseconds", "topic", txTopic))

	// A delayed message: counted in SCHEDULE_TOPIC_XXXX when sent, in its topic when delivered.
	const delayed = "MetricsDelayed"
	createTopic(t, c, delayed, 1)
	requireCode(t, c.Call(brokertest.SendRequest(brokertest.Msg{Topic: delayed, QueueID: 0, Body: []byte("later"),
		Props: map[string]string{message.PropertyDelayTimeLevel: "1"}})), protocol.Success)
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_messages_in_total", "topic", systopic.Schedule))
	require.Eventually(t, func() bool { return sumSeries(t, reg, "rocketmq_messages_in_total", "topic", delayed) == 1 },
		waitFor, tick)
	require.Equal(t, 1.0, sumSeries(t, reg, "rocketmq_messages_out_total", "consumer_group", systopic.ScheduleGroup))

	require.Equal(t, 3.0, sumSeries(t, reg, "rocketmq_topic_create_execution_time_milliseconds", "invocation_status", "success"))
	require.Equal(t, 12.0, countSeries(t, reg, "rocketmq_processor_watermark"), "RocketMQ 5's twelve processors")
	require.Zero(t, sumSeries(t, reg, "rocketmq_processor_watermark", "", ""), "nothing being served while scraping")
	require.GreaterOrEqual(t, sumSeries(t, reg, "rocketmq_rpc_latency_milliseconds", "request_code", "send_message"), 12.0)
	requireStorage(t, b, reg, firstSend)
}

// requireStorage checks the storage gauges against the store and its (fake) disk.
func requireStorage(t *testing.T, b *brokertest.Broker, reg *prometheus.Registry, firstSend time.Time) {
	t.Helper()
	total, free, err := b.Opts.Store.FS.DiskUsage(b.Opts.Store.RootDir)
	require.NoError(t, err)
	require.Equal(t, float64(total-free), sumSeries(t, reg, "rocketmq_storage_size_bytes", "", ""),
		"the used bytes of the store's file system, as RocketMQ 5 reports them")
	reserve := sumSeries(t, reg, "rocketmq_storage_message_reserve_time_milliseconds", "", "")
	require.Positive(t, reserve)
	require.LessOrEqual(t, reserve, float64(time.Since(firstSend).Milliseconds()+1000))
	require.Greater(t, sumSeries(t, reg, "rocketgo_store_files_bytes", "", ""), 1.0*brokertest.SegmentSize,
		"a CommitLog segment and more")
	require.Equal(t, float64(b.Store().CommitLogMaxOffset()),
		sumSeries(t, reg, "rocketgo_store_commitlog_max_offset_bytes", "node_id", "broker-a"), "store series carry the broker's labels")
}

// TestIdleBrokerShowsNoTraffic: a broker nobody talks to, with a delayed message waiting and the
// transaction check running, reads and writes nothing a client would have: the store's get and
// put counters stay still, and GET_BROKER_RUNTIME_INFO's rates are zero.
func TestIdleBrokerShowsNoTraffic(t *testing.T) {
	b, reg := metricsBroker(t, checkEvery(50*time.Millisecond, time.Millisecond))
	c := b.Dial(t)
	requireCode(t, c.Call(brokertest.SendRequest(brokertest.Msg{Topic: "IdleTopic", QueueID: 0, Body: []byte("in 2 h"),
		Props: map[string]string{message.PropertyDelayTimeLevel: "18"}})), protocol.Success)
	waitDispatched(t, c, systopic.Schedule, 17, 1)
	counters := []string{"rocketgo_store_get_found_total", "rocketgo_store_get_miss_total",
		"rocketgo_store_get_transferred_messages_total", "rocketgo_store_put_messages_total"}
	before := map[string]float64{}
	for _, name := range counters {
		before[name] = sumSeries(t, reg, name, "", "")
	}
	require.Equal(t, 1.0, before["rocketgo_store_put_messages_total"])
	time.Sleep(3 * time.Second) // 30 delay scans and 60 transaction checks
	for _, name := range counters {
		require.Equal(t, before[name], sumSeries(t, reg, name, "", ""), "%s moved on an idle broker", name)
	}
	resp := c.Call(protocol.NewRequest(protocol.GetBrokerRuntimeInfo, nil, nil))
	requireCode(t, resp, protocol.Success)
	table := string(resp.Body)
	for _, key := range []string{"getMissTps", "getFoundTps", "getTotalTps", "getTransferedTps"} {
		require.Contains(t, table, `"`+key+`":"0.00 0.00 0.00"`, "%s of an idle broker", key)
	}
}

// sumSeries adds the values (a histogram's sample count) of a metric's series that carry the
// label with the value; an empty label takes every series.
func sumSeries(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	total := 0.0
	for _, m := range gathered(t, reg, name, label, value) {
		switch {
		case m.GetCounter() != nil:
			total += m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			total += m.GetGauge().GetValue()
		case m.GetHistogram() != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// countSeries is the number of a metric's series.
func countSeries(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	return float64(len(gathered(t, reg, name, "", "")))
}

func gathered(t *testing.T, reg *prometheus.Registry, name, label, value string) []*dto.Metric {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var out []*dto.Metric
	found := false
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		found = true
		for _, m := range mf.GetMetric() {
			if label == "" || hasLabel(m, label, value) {
				out = append(out, m)
			}
		}
	}
	require.True(t, found, "no series of %s", name)
	return out
}

func hasLabel(m *dto.Metric, label, value string) bool {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == label && lp.GetValue() == value {
			return true
		}
	}
	return false
}
