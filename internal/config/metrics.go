package config

import "go.uber.org/zap"

// MetricsKeys are the RocketMQ 5 metrics keys, which broker.conf and namesrv.conf share.
type MetricsKeys struct {
	MetricsExporterType     MetricsExporterType
	MetricsPromExporterHost string
	MetricsPromExporterPort int
	MetricsLabel            string
}

// MetricsListener is where a server's command serves /metrics.
type MetricsListener struct {
	Enabled bool   // metricsExporterType PROM
	Addr    string // metricsPromExporterHost:metricsPromExporterPort
}

// metricsKeys declares the metrics keys of a file whose config holds them at in; they land in the
// options' listener and constant labels. origin is fromJava for broker.conf (BrokerConfig has
// them in RocketMQ 5) and ours for namesrv.conf.
func metricsKeys[C, T any](o origin, in func(*C) *MetricsKeys, listener func(*T) *MetricsListener,
	labels func(*T) *map[string]string) []key[C, T] {
	toListener := func(c *C, t *T) {
		*listener(t) = MetricsListener{Enabled: in(c).MetricsExporterType.Enabled(), Addr: in(c).MetricsAddr()}
	}
	return section("Metrics",
		key[C, T]{name: "metricsExporterType", origin: o, def: string(MetricsDisable),
			doc: "DISABLE or PROM (also the ordinals 0 and 2). OTLP_GRPC and LOG are accepted but turn metrics " +
				"off, with a warning.",
			field: func(c *C) any { return &in(c).MetricsExporterType },
			to:    toListener},
		key[C, T]{name: "metricsPromExporterHost", origin: o, defDoc: "(empty = all interfaces)",
			doc:   "Host of the `/metrics` listener.",
			field: func(c *C) any { return &in(c).MetricsPromExporterHost },
			to:    toListener},
		key[C, T]{name: "metricsPromExporterPort", origin: o, def: "5557", check: port,
			doc:   "Port of the `/metrics` listener.",
			field: func(c *C) any { return &in(c).MetricsPromExporterPort },
			to:    toListener},
		key[C, T]{name: "metricsLabel", origin: o,
			doc:   "Extra labels on every series: `key:value,key:value`.",
			field: func(c *C) any { return &in(c).MetricsLabel },
			to: func(c *C, t *T) {
				*labels(t), _ = in(c).MetricsLabels() // checked by Validate
			}},
	)
}

// MetricsLabels parses MetricsLabel (checked by Validate).
func (m *MetricsKeys) MetricsLabels() (map[string]string, error) { return ParseLabels(m.MetricsLabel) }

// MetricsAddr is the host:port the Prometheus exporter listens on.
func (m *MetricsKeys) MetricsAddr() string {
	return joinHostPort(m.MetricsPromExporterHost, m.MetricsPromExporterPort)
}

// normalizeMetrics turns the exporters this implementation lacks into DISABLE, with a warning.
func (m *MetricsKeys) normalizeMetrics(lg *zap.Logger) {
	if m.MetricsExporterType == MetricsOTLPGRPC || m.MetricsExporterType == MetricsLog {
		lg.Warn("config: metrics exporter not supported, metrics disabled; use PROM",
			zap.String("metricsExporterType", string(m.MetricsExporterType)))
		m.MetricsExporterType = MetricsDisable
	}
}

// checkExporter validates metricsExporterType.
func (m *MetricsKeys) checkExporter() []error {
	if !validEnum(m.MetricsExporterType, MetricsDisable, MetricsProm) {
		return []error{&ValueError{Key: "metricsExporterType", Value: string(m.MetricsExporterType),
			Reason: "want DISABLE or PROM"}}
	}
	return nil
}

// checkLabels validates metricsLabel.
func (m *MetricsKeys) checkLabels() []error {
	if _, err := m.MetricsLabels(); err != nil {
		return []error{&ValueError{Key: "metricsLabel", Value: m.MetricsLabel, Reason: err.Error()}}
	}
	return nil
}
