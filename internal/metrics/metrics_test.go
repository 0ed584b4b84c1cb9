package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newTestBroker(t *testing.T, g BrokerGauges) (*prometheus.Registry, *Broker) {
	t.Helper()
	reg := prometheus.NewRegistry()
	b, err := NewBroker(reg, BrokerOptions{
		Labels: Labels{Cluster: "DefaultCluster", NodeID: "broker-a", Extra: map[string]string{"zone": "z1"}},
		Gauges: g,
	})
	require.NoError(t, err)
	return reg, b
}

func TestMessagesInOut(t *testing.T) {
	reg, b := newTestBroker(t, BrokerGauges{})
	b.MessagesIn("orders", Normal, 1, 300)
	b.MessagesIn("orders", Normal, 4, 8192) // a batch: its average size is observed once
	b.MessagesIn("orders", Delay, 1, 100)
	b.MessagesIn("TBW102", Transaction, 1, 10)
	b.MessagesIn("%RETRY%g1", Normal, 1, 10) // not counted
	b.MessagesIn("%DLQ%g1", Normal, 1, 10)   // not counted
	b.MessagesIn("orders", Normal, 0, 10)    // nothing stored: ignored
	b.MessagesOut("orders", "g1", 3, 900)
	b.MessagesOut("orders", "CID_RMQ_SYS_TRANS", 1, 10)

	in := func(system, typ, topic string) string {
		return `{cluster="DefaultCluster",is_system="` + system + `",message_type="` + typ +
			`",node_id="broker-a",node_type="broker",topic="` + topic + `",zone="z1"}`
	}
	out := func(group, system string) string {
		return `{cluster="DefaultCluster",consumer_group="` + group + `",is_system="` + system +
			`",node_id="broker-a",node_type="broker",topic="orders",zone="z1"}`
	}
	requireSeries(t, reg, map[string]float64{
		"rocketmq_messages_in_total" + in("false", "normal", "orders"):       5,
		"rocketmq_messages_in_total" + in("false", "delay", "orders"):        1,
		"rocketmq_messages_in_total" + in("true", "transaction", "TBW102"):   1,
		"rocketmq_throughput_in_total" + in("false", "normal", "orders"):     8492,
		"rocketmq_throughput_in_total" + in("false", "delay", "orders"):      100,
		"rocketmq_throughput_in_total" + in("true", "transaction", "TBW102"): 10,
		"rocketmq_messages_out_total" + out("g1", "false"):                   3,
		"rocketmq_messages_out_total" + out("CID_RMQ_SYS_TRANS", "true"):     1,
		"rocketmq_throughput_out_total" + out("g1", "false"):                 900,
		"rocketmq_throughput_out_total" + out("CID_RMQ_SYS_TRANS", "true"):   10,
	}, "rocketmq_messages_in_total", "rocketmq_throughput_in_total",
		"rocketmq_messages_out_total", "rocketmq_throughput_out_total")

	all := series(t, reg)
	normal := in("false", "normal", "orders")
	bucket := func(le string) float64 {
		return all["rocketmq_message_size_bucket"+normal[:len(normal)-1]+`,le="`+le+`"}`]
	}
	require.Equal(t, 1.0, bucket("1024"), "300 bytes")
	require.Equal(t, 2.0, bucket("4096"), "the batch's average, 2048 bytes")
	for _, le := range []string{"524288", "1.048576e+06", "2.097152e+06", "4.194304e+06"} {
		require.Equal(t, 2.0, bucket(le), le)
	}
	require.Equal(t, 2348.0, all["rocketmq_message_size_sum"+normal])
	require.Equal(t, 2.0, all["rocketmq_message_size_count"+normal])
	require.Equal(t, 3, testutil.CollectAndCount(b.msgSize), "normal, delay and transaction series")
	require.NotContains(t, scrape(t, reg), "go_goroutines", "no runtime collectors on a bare registry")
}

// series flattens what g gathers into "name{k="v",...}" → value with labels sorted by name;
// histograms give name_bucket{...,le="x"}, name_sum{...} and name_count{...} entries.
func series(t *testing.T, g prometheus.Gatherer) map[string]float64 {
	t.Helper()
	mfs, err := g.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var pairs []string
			for _, lp := range m.GetLabel() {
				pairs = append(pairs, lp.GetName()+"="+strconv.Quote(lp.GetValue()))
			}
			sort.Strings(pairs)
			labels := strings.Join(pairs, ",")
			name := mf.GetName()
			switch {
			case m.GetCounter() != nil:
				out[name+"{"+labels+"}"] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[name+"{"+labels+"}"] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				h := m.GetHistogram()
				out[name+"_sum{"+labels+"}"] = h.GetSampleSum()
				out[name+"_count{"+labels+"}"] = float64(h.GetSampleCount())
				for _, b := range h.GetBucket() {
					le := strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)
					out[name+"_bucket{"+labels+`,le="`+le+`"}`] = float64(b.GetCumulativeCount())
				}
			}
		}
	}
	return out
}

