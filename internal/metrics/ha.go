package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// replication is the collector of the master/slave replication gauges (rocketgo_ha_*).
type replication struct {
	slaves, behind, connected *prometheus.Desc
	gauges                    *atomic.Pointer[BrokerGauges]
}

func newReplication(cl prometheus.Labels, g *atomic.Pointer[BrokerGauges]) *replication {
	return &replication{
		slaves: prometheus.NewDesc("rocketgo_ha_slaves", "Slaves connected to this master.", nil, cl),
		behind: prometheus.NewDesc("rocketgo_ha_slave_behind_bytes",
			"CommitLog bytes this master holds that a connected slave has not acknowledged.", []string{"slave"}, cl),
		connected: prometheus.NewDesc("rocketgo_ha_master_connected",
			"1 while this slave is connected to its master.", nil, cl),
		gauges: g,
	}
}

func (r *replication) Describe(ch chan<- *prometheus.Desc) {
	ch <- r.slaves
	ch <- r.behind
	ch <- r.connected
}

func (r *replication) Collect(ch chan<- prometheus.Metric) {
	g := r.gauges.Load()
	if g.Slaves != nil {
		slaves := g.Slaves()
		send(ch, r.slaves, float64(len(slaves)))
		for _, s := range slaves {
			send(ch, r.behind, float64(max(s.Behind, 0)), s.Addr)
		}
	}
	if g.MasterConnected != nil {
		v := 0.0
		if g.MasterConnected() {
			v = 1
		}
		send(ch, r.connected, v)
	}
}
