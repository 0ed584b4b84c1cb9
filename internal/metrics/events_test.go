package metrics

import (
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// key is the series key of name with the test broker's labels and the label pairs kv, sorted as
// series sorts them; bucket is a histogram bucket's key.
func key(name string, kv ...string) string {
	pairs := []string{`cluster="DefaultCluster"`, `node_id="broker-a"`, `node_type="broker"`, `zone="z1"`}
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, kv[i]+"="+strconv.Quote(kv[i+1]))
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// value is the series k of all, which must exist.
func value(t *testing.T, all map[string]float64, k string) float64 {
	t.Helper()
	v, ok := all[k]
	require.True(t, ok, "no series %s", k)
	return v
}

func bucket(name, le string, kv ...string) string {
	k := key(name+"_bucket", kv...)
	return k[:len(k)-1] + `,le="` + le + `"}`
}

func TestTransactions(t *testing.T) {
	reg, b := newTestBroker(t, BrokerGauges{})
	b.HalfPrepared("orders")
	b.HalfPrepared("orders")
	b.HalfPrepared("orders")
	b.HalfPrepared("pay")
	b.TransactionEnded("orders", true, time.Now().Add(-90*time.Second).UnixMilli())
	b.TransactionEnded("orders", false, time.Now().UnixMilli())
	b.HalfDiscarded("pay")
	b.HalfDiscarded("pay")                                          // never below 0
	b.TransactionEnded("old", false, 0)                             // prepared before a restart: no half series
	b.TransactionEnded("orders", true, time.Now().UnixMilli()+5000) // born in the future: 0 s

	requireSeries(t, reg, map[string]float64{
		key("rocketmq_half_messages", "topic", "orders"):           0,
		key("rocketmq_half_messages", "topic", "pay"):              0,
		key("rocketmq_commit_messages_total", "topic", "orders"):   2,
		key("rocketmq_rollback_messages_total", "topic", "orders"): 1,
		key("rocketmq_rollback_messages_total", "topic", "old"):    1,
	}, "rocketmq_half_messages", "rocketmq_commit_messages_total", "rocketmq_rollback_messages_total")

	all := series(t, reg)
	const finish = "rocketmq_finish_message_latency_milliseconds"
	require.Equal(t, 1.0, value(t, all, bucket(finish, "5", "topic", "orders")), "the commit born in the future")
	require.Equal(t, 1.0, value(t, all, bucket(finish, "60", "topic", "orders")))
	require.Equal(t, 2.0, value(t, all, bucket(finish, "600", "topic", "orders")), "90 s, in seconds as RocketMQ 5 records it")
	require.Equal(t, 2.0, value(t, all, bucket(finish, "86400", "topic", "orders")))
	require.InDelta(t, 90.0, value(t, all, key(finish+"_sum", "topic", "orders")), 1)

	b.HalfPrepared("orders")
	require.Equal(t, 1.0, series(t, reg)[key("rocketmq_half_messages", "topic", "orders")])
}

func TestAdminTimes(t *testing.T) {
	reg, b := newTestBroker(t, BrokerGauges{})
	b.TopicCreated("orders", 20*time.Millisecond, true)
	b.TopicCreated("RMQ_SYS_TRACE_TOPIC", 2*time.Second, false)
	b.GroupCreated(3*time.Millisecond, true)
	all := series(t, reg)
	const topic = "rocketmq_topic_create_execution_time_milliseconds"
	ok := []string{"invocation_status", "success", "is_system", "false"}
	failed := []string{"invocation_status", "failure", "is_system", "true"}
	require.Equal(t, 20.0, value(t, all, key(topic+"_sum", ok...)))
	require.Equal(t, 1.0, value(t, all, bucket(topic, "100", ok...)))
	require.Equal(t, 2000.0, value(t, all, key(topic+"_sum", failed...)))
	require.Equal(t, 0.0, value(t, all, bucket(topic, "1000", failed...)))
	require.Equal(t, 1.0, value(t, all, bucket(topic, "3000", failed...)))
	require.Equal(t, 1.0, value(t, all, bucket("rocketmq_consumer_group_create_execution_time_milliseconds", "10",
		"invocation_status", "success")))
}

func TestWatermark(t *testing.T) {
	reg, b := newTestBroker(t, BrokerGauges{})
	b.RequestStarted(ProcessorSend)
	b.RequestStarted(ProcessorSend)
	b.RequestStarted(ProcessorPull)
	b.RequestDone(ProcessorSend)
	b.RequestStarted(Processor(200)) // out of range: ignored
	want := map[string]float64{}
	for _, p := range processorNames {
		want[key("rocketmq_processor_watermark", "processor", p)] = 0
	}
	want[key("rocketmq_processor_watermark", "processor", "send")] = 1
	want[key("rocketmq_processor_watermark", "processor", "pull")] = 1
	requireSeries(t, reg, want, "rocketmq_processor_watermark")
	require.Equal(t, "admin", Processor(200).String())
	require.Zero(t, testing.AllocsPerRun(100, func() { b.RequestStarted(ProcessorSend); b.RequestDone(ProcessorSend) }))
}

func TestDLQAndDelayAndRetryOut(t *testing.T) {
	reg, b := newTestBroker(t, BrokerGauges{})
	b.SentToDLQ("g1", "orders")
	b.SentToDLQ("g1", "orders")
	b.SentToDLQ("CID_RMQ_SYS_X", "orders")
	b.DelayDelivered("orders", 100)
	b.DelayDelivered("%RETRY%g1", 50) // retry deliveries count, as in RocketMQ 5
	b.MessagesOut("%RETRY%g1", "g1", 1, 50)
	b.MessagesOut("%DLQ%g1", "g1", 1, 50)
	const dlq, in, out = "rocketmq_send_to_dlq_messages_total", "rocketmq_messages_in_total", "rocketmq_messages_out_total"
	requireSeries(t, reg, map[string]float64{
		key(dlq, "consumer_group", "g1", "is_system", "false", "topic", "orders"):           2,
		key(dlq, "consumer_group", "CID_RMQ_SYS_X", "is_system", "true", "topic", "orders"): 1,
	}, "rocketmq_send_to_dlq_messages_total")
	requireSeries(t, reg, map[string]float64{
		key(in, "is_system", "false", "message_type", "delay", "topic", "orders"):    1,
		key(in, "is_system", "false", "message_type", "delay", "topic", "%RETRY%g1"): 1,
	}, "rocketmq_messages_in_total")
	requireSeries(t, reg, map[string]float64{
		key(out, "consumer_group", "SCHEDULE_CONSUMER", "is_system", "true", "topic", "SCHEDULE_TOPIC_XXXX"): 2,
	}, "rocketmq_messages_out_total")

	var nb *Broker
	nb.SentToDLQ("g", "t")
	nb.DelayDelivered("t", 1)
	nb.HalfPrepared("t")
	nb.TransactionEnded("t", true, 0)
	nb.HalfDiscarded("t")
	nb.TopicCreated("t", 0, true)
	nb.GroupCreated(0, true)
	nb.RequestStarted(ProcessorSend)
	nb.RequestDone(ProcessorSend)
}

func TestReplicationGauges(t *testing.T) {
	reg, b := newTestBroker(t, BrokerGauges{})
	require.NotContains(t, scrape(t, reg), "rocketgo_ha_", "neither a master with a listener nor a slave")
	b.SetGauges(BrokerGauges{Slaves: func() []SlaveBehind {
		return []SlaveBehind{{"10.0.0.2:40001", 4096}, {"10.0.0.3:40002", -1}}
	}})
	requireSeries(t, reg, map[string]float64{
		key("rocketgo_ha_slaves"): 2,
		key("rocketgo_ha_slave_behind_bytes", "slave", "10.0.0.2:40001"): 4096,
		key("rocketgo_ha_slave_behind_bytes", "slave", "10.0.0.3:40002"): 0,
	}, "rocketgo_ha_slaves", "rocketgo_ha_slave_behind_bytes", "rocketgo_ha_master_connected")
	connected := false
	b.SetGauges(BrokerGauges{MasterConnected: func() bool { return connected }})
	requireSeries(t, reg, map[string]float64{key("rocketgo_ha_master_connected"): 0},
		"rocketgo_ha_slaves", "rocketgo_ha_master_connected")
	connected = true
	require.Equal(t, 1.0, series(t, reg)[key("rocketgo_ha_master_connected")])
}
