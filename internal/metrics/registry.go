package metrics

import (
	"strings"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Label names and values shared with RocketMQ 5.
const (
	NodeTypeBroker     = "broker"
	NodeTypeNameserver = "nameserver"
	protocolRemoting   = "remoting"
)

// Labels are the labels on every series of one server.
type Labels struct {
	Cluster  string            // brokerClusterName
	NodeType string            // NodeTypeBroker or NodeTypeNameserver
	NodeID   string            // brokerName for a broker
	Extra    map[string]string // metricsLabel pairs
}

func (l Labels) constLabels() prometheus.Labels {
	out := prometheus.Labels{}
	for k, v := range l.Extra {
		out[k] = validUTF8(v)
	}
	out["cluster"] = validUTF8(l.Cluster)
	out["node_type"] = validUTF8(l.NodeType)
	out["node_id"] = validUTF8(l.NodeID)
	return out
}

// Registerer returns reg with l's labels added to every series registered through it, for the
// collectors of this implementation's own metrics (rocketgo_*) that other packages register.
func (l Labels) Registerer(reg prometheus.Registerer) prometheus.Registerer {
	return prometheus.WrapRegistererWith(l.constLabels(), reg)
}

// NewRegistry returns an empty registry for one server, with the Go runtime and process
// collectors registered.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// validUTF8 makes s acceptable as a label value (Prometheus rejects invalid UTF-8).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func boolLabel(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// register registers every collector or returns the first error.
func register(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
