package config

import (
	"strconv"

	"go.uber.org/zap"
)

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

// metricsDefaults are a file's defaults of metricsExporterType and metricsPromExporterPort.
type metricsDefaults struct {
	exporter MetricsExporterType
	port     int
}

// brokerMetricsDefaults are RocketMQ 5's BrokerConfig defaults: off, port 5557.
var brokerMetricsDefaults = metricsDefaults{MetricsDisable, 5557}

// namesrvMetricsDefaults are the name server's: on, on the port next to the broker's, so a name
// server and a broker on one host both serve /metrics out of the box.
var namesrvMetricsDefaults = metricsDefaults{MetricsProm, 5558}

// metricsKeys declares the metrics keys of a file whose config holds them at in; they land in the
// options' listener and constant labels. origin is fromJava for broker.conf (BrokerConfig has
// them in RocketMQ 5) and ours for namesrv.conf. bind is the file's bindAddress, which the
// listener follows unless metricsPromExporterHost is set.
func metricsKeys[C, T any](o origin, d metricsDefaults, in func(*C) *MetricsKeys, bind func(*C) string,
	listener func(*T) *MetricsListener, labels func(*T) *map[string]string) []key[C, T] {
	toListener := func(c *C, t *T) {
		*listener(t) = MetricsListener{Enabled: in(c).MetricsExporterType.Enabled(), Addr: in(c).listenAddr(bind(c))}
	}
	return section("Metrics",
		key[C, T]{name: "metricsExporterType", origin: o, def: string(d.exporter),
			doc: "DISABLE or PROM (also the ordinals 0 and 2). OTLP_GRPC and LOG are accepted but turn metrics " +
				"off, with a warning.",
			field: func(c *C) any { return &in(c).MetricsExporterType },
			to:    toListener},
		key[C, T]{name: "metricsPromExporterHost", origin: o, defDoc: "(empty = bindAddress)",
			doc:   "Host of the `/metrics` listener; empty follows bindAddress (all interfaces when that is 0.0.0.0).",
			field: func(c *C) any { return &in(c).MetricsPromExporterHost },
			to:    toListener},
		key[C, T]{name: "metricsPromExporterPort", origin: o, def: strconv.Itoa(d.port), check: port,
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

// MetricsAddr is metricsPromExporterHost:metricsPromExporterPort, as the keys say.
func (m *MetricsKeys) MetricsAddr() string {
	return joinHostPort(m.MetricsPromExporterHost, m.MetricsPromExporterPort)
}

// listenAddr is where the exporter listens: metricsPromExporterHost, else bindAddress unless that
// is every interface anyway.
func (m *MetricsKeys) listenAddr(bindAddress string) string {
	host := m.MetricsPromExporterHost
	if host == "" {
		host = SpecificHost(bindAddress)
	}
	return joinHostPort(host, m.MetricsPromExporterPort)
}

// SpecificHost is bindAddress as the host of another listener that follows it: "" (every
// interface, IPv6 too) when bindAddress is empty or 0.0.0.0 / ::, else bindAddress.
func SpecificHost(bindAddress string) string {
	if bindAddress == "0.0.0.0" || bindAddress == "::" {
		return ""
	}
	return bindAddress
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
