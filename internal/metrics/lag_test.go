package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeLag is a broker with queues, committed offsets and store times (ms = 1000 + offset).
type fakeLag struct {
	subs []Subscription
	max  map[string][]int64 // topic → per-queue end
}

func (f *fakeLag) Subscriptions() []Subscription { return f.subs }

func (f *fakeLag) MaxOffset(topic string, q int32) int64 { return f.max[topic][q] }

func (f *fakeLag) StoreTime(topic string, q int32, off int64) int64 {
	if off >= f.max[topic][q] {
		return -1
	}
	return 1000 + off
}

func TestConsumerLag(t *testing.T) {
	src := &fakeLag{
		subs: []Subscription{
			{Group: "g1", Topic: "orders", Queues: 3, Committed: map[int32]int64{0: 4, 1: 5}}, // queue 2 has no offset: counted from its end
			{Group: "g2", Topic: "orders", Queues: 3, Committed: map[int32]int64{0: 10, 1: 2}},
			{Group: "CID_RMQ_SYS_X", Topic: "orders", Queues: 3},
		},
		max: map[string][]int64{"orders": {10, 5, 0}},
	}
	reg, b := newTestBroker(t, BrokerGauges{Lag: src})
	b.lag.now = func() time.Time { return time.UnixMilli(5000) }
	b.Pulled("g1", "orders", 0, 8) // g1 holds 4..7 in flight; 8 and 9 are ready
	b.Pulled("g2", "orders", 1, 1) // behind its commit (a reset forward): nothing in flight

	key := func(group, system string) string {
		return `{cluster="DefaultCluster",consumer_group="` + group + `",is_retry="false",is_system="` + system +
			`",node_id="broker-a",node_type="broker",topic="orders",zone="z1"}`
	}
	want := map[string]float64{}
	for group, v := range map[string][5]float64{
		//                lag, lag latency, inflight, queueing latency, ready
		"g1":            {6, 5000 - 1004, 4, 5000 - 1008, 2},
		"g2":            {3, 5000 - 1002, 0, 5000 - 1002, 3},
		"CID_RMQ_SYS_X": {0, 0, 0, 0, 0}, // no offsets: no lag
	} {
		system := boolLabel(group == "CID_RMQ_SYS_X")
		want["rocketmq_consumer_lag_messages"+key(group, system)] = v[0]
		want["rocketmq_consumer_lag_latency_milliseconds"+key(group, system)] = v[1]
		want["rocketmq_consumer_inflight_messages"+key(group, system)] = v[2]
		want["rocketmq_consumer_queueing_latency_milliseconds"+key(group, system)] = v[3]
		want["rocketmq_consumer_ready_messages"+key(group, system)] = v[4]
	}
	requireSeries(t, reg, want, "rocketmq_consumer_lag_messages", "rocketmq_consumer_lag_latency_milliseconds",
		"rocketmq_consumer_inflight_messages", "rocketmq_consumer_queueing_latency_milliseconds",
		"rocketmq_consumer_ready_messages")

	b.SetGauges(BrokerGauges{})
	require.NotContains(t, scrape(t, reg), "rocketmq_consumer_lag_messages{", "no lag source, no series")
}

// TestConsumerLagOfPopGroups: a POP group has an is_retry="false" series with its topic's figures
// and an is_retry="true" series with its POP retry topic's, both under the topic; what it popped
// counts from its pop offsets and its checkpoints, never from pulls; a pull group has no
// is_retry="true" series.
func TestConsumerLagOfPopGroups(t *testing.T) {
	const retry = "%RETRY%gp_orders"
	src := &fakeLag{
		subs: []Subscription{
			{Group: "gp", Topic: "orders", Queues: 3, Committed: map[int32]int64{0: 8, 1: 5}, Pop: true,
				InFlight: map[int32]int64{0: 3, 1: 1},
				Retry: &Subscription{Group: "gp", Topic: retry, Queues: 1, Committed: map[int32]int64{0: 1}, Pop: true,
					InFlight: map[int32]int64{0: 1}}},
			// more in flight than before its pop offset: no oldest message to age; no retry topic
			{Group: "gq", Topic: "orders", Queues: 1, Committed: map[int32]int64{0: 1}, Pop: true,
				InFlight: map[int32]int64{0: 2}},
			{Group: "g1", Topic: "orders", Queues: 1, Committed: map[int32]int64{0: 7}},
		},
		max: map[string][]int64{"orders": {10, 5, 0}, retry: {4}},
	}
	reg, b := newTestBroker(t, BrokerGauges{Lag: src})
	b.lag.now = func() time.Time { return time.UnixMilli(5000) }
	b.Pulled("gp", "orders", 0, 9) // a POP group's figures do not read pulls
	b.Pulled("g1", "orders", 0, 9)

	want := map[string]float64{}
	for series, v := range map[[2]string][5]float64{
		//                 lag, lag latency, inflight, queueing latency, ready
		{"gp", "false"}: {5 + 1, 5000 - 1004, 3 + 1, 5000 - 1008, 2}, // q0 oldest 8−3, q1 5−1
		{"gp", "true"}:  {4, 5000 - 1000, 1, 5000 - 1001, 3},
		{"gq", "false"}: {9 + 2, 0, 2, 5000 - 1001, 9},
		{"gq", "true"}:  {0, 0, 0, 0, 0},
		{"g1", "false"}: {3, 5000 - 1007, 2, 5000 - 1009, 1},
	} {
		key := `{cluster="DefaultCluster",consumer_group="` + series[0] + `",is_retry="` + series[1] +
			`",is_system="false",node_id="broker-a",node_type="broker",topic="orders",zone="z1"}`
		for i, name := range lagGauges {
			want[name+key] = v[i]
		}
	}
	requireSeries(t, reg, want, lagGauges...)
}

// lagGauges are the five consumer lag gauges, in the order the tests list their figures.
var lagGauges = []string{"rocketmq_consumer_lag_messages", "rocketmq_consumer_lag_latency_milliseconds",
	"rocketmq_consumer_inflight_messages", "rocketmq_consumer_queueing_latency_milliseconds",
	"rocketmq_consumer_ready_messages"}

func TestPulledDoesNotAllocate(t *testing.T) {
	_, b := newTestBroker(t, BrokerGauges{})
	b.Pulled("g1", "orders", 3, 10)
	require.Zero(t, testing.AllocsPerRun(100, func() { b.Pulled("g1", "orders", 3, 11) }))
	var nb *Broker
	nb.Pulled("g", "t", 0, 1)
}
