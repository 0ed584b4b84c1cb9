package store

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the store's Prometheus collectors, per instance.
type metrics struct {
	reg        prometheus.Registerer
	collectors []prometheus.Collector

	flushSeconds prometheus.Histogram
	flushErrors  prometheus.Counter
}

func newMetrics(s *Store, reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{reg: reg}
	m.flushSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "rocketgo_store_commitlog_flush_seconds",
		Help:    "Duration of CommitLog syncs (msync).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
	})
	m.flushErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "rocketgo_store_commitlog_flush_errors_total",
		Help: "Failed CommitLog syncs (each poisons the log until restart).",
	})
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	counter := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f)
	}
	st := s.stats
	m.collectors = []prometheus.Collector{
		m.flushSeconds, m.flushErrors,
		gauge("rocketgo_store_commitlog_min_offset", "First CommitLog offset still stored.",
			func() float64 { return float64(s.cl.MinOffset()) }),
		gauge("rocketgo_store_commitlog_max_offset", "End of the written CommitLog.",
			func() float64 { return float64(s.cl.MaxOffset()) }),
		gauge("rocketgo_store_commitlog_flushed_offset", "End of the durable CommitLog.",
			func() float64 { return float64(s.cl.FlushedOffset()) }),
		gauge("rocketgo_store_dispatch_behind_bytes", "CommitLog bytes not yet in the ConsumeQueues.",
			func() float64 { return float64(s.disp.behind()) }),
		gauge("rocketgo_store_consumequeue_mapped_files", "ConsumeQueue files open and mapped now.",
			func() float64 { return float64(s.cqs.opts.Residency.Open()) }),
		gauge("rocketgo_store_consumequeue_mapped_files_max", "Cap on mapped ConsumeQueue files (MaxMappedConsumeQueueFiles).",
			func() float64 { return float64(s.cqs.opts.Residency.Max()) }),
		counter("rocketgo_store_consumequeue_closed_total", "ConsumeQueues closed to make room under the cap.",
			func() float64 { return float64(s.cqs.opts.Residency.Closed()) }),
		gauge("rocketgo_store_writable", "1 while the store accepts puts.", func() float64 {
			if s.IsWritable() {
				return 1
			}
			return 0
		}),
		counter("rocketgo_store_put_messages_total", "Messages stored.",
			func() float64 { return float64(st.putMsgs.Load()) }),
		counter("rocketgo_store_put_bytes_total", "Record bytes stored.",
			func() float64 { return float64(st.putBytes.Load()) }),
		counter("rocketgo_store_put_failures_total", "Puts refused or failed.",
			func() float64 { return float64(st.putFailed.Load()) }),
		counter("rocketgo_store_get_found_total", "Pulls that found messages.",
			func() float64 { return float64(st.getFound.Load()) }),
		counter("rocketgo_store_get_miss_total", "Pulls that found none.",
			func() float64 { return float64(st.getMiss.Load()) }),
		counter("rocketgo_store_get_transferred_messages_total", "Messages returned by pulls.",
			func() float64 { return float64(st.getTransferred.Load()) }),
	}
	if reg == nil {
		return m, nil
	}
	for i, c := range m.collectors {
		if err := reg.Register(c); err != nil {
			for _, done := range m.collectors[:i] {
				reg.Unregister(done)
			}
			return nil, errors.Join(errors.New("store: register metrics"), err)
		}
	}
	return m, nil
}

// unregister removes the collectors, so another store can use the registry.
func (m *metrics) unregister() {
	if m == nil || m.reg == nil {
		return
	}
	for _, c := range m.collectors {
		m.reg.Unregister(c)
	}
}

// observeFlush is the CommitLog's OnFlush hook.
func (s *Store) observeFlush(d time.Duration, err error) {
	m := s.metrics
	if m == nil {
		return
	}
	if err != nil {
		m.flushErrors.Inc()
		return
	}
	m.flushSeconds.Observe(d.Seconds())
}