// requireSeries checks that want is exactly the set of series of g whose name is in names.
func requireSeries(t *testing.T, g prometheus.Gatherer, want map[string]float64, names ...string) {
	t.Helper()
	got := map[string]float64{}
	for k, v := range series(t, g) {
		for _, n := range names {
			if strings.HasPrefix(k, n+"{") {
				got[k] = v
			}
		}
	}
	require.Equal(t, want, got)
}

// scrape returns what /metrics would serve for g.
func scrape(t *testing.T, g prometheus.Gatherer) string {
	t.Helper()
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(g, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	return rec.Body.String()
}

func TestRPCLatency(t *testing.T) {
	reg := prometheus.NewRegistry()
	b, err := NewBroker(reg, BrokerOptions{
		Labels: Labels{Cluster: "c", NodeID: "b"},
		RPC: RPCOptions{RequestCodeName: func(c int32) string {
			if c == 10 {
				return "send_message"
			}
			return ""
		}},
	})
	require.NoError(t, err)
	b.ObserveRPC(10, 0, 2500*time.Microsecond, false)
	b.ObserveRPC(11, 0, 2*time.Second, true)
	b.ObserveRPCResult(10, 0, 50*time.Millisecond, false, RPCOneway)
	b.RPC().ObserveResult(10, 1, time.Millisecond, false, RPCResult(200)) // unknown result

	require.Equal(t, 4, testutil.CollectAndCount(reg, "rocketmq_rpc_latency_milliseconds"))
	all := series(t, reg)
	key := func(longPolling, req, resp, result string) string {
		return `{cluster="c",is_long_polling="` + longPolling + `",node_id="b",node_type="broker",protocol_type="remoting",request_code="` +
			req + `",response_code="` + resp + `",result="` + result + `"}`
	}
	ok := key("false", "send_message", "0", "success")
	require.Equal(t, 2.5, all["rocketmq_rpc_latency_milliseconds_sum"+ok], "milliseconds")
	require.Equal(t, 1.0, all["rocketmq_rpc_latency_milliseconds_count"+key("true", "", "0", "success")],
		"an empty name from the naming function is kept")
	require.Equal(t, 1.0, all["rocketmq_rpc_latency_milliseconds_count"+key("false", "send_message", "0", "oneway")])
	require.Equal(t, 1.0, all["rocketmq_rpc_latency_milliseconds_count"+key("false", "send_message", "1", "process_request_failed")])
	for le, want := range map[string]float64{"1": 0, "3": 1, "5": 1, "7": 1, "10": 1, "100": 1, "1000": 1, "2000": 1, "3000": 1} {
		got, found := all["rocketmq_rpc_latency_milliseconds_bucket"+ok[:len(ok)-1]+`,le="`+le+`"}`]
		require.True(t, found, le)
		require.Equal(t, want, got, le)
	}
	require.Contains(t, scrape(t, reg), "# TYPE rocketmq_rpc_latency_milliseconds histogram")
}

func TestRPCDefaultsToCodeNumbers(t *testing.T) {
	reg := prometheus.NewRegistry()
	r, err := NewRPC(reg, Labels{NodeType: NodeTypeNameserver, NodeID: "ns1"}, RPCOptions{})
	require.NoError(t, err)
	r.Observe(105, 0, time.Millisecond, false)
	out := scrape(t, reg)
	require.Contains(t, out, `request_code="105"`)
	require.Contains(t, out, `node_type="nameserver"`)

	_, err = NewRPC(reg, Labels{NodeType: NodeTypeNameserver, NodeID: "ns1"}, RPCOptions{})
	require.Error(t, err, "registering twice on one registry fails")
}

func TestGauges(t *testing.T) {
	reg := prometheus.NewRegistry()
	b, err := NewBroker(reg, BrokerOptions{
		Labels: Labels{Cluster: "DefaultCluster", NodeID: "broker-a"},
		Gauges: BrokerGauges{TopicNumber: func() int { return 12 }},
	})
	require.NoError(t, err)
	const common = `cluster="DefaultCluster",node_id="broker-a",node_type="broker"`
	const storage = `{` + common + `,storage_medium="disk",storage_type="local"}`
	all := series(t, reg)
	require.Equal(t, 12.0, all["rocketmq_topic_number{"+common+"}"])
	require.Contains(t, all, "rocketmq_storage_flush_behind_bytes"+storage)
	require.Zero(t, all["rocketmq_storage_flush_behind_bytes"+storage], "an unset callback reads 0")
	require.NotContains(t, all, "rocketmq_storage_size_bytes"+storage, "an unset optional gauge has no sample")
	require.NotContains(t, all, "rocketmq_storage_message_reserve_time_milliseconds"+storage)

	b.SetGauges(BrokerGauges{
		BrokerPermission:    func() int { return 6 },
		TopicNumber:         func() int { return 13 },
		ConsumerGroupNumber: func() int { return 3 },
		StorageSize:         func() (int64, bool) { return 1 << 30, true },
		FlushBehindBytes:    func() int64 { return 4096 },
		DispatchBehindBytes: func() int64 { return 20 },
		MessageReserveTime:  func() (int64, bool) { return 60000, true },
		ProducerConnections: func() []ProducerConnections {
			return []ProducerConnections{{"JAVA", "V4_9_8", 2}, {"GO", "V4_9_8", 1}, {"GO", "V4_9_8", 1}}
		},
		ConsumerConnections: func() []ConsumerConnections {
			return []ConsumerConnections{{"g1", "GO", "V4_9_8", "PUSH", 3}, {"CID_RMQ_SYS_X", "JAVA", "V4_9_8", "PULL", 1}}
		},
	})
	requireSeries(t, reg, map[string]float64{
		"rocketmq_broker_permission{" + common + "}":                   6,
		"rocketmq_topic_number{" + common + "}":                        13,
		"rocketmq_consumer_group_number{" + common + "}":               3,
		"rocketmq_storage_size_bytes" + storage:                        1 << 30,
		"rocketmq_storage_flush_behind_bytes" + storage:                4096,
		"rocketmq_storage_dispatch_behind_bytes" + storage:             20,
		"rocketmq_storage_message_reserve_time_milliseconds" + storage: 60000,
		`rocketmq_producer_connections{cluster="DefaultCluster",language="go",node_id="broker-a",node_type="broker",protocol_type="remoting",version="v4_9_8"}`:                                                                       2,
		`rocketmq_producer_connections{cluster="DefaultCluster",language="java",node_id="broker-a",node_type="broker",protocol_type="remoting",version="v4_9_8"}`:                                                                     2,
		`rocketmq_consumer_connections{cluster="DefaultCluster",consume_mode="push",consumer_group="g1",is_system="false",language="go",node_id="broker-a",node_type="broker",protocol_type="remoting",version="v4_9_8"}`:             3,
		`rocketmq_consumer_connections{cluster="DefaultCluster",consume_mode="pull",consumer_group="CID_RMQ_SYS_X",is_system="true",language="java",node_id="broker-a",node_type="broker",protocol_type="remoting",version="v4_9_8"}`: 1,
	}, "rocketmq_broker_permission", "rocketmq_topic_number", "rocketmq_consumer_group_number",
		"rocketmq_storage_size_bytes", "rocketmq_storage_flush_behind_bytes", "rocketmq_storage_dispatch_behind_bytes",
		"rocketmq_storage_message_reserve_time_milliseconds", "rocketmq_producer_connections", "rocketmq_consumer_connections")
}

func TestInvalidUTF8AndNilBroker(t *testing.T) {
	reg, b := newTestBroker(t, BrokerGauges{})
	b.MessagesIn("bad\xfftopic", Normal, 1, 1)
	b.MessagesOut("bad\xfftopic", "g\xfe", 1, 1)
	b.MessagesIn("orders", MessageType(99), 1, 1) // unknown type counts as normal
	out := scrape(t, reg)
	require.Contains(t, out, "bad\uFFFDtopic")
	require.Contains(t, out, "consumer_group=\"g\uFFFD\"")
	require.Contains(t, out, `message_type="normal",node_id="broker-a",node_type="broker",topic="orders",zone="z1"} 1`)

	var nb *Broker
	nb.MessagesIn("t", Normal, 1, 1)
	nb.MessagesOut("t", "g", 1, 1)
	nb.ObserveRPC(10, 0, time.Millisecond, false)
	nb.ObserveRPCResult(10, 0, time.Millisecond, false, RPCOneway)
	nb.SetGauges(BrokerGauges{})
	nb.RPC().Observe(10, 0, time.Millisecond, false)
}

func TestTwoBrokersOneProcess(t *testing.T) {
	for i := 0; i < 2; i++ {
		reg := NewRegistry()
		b, err := NewBroker(reg, BrokerOptions{Labels: Labels{Cluster: "c", NodeID: "b"}})
		require.NoError(t, err)
		b.MessagesIn("t", Normal, 1, 1)
		require.Equal(t, 1, testutil.CollectAndCount(b.msgsIn))
		n, err := testutil.GatherAndCount(reg, "go_goroutines")
		require.NoError(t, err)
		require.Equal(t, 1, n)
	}
}

func TestHotPathDoesNotAllocate(t *testing.T) {
	_, b := newTestBroker(t, BrokerGauges{})
	b.MessagesIn("orders", Normal, 1, 512)
	b.MessagesOut("orders", "g1", 1, 512)
	b.ObserveRPC(10, 0, time.Millisecond, false)
	require.Zero(t, testing.AllocsPerRun(100, func() { b.MessagesIn("orders", Normal, 1, 512) }))
	require.Zero(t, testing.AllocsPerRun(100, func() { b.MessagesOut("orders", "g1", 1, 512) }))
	require.Zero(t, testing.AllocsPerRun(100, func() { b.ObserveRPC(10, 0, time.Millisecond, false) }))
}

func BenchmarkMessagesIn(b *testing.B) {
	m, err := NewBroker(prometheus.NewRegistry(), BrokerOptions{Labels: Labels{Cluster: "c", NodeID: "b"}})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		m.MessagesIn("orders", Normal, 1, 512)
	}
}

