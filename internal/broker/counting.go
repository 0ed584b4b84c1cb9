package broker

import (
	"github.com/rocketgo/rocketgo/internal/broker/brokerstats"
	"github.com/rocketgo/rocketgo/internal/metrics"
)

// counting feeds what was stored and delivered to the throughput counters VIEW_BROKER_STATS_DATA
// answers from, and to the Prometheus metrics when they are on (the embedded set is nil then; its
// methods do nothing on nil).
type counting struct {
	counters *brokerstats.Manager
	*metrics.Broker
}

// MessagesIn implements send.Metrics.
func (c counting) MessagesIn(topic string, typ metrics.MessageType, n, bytes int) {
	c.counters.Put(topic, n, bytes)
	c.Broker.MessagesIn(topic, typ, n, bytes)
}

// MessagesOut implements pull.Metrics.
func (c counting) MessagesOut(topic, group string, n, bytes int) {
	c.counters.Get(topic, group, n, bytes)
	c.Broker.MessagesOut(topic, group, n, bytes)
}
