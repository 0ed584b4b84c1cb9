package metrics

import (
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

func TestTimerSeries(t *testing.T) {
	reg := prometheus.NewRegistry()
	tm, err := NewTimer(reg, Labels{Cluster: "c", NodeID: "b"}, TimerGauges{
		Pending:        func() map[string]int64 { return map[string]int64{"orders": 3} },
		EnqueueLag:     func() int64 { return 7 },
		DequeueLatency: func() int64 { return 250 },
		Snapshot: func(bounds []int64) []int64 {
			out := make([]int64, len(bounds))
			out[0], out[len(out)-1] = 2, 1
			return out
		},
	})
	require.NoError(t, err)
	tm.TimerEnqueued("orders")
	tm.TimerEnqueued("orders")
	tm.TimerDequeued("orders")
	l := func(extra string) string {
		return `{cluster="c",node_id="b",node_type="broker",storage_medium="disk",storage_type="local"` + extra + `}`
	}
	requireSeries(t, reg, map[string]float64{
		"rocketmq_timer_enqueue_total" + l(`,topic="orders"`): 2,
		"rocketmq_timer_dequeue_total" + l(`,topic="orders"`): 1,
		"rocketmq_timing_messages" + l(`,topic="orders"`):     3,
		"rocketmq_timer_enqueue_lag" + l(""):                  7,
		"rocketmq_timer_dequeue_latency" + l(""):              250,
	}, "rocketmq_timer_enqueue_total", "rocketmq_timer_dequeue_total", "rocketmq_timing_messages",
		"rocketmq_timer_enqueue_lag", "rocketmq_timer_dequeue_latency")
	snap := map[string]float64{}
	for _, b := range TimerBounds {
		snap["rocketmq_timer_message_snapshot"+l(`,timer_bound_s="`+strconv.FormatInt(b, 10)+`"`)] = 0
	}
	snap["rocketmq_timer_message_snapshot"+l(`,timer_bound_s="5"`)] = 2
	snap["rocketmq_timer_message_snapshot"+l(`,timer_bound_s="86400"`)] = 1
	requireSeries(t, reg, snap, "rocketmq_timer_message_snapshot")
}