// BenchmarkMessagesInParallel measures senders on every core hitting one topic's counters.
func BenchmarkMessagesInParallel(b *testing.B) {
	m, err := NewBroker(prometheus.NewRegistry(), BrokerOptions{Labels: Labels{Cluster: "c", NodeID: "b"}})
	require.NoError(b, err)
	m.MessagesIn("orders", Normal, 1, 512)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.MessagesIn("orders", Normal, 1, 512)
		}
	})
}

func BenchmarkMessagesOut(b *testing.B) {
	m, err := NewBroker(prometheus.NewRegistry(), BrokerOptions{Labels: Labels{Cluster: "c", NodeID: "b"}})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		m.MessagesOut("orders", "g1", 1, 512)
	}
}

func BenchmarkObserveRPC(b *testing.B) {
	m, err := NewBroker(prometheus.NewRegistry(), BrokerOptions{Labels: Labels{Cluster: "c", NodeID: "b"}})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveRPC(10, 0, time.Millisecond, false)
	}
}

func TestServerScrape(t *testing.T) {
	reg := NewRegistry()
	b, err := NewBroker(reg, BrokerOptions{Labels: Labels{Cluster: "c", NodeID: "broker-a"}})
	require.NoError(t, err)
	b.MessagesIn("orders", Normal, 2, 100)
	b.ObserveRPC(10, 0, time.Millisecond, false)

	s := NewServer("127.0.0.1:0", reg, nil)
	require.Equal(t, "127.0.0.1:0", s.Addr())
	require.NoError(t, s.Start())
	require.Error(t, s.Start(), "second Start")
	require.NotEqual(t, "127.0.0.1:0", s.Addr())

	resp, err := http.Get("http://" + s.Addr() + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
	text := string(body)
	require.Contains(t, text, `rocketmq_messages_in_total{cluster="c",is_system="false",message_type="normal",node_id="broker-a",node_type="broker",topic="orders"} 2`)
	require.Contains(t, text, "go_goroutines")
	require.Contains(t, text, "# TYPE rocketmq_rpc_latency_milliseconds histogram")

	resp, err = http.Get("http://" + s.Addr() + "/other")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")
	_, err = http.Get("http://" + s.Addr() + "/metrics")
	require.Error(t, err, "nothing listens after Close")
	require.Error(t, s.Start(), "no restart after Close")
}

func TestServerErrors(t *testing.T) {
	s := NewServer("127.0.0.1:0", prometheus.NewRegistry(), nil)
	require.NoError(t, s.Close(), "Close before Start")

	s1 := NewServer("127.0.0.1:0", prometheus.NewRegistry(), nil)
	require.NoError(t, s1.Start())
	defer s1.Close()
	s2 := NewServer(s1.Addr(), prometheus.NewRegistry(), nil)
	require.ErrorContains(t, s2.Start(), "metrics: listen")
}
