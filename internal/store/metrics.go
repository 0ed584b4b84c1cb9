package store

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the store's Prometheus collectors, per instance.
type metrics struct {
	reg        prometheus.Registerer
	collectors []prometheus.Collector

	flushSeconds prometheus.Histogram
	flushErrors  prometheus.Counter

	sizeMu   sync.Mutex
	size     int64     // REQUIRES: sizeMu
	sizeRead time.Time // REQUIRES: sizeMu; when size was summed
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
	ratio := func(dir string) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rocketgo_store_disk_used_ratio",
			Help:        "Used fraction of the file system holding the directory (-1 when it cannot be read).",
			ConstLabels: prometheus.Labels{"dir": dir}}, func() float64 { return s.diskRatio(dir) })
	}
	m.collectors = []prometheus.Collector{
		m.flushSeconds, m.flushErrors, ratio("commitlog"), ratio("consumequeue"),
		gauge("rocketgo_store_commitlog_min_offset_bytes", "First CommitLog offset still stored.",
			func() float64 { return float64(s.cl.MinOffset()) }),
		gauge("rocketgo_store_commitlog_max_offset_bytes", "End of the written CommitLog.",
			func() float64 { return float64(s.cl.MaxOffset()) }),
		gauge("rocketgo_store_commitlog_flushed_offset_bytes", "End of the durable CommitLog.",
			func() float64 { return float64(s.cl.FlushedOffset()) }),
		gauge("rocketgo_store_files_bytes", "Bytes of the store's files (CommitLog, ConsumeQueues, index, "+
			"checkpoint and config files), as their sizes say; read at most every 10 s.",
			func() float64 { return float64(m.filesSize(s)) }),
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
		counter("rocketgo_store_get_found_total", "Reads (client pulls and the broker's own) that found messages.",
			func() float64 { return float64(st.getFound.Load()) }),
		counter("rocketgo_store_get_miss_total", "Reads (client pulls and the broker's own) that found none.",
			func() float64 { return float64(st.getMiss.Load()) }),
		counter("rocketgo_store_get_transferred_messages_total", "Messages returned by reads.",
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

// diskRatio is the used fraction of the file system holding the CommitLog or ConsumeQueue
// directory, as GET_BROKER_RUNTIME_INFO's commitLogDiskRatio and consumeQueueDiskRatio say it.
// DiskUsed is the used bytes of the file system holding the CommitLog; false when it cannot be
// read.
func (s *Store) DiskUsed() (int64, bool) {
	total, free, err := s.opts.FS.DiskUsage(s.opts.CommitLogDir)
	if err != nil || total == 0 {
		return 0, false
	}
	return int64(total - min(free, total)), true
}

func (s *Store) diskRatio(dir string) float64 {
	path := s.opts.CommitLogDir
	if dir == "consumequeue" {
		path = s.opts.consumeQueueDir()
	}
	total, free, err := s.opts.FS.DiskUsage(path)
	if err != nil || total == 0 {
		return -1
	}
	return float64(total-min(free, total)) / float64(total)
}

// filesSizeEvery bounds how often the store's directories are walked for rocketgo_store_files_bytes.
const filesSizeEvery = 10 * time.Second

// filesSize is the sum of the sizes of the files under the store's root and CommitLog
// directories, summed again once it is older than filesSizeEvery.
func (m *metrics) filesSize(s *Store) int64 {
	m.sizeMu.Lock()
	defer m.sizeMu.Unlock()
	if now := time.Now(); now.Sub(m.sizeRead) >= filesSizeEvery {
		m.size, m.sizeRead = s.dirSize(s.opts.RootDir), now
		if rel, err := filepath.Rel(s.opts.RootDir, s.opts.CommitLogDir); err != nil || strings.HasPrefix(rel, "..") {
			m.size += s.dirSize(s.opts.CommitLogDir)
		}
	}
	return m.size
}

// dirSize sums the sizes of the regular files under dir; what cannot be read counts 0.
func (s *Store) dirSize(dir string) int64 {
	entries, err := s.opts.FS.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			n += s.dirSize(path)
		case e.Type().IsRegular():
			if fi, err := s.opts.FS.Stat(path); err == nil {
				n += fi.Size()
			}
		}
	}
	return n
}
