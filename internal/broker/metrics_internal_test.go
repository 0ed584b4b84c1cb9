package broker

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

type handlers map[protocol.RequestCode]remoting.Handler

func (h handlers) Handle(code protocol.RequestCode, hd remoting.Handler) { h[code] = hd }

func (h handlers) HandleInline(code protocol.RequestCode, hd remoting.Handler) { h[code] = hd }

// TestWatermarkCountsRequestsBeingServed: a request counts under its processor while its handler
// runs, and no longer once it returned.
func TestWatermarkCountsRequestsBeingServed(t *testing.T) {
	reg := metrics.NewRegistry()
	m, err := metrics.NewBroker(reg, metrics.BrokerOptions{Labels: metrics.Labels{Cluster: "c", NodeID: "b"}})
	require.NoError(t, err)
	srv := handlers{}
	var during float64
	watermarked{srv, m}.Handle(protocol.SendMessage, remoting.HandlerFunc(
		func(context.Context, *remoting.Conn, *protocol.Command) *protocol.Command {
			during = watermark(t, reg, "send")
			return nil
		}))
	srv[protocol.SendMessage].Serve(context.Background(), nil, nil)
	require.Equal(t, 1.0, during)
	require.Zero(t, watermark(t, reg, "send"))

	plain := handlers{}
	watermarked{plain, nil}.Handle(protocol.PullMessage, remoting.HandlerFunc(
		func(context.Context, *remoting.Conn, *protocol.Command) *protocol.Command { return nil }))
	require.Contains(t, plain, protocol.PullMessage, "without metrics the handler is registered as is")
}

// watermark reads rocketmq_processor_watermark of one processor.
func watermark(t *testing.T, reg *prometheus.Registry, processor string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != "rocketmq_processor_watermark" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "processor" && lp.GetValue() == processor {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no watermark of %s", processor)
	return 0
}

func TestProcessorOf(t *testing.T) {
	for code, want := range map[protocol.RequestCode]string{
		protocol.SendMessage: "send", protocol.SendBatchMessage: "send", protocol.ConsumerSendMsgBack: "send",
		protocol.PullMessage: "pull", protocol.QueryMessage: "query_message", protocol.HeartBeat: "heartbeat",
		protocol.UnregisterClient: "client_manager", protocol.UpdateConsumerOffset: "consumer_manager",
		protocol.EndTransaction: "transaction", protocol.UpdateAndCreateTopic: "admin", protocol.GetMaxOffset: "admin",
	} {
		require.Equal(t, want, processorOf(code).String(), "%v", code)
	}
}
