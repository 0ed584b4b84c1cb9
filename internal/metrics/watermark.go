package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Processor is the processor label of rocketmq_processor_watermark: the request processor (thread
// pool, in RocketMQ 5) a request code belongs to.
type Processor uint8

// Processors, as RocketMQ 5 names its request thread pools.
const (
	ProcessorSend Processor = iota
	ProcessorAsyncPut
	ProcessorPull
	ProcessorAck
	ProcessorQueryMessage
	ProcessorClientManager
	ProcessorHeartbeat
	ProcessorLitePull
	ProcessorTransaction
	ProcessorConsumerManager
	ProcessorAdmin
	ProcessorReply
	numProcessors
)

var processorNames = [numProcessors]string{"send", "async_put", "pull", "ack", "query_message", "client_manager",
	"heartbeat", "lite_pull", "transaction", "consumer_manager", "admin", "reply"}

func (p Processor) String() string {
	if p < numProcessors {
		return processorNames[p]
	}
	return processorNames[ProcessorAdmin]
}

// watermarks count the requests each processor is serving. RocketMQ 5 reports the requests queued
// for a thread of each pool; this broker serves every request on a goroutine of its own as it
// arrives (up to the remoting limit, beyond which it answers SYSTEM_BUSY), so nothing queues and
// the nearest measure of the same pressure is the requests being served.
type watermarks struct {
	desc *prometheus.Desc
	n    [numProcessors]atomic.Int64
}

func newWatermarks(cl prometheus.Labels) *watermarks {
	return &watermarks{desc: prometheus.NewDesc("rocketmq_processor_watermark",
		"Requests being served, per request processor.", []string{"processor"}, cl)}
}

func (w *watermarks) Describe(ch chan<- *prometheus.Desc) { ch <- w.desc }

func (w *watermarks) Collect(ch chan<- prometheus.Metric) {
	for p := range numProcessors {
		send(ch, w.desc, float64(w.n[p].Load()), p.String())
	}
}

// RequestStarted counts a request of processor p being served until RequestDone.
func (b *Broker) RequestStarted(p Processor) {
	if b != nil && p < numProcessors {
		b.marks.n[p].Add(1)
	}
}

// RequestDone ends what RequestStarted counted.
func (b *Broker) RequestDone(p Processor) {
	if b != nil && p < numProcessors {
		b.marks.n[p].Add(-1)
	}
}
