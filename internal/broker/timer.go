package broker

import (
	"fmt"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/timing"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// TimerOptions configure timer messages (timerWheelEnable, timerPrecisionMs, ...;
// docs/timer.md). Zero values take the defaults of timing.Options, and Java's for the switches.
type TimerOptions struct {
	// Disable is timerWheelEnable=false: timer messages are refused.
	Disable            bool
	PrecisionMs        int64
	MaxDelaySec        int64
	RollWindowSlots    int64
	FlushInterval      time.Duration
	LogSegmentSize     int64
	CongestNumEachSlot int64
	// RecallEnable is recallMessageEnable; DenyRecallWhenNotWriteable is
	// allowRecallWhenBrokerNotWriteable=false.
	RecallEnable               bool
	DenyRecallWhenNotWriteable bool
}

// openTimers opens the timer files and recovers them (after the store).
func (b *Broker) openTimers() error {
	t := b.opts.Timer
	var m timing.Metrics
	if b.timerMetrics != nil {
		m = b.timerMetrics
	}
	svc, err := timing.New(timing.Options{
		RootDir:                     b.opts.Store.RootDir,
		FS:                          b.opts.Store.FS,
		Enable:                      !t.Disable,
		PrecisionMs:                 t.PrecisionMs,
		MaxDelaySec:                 t.MaxDelaySec,
		RollWindowSlots:             t.RollWindowSlots,
		FlushInterval:               t.FlushInterval,
		LogSegmentSize:              t.LogSegmentSize,
		CongestNumEachSlot:          t.CongestNumEachSlot,
		BrokerName:                  b.opts.BrokerName,
		RecallEnable:                t.RecallEnable,
		AllowRecallWhenNotWriteable: !t.DenyRecallWhenNotWriteable,
		BrokerPermission:            b.opts.BrokerPermission,
		Slave:                       b.opts.IsSlave(),
	}, timing.Deps{Store: b.store, Topics: b.topics, Metrics: m}, b.lg.Named("timer"))
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	b.timers = svc
	return nil
}

// buildTimerMetrics registers the timer's series, read from the timer service at scrape time.
func (b *Broker) buildTimerMetrics() error {
	t, err := metrics.NewTimer(b.opts.Metrics, metrics.Labels{Cluster: b.opts.ClusterName, NodeID: b.opts.BrokerName,
		Extra: b.opts.MetricsExtra}, metrics.TimerGauges{
		Pending:        func() map[string]int64 { return b.timers.Pending() },
		EnqueueLag:     func() int64 { return b.timers.EnqueueLag() },
		DequeueLatency: func() int64 { return b.timers.DequeueLatency() },
		Snapshot:       func(bounds []int64) []int64 { return b.timers.Snapshot(bounds) },
	})
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	b.timerMetrics = t
	return nil
}

// wakeTimers tells the timer service that rmq_sys_wheel_timer grew (the store's dispatch hook).
func (b *Broker) wakeTimers(topic string) {
	if topic == systopic.Timer && b.timers != nil {
		b.timers.Wake()
	}
}
