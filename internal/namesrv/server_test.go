package namesrv

import (
	"hash/crc32"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// verifyNoLeaks checks, after every other cleanup of the test has run, that the test left no
// goroutine behind.
func verifyNoLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

type testServer struct {
	*Server
	clk  *testClock
	reg  *prometheus.Registry
	addr string
}

func startServer(t *testing.T, mutate func(*Options)) *testServer {
	t.Helper()
	clk := newTestClock()
	o := DefaultOptions()
	o.ListenAddr = "127.0.0.1:0"
	o.KVConfigPath = filepath.Join(t.TempDir(), "kvConfig.json")
	o.ScanNotActiveBrokerInterval = time.Hour // tests scan by hand unless they say otherwise
	o.Now = clk.Now
	if mutate != nil {
		mutate(&o)
	}
	reg := prometheus.NewRegistry()
	s, err := New(o, zaptest.NewLogger(t), reg)
	require.NoError(t, err)
	require.NoError(t, s.Start())
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return &testServer{Server: s, clk: clk, reg: reg, addr: s.Addr().String()}
}

type brokerID struct {
	cluster, name, addr string
	id                  int64
}

func registerRequest(b brokerID, w *body.TopicConfigSerializeWrapper, compressed bool, crc *uint32) *protocol.Command {
	rb := body.RegisterBrokerBody{}
	if w != nil {
		rb.TopicConfigSerializeWrapper = *w
	}
	payload, err := rb.Encode(compressed)
	if err != nil {
		panic(err)
	}
	sum := crc32.ChecksumIEEE(payload) & 0x7FFFFFFF
	if crc != nil {
		sum = *crc
	}
	return protocol.NewHeaderRequest(protocol.RegisterBroker, &protocol.RegisterBrokerRequestHeader{
		BrokerName: b.name, BrokerAddr: b.addr, ClusterName: b.cluster, BrokerID: b.id, HaServerAddr: haOf(b.addr),
		Compressed: protocol.Some(compressed), BodyCrc32: protocol.Some(int32(sum)),
	}, payload)
}

// identityRequest is UNREGISTER_BROKER or QUERY_DATA_VERSION of b, whose headers are alike.
func identityRequest(code protocol.RequestCode, b brokerID, payload []byte) *protocol.Command {
	if code == protocol.QueryDataVersion {
		return protocol.NewHeaderRequest(code, &protocol.QueryDataVersionRequestHeader{
			BrokerName: b.name, BrokerAddr: b.addr, ClusterName: b.cluster, BrokerID: b.id}, payload)
	}
	return protocol.NewHeaderRequest(code, &protocol.UnregisterBrokerRequestHeader{
		BrokerName: b.name, BrokerAddr: b.addr, ClusterName: b.cluster, BrokerID: b.id}, payload)
}

func routeRequest(topic string) *protocol.Command {
	return protocol.NewHeaderRequest(protocol.GetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: topic}, nil)
}

func requireCode(t *testing.T, resp *protocol.Command, code protocol.ResponseCode) {
	t.Helper()
	require.Equal(t, code, resp.ResponseCode(), "remark: %s", resp.Remark)
	require.True(t, resp.IsResponse())
}

var (
	brokerA = brokerID{"c1", "broker-a", "127.0.0.1:10911", 0}
	brokerB = brokerID{"c1", "broker-b", "127.0.0.1:10921", 0}
	slaveA  = brokerID{"c1", "broker-a", "127.0.0.1:10931", 1}
)

func TestRegisterAndRouteOverTCP(t *testing.T) {
	verifyNoLeaks(t)
	s := startServer(t, nil)
	connA := remotingtest.Dial(t, s.addr)
	resp := connA.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil))
	requireCode(t, resp, protocol.Success)
	require.Empty(t, resp.ExtFields.Get("masterAddr"))
	require.Empty(t, resp.Body, "no ORDER_TOPIC_CONFIG namespace yet")
	connB := remotingtest.Dial(t, s.addr)
	requireCode(t, connB.RoundTrip(registerRequest(brokerB, topics(1, topicCfg("T", 8, 6)), true, nil)), protocol.Success)

	client := remotingtest.Dial(t, s.addr)
	resp = client.RoundTrip(routeRequest("T"))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, `{"brokerDatas":[`+
		`{"brokerAddrs":{"0":"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"c1"},`+
		`{"brokerAddrs":{"0":"127.0.0.1:10921"},"brokerName":"broker-b","cluster":"c1"}],`+
		`"filterServerTable":{},"queueDatas":[`+
		`{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},`+
		`{"brokerName":"broker-b","perm":6,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}]}`, string(resp.Body))

	resp = client.RoundTrip(routeRequest("Nope"))
	requireCode(t, resp, protocol.TopicNotExist)
	require.Equal(t, "No topic route info in name server for the topic: Nope", resp.Remark)

	resp = client.RoundTrip(protocol.NewRequest(protocol.GetBrokerClusterInfo, nil, nil))
	requireCode(t, resp, protocol.Success)
	ci, err := body.DecodeClusterInfo(resp.Body)
	require.NoError(t, err)
	require.Equal(t, map[string][]string{"c1": {"broker-a", "broker-b"}}, ci.ClusterAddrTable)

	resp = client.RoundTrip(protocol.NewRequest(protocol.GetAllTopicListFromNameserver, nil, nil))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, `{"topicList":["T"]}`, string(resp.Body))
	resp = client.RoundTrip(protocol.NewHeaderRequest(protocol.GetTopicsByCluster, &protocol.GetTopicsByClusterRequestHeader{Cluster: "c1"}, nil))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, `{"topicList":["T"]}`, string(resp.Body))

	require.Equal(t, 2.0, gaugeValue(t, s.reg, "rocketgo_namesrv_live_brokers"))
	require.Equal(t, 1.0, gaugeValue(t, s.reg, "rocketgo_namesrv_topics"))
}

func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("metric %s not registered", name)
	return 0
}

func TestRegisterRejectsBadInput(t *testing.T) {
	verifyNoLeaks(t)
	s := startServer(t, nil)
	conn := remotingtest.Dial(t, s.addr)

	wrong := uint32(12345)
	resp := conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, &wrong))
	requireCode(t, resp, protocol.SystemError)
	require.Equal(t, "crc32 not match", resp.Remark)

	zero := uint32(0) // 0 means unchecked
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, &zero)), protocol.Success)

	bad := registerRequest(brokerB, nil, true, nil)
	bad.Body = []byte("not zlib")
	bad.ExtFields.Set("bodyCrc32", "0")
	resp = conn.RoundTrip(bad)
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "bad body")

	missing := registerRequest(brokerB, nil, false, nil)
	missing.ExtFields.Delete("brokerName")
	resp = conn.RoundTrip(missing)
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "brokerName")

	notNumber := registerRequest(brokerB, nil, false, nil)
	notNumber.ExtFields.Set("brokerId", "zero")
	resp = conn.RoundTrip(notNumber)
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "brokerId")

	_, ok := s.Routes().TopicRoute("T")
	require.True(t, ok, "the good registration stands")
	require.Equal(t, 1, s.Routes().LiveBrokers())

	resp = conn.RoundTrip(protocol.NewRequest(protocol.GetRouteinfoByTopic, nil, nil))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "topic")

	resp = conn.RoundTrip(protocol.NewRequest(protocol.RequestCode(9999), nil, nil))
	requireCode(t, resp, protocol.RequestCodeNotSupported)
}

func TestEmptyRegisterBody(t *testing.T) {
	s := startServer(t, nil)
	conn := remotingtest.Dial(t, s.addr)
	req := registerRequest(brokerA, nil, false, nil)
	req.Body = nil
	req.ExtFields.Set("bodyCrc32", "0")
	requireCode(t, conn.RoundTrip(req), protocol.Success)
	require.Equal(t, map[string][]string{"c1": {"broker-a"}}, s.Routes().ClusterInfo().ClusterAddrTable)
}

func TestSlaveRegistrationOverTCP(t *testing.T) {
	s := startServer(t, nil)
	requireCode(t, remotingtest.Dial(t, s.addr).RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	resp := remotingtest.Dial(t, s.addr).RoundTrip(registerRequest(slaveA, topics(1), false, nil))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "127.0.0.1:10911", resp.ExtFields.Get("masterAddr"))
	require.Equal(t, "127.0.0.1:10912", resp.ExtFields.Get("haServerAddr"))
}

func TestConnectionCloseRemovesBrokerOverTCP(t *testing.T) {
	verifyNoLeaks(t)
	s := startServer(t, nil)
	broker := remotingtest.Dial(t, s.addr)
	requireCode(t, broker.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	client := remotingtest.Dial(t, s.addr)
	requireCode(t, client.RoundTrip(routeRequest("T")), protocol.Success)
	client.Close()
	requireCode(t, remotingtest.Dial(t, s.addr).RoundTrip(routeRequest("T")), protocol.Success)

	broker.Close()
	require.Eventually(t, func() bool {
		_, ok := s.Routes().TopicRoute("T")
		return !ok
	}, 5*time.Second, 5*time.Millisecond)
	requireCode(t, remotingtest.Dial(t, s.addr).RoundTrip(routeRequest("T")), protocol.TopicNotExist)
}

func TestExpiredBrokerIsDroppedAndDisconnected(t *testing.T) {
	s := startServer(t, nil)
	broker := remotingtest.Dial(t, s.addr)
	requireCode(t, broker.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)

	s.clk.Advance(120 * time.Second)
	s.ScanNotActiveBrokers()
	_, ok := s.Routes().TopicRoute("T")
	require.True(t, ok, "not expired at exactly 120 s")

	s.clk.Advance(time.Second)
	s.ScanNotActiveBrokers()
	_, ok = s.Routes().TopicRoute("T")
	require.False(t, ok)
	broker.ExpectClosed()
}

func TestScannerGoroutineExpiresBrokers(t *testing.T) {
	verifyNoLeaks(t)
	s := startServer(t, func(o *Options) { o.ScanNotActiveBrokerInterval = 5 * time.Millisecond })
	requireCode(t, remotingtest.Dial(t, s.addr).RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	s.clk.Advance(121 * time.Second)
	require.Eventually(t, func() bool { return s.Routes().LiveBrokers() == 0 }, 5*time.Second, 5*time.Millisecond)
}

func TestQueryDataVersionAndUnregister(t *testing.T) {
	s := startServer(t, nil)
	conn := remotingtest.Dial(t, s.addr)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(3, topicCfg("T", 4, 6)), false, nil)), protocol.Success)

	same, _ := body.Marshal(body.DataVersion{Counter: 3, Timestamp: 1700000000000})
	resp := conn.RoundTrip(identityRequest(protocol.QueryDataVersion, brokerA, same))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "false", resp.ExtFields.Get("changed"))
	require.JSONEq(t, string(same), string(resp.Body))

	newer, _ := body.Marshal(body.DataVersion{Counter: 4, Timestamp: 1700000000000})
	resp = conn.RoundTrip(identityRequest(protocol.QueryDataVersion, brokerA, newer))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "true", resp.ExtFields.Get("changed"))

	resp = conn.RoundTrip(identityRequest(protocol.QueryDataVersion, brokerA, []byte("{")))
	requireCode(t, resp, protocol.SystemError)

	requireCode(t, conn.RoundTrip(identityRequest(protocol.UnregisterBroker, brokerA, nil)), protocol.Success)
	_, ok := s.Routes().TopicRoute("T")
	require.False(t, ok)
	require.Zero(t, s.Routes().LiveBrokers())
}

func TestDeleteTopicInNamesrv(t *testing.T) {
	s := startServer(t, nil)
	conn := remotingtest.Dial(t, s.addr)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6), topicCfg("U", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(protocol.NewHeaderRequest(protocol.DeleteTopicInNamesrv,
		&protocol.DeleteTopicFromNamesrvRequestHeader{Topic: "T"}, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(routeRequest("T")), protocol.TopicNotExist)
	requireCode(t, conn.RoundTrip(protocol.NewHeaderRequest(protocol.DeleteTopicInNamesrv,
		&protocol.DeleteTopicFromNamesrvRequestHeader{Topic: "U", ClusterName: protocol.Some("c1")}, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(routeRequest("U")), protocol.TopicNotExist)
}

func TestKVRequestsAndOrderTopicConf(t *testing.T) {
	s := startServer(t, func(o *Options) { o.OrderMessageEnable = true })
	conn := remotingtest.Dial(t, s.addr)
	kvReq := func(code protocol.RequestCode, kv ...string) *protocol.Command {
		ext := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			ext[kv[i]] = kv[i+1]
		}
		return protocol.NewRequest(code, ext, nil)
	}
	requireCode(t, conn.RoundTrip(kvReq(protocol.PutKVConfig, "namespace", NamespaceOrderTopicConfig, "key", "T", "value", "broker-a:4")), protocol.Success)
	requireCode(t, conn.RoundTrip(kvReq(protocol.PutKVConfig, "namespace", "ns", "key", "k")), protocol.SystemError)

	resp := conn.RoundTrip(kvReq(protocol.GetKVConfig, "namespace", NamespaceOrderTopicConfig, "key", "T"))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "broker-a:4", resp.ExtFields.Get("value"))

	resp = conn.RoundTrip(kvReq(protocol.GetKVConfig, "namespace", "ns", "key", "k"))
	requireCode(t, resp, protocol.QueryNotFound)
	require.Equal(t, "No config item, Namespace: ns Key: k", resp.Remark)

	resp = conn.RoundTrip(kvReq(protocol.GetKVListByNamespace, "namespace", NamespaceOrderTopicConfig))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, `{"table":{"T":"broker-a:4"}}`, string(resp.Body))
	resp = conn.RoundTrip(kvReq(protocol.GetKVListByNamespace, "namespace", "ns"))
	requireCode(t, resp, protocol.QueryNotFound)
	require.Equal(t, "No config item, Namespace: ns", resp.Remark)

	// Registration answers with the ORDER_TOPIC_CONFIG table; routes carry orderTopicConf.
	resp = conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, `{"table":{"T":"broker-a:4"}}`, string(resp.Body))
	resp = conn.RoundTrip(routeRequest("T"))
	requireCode(t, resp, protocol.Success)
	route, err := body.DecodeTopicRouteData(resp.Body)
	require.NoError(t, err)
	require.Equal(t, "broker-a:4", route.OrderTopicConf)

	requireCode(t, conn.RoundTrip(kvReq(protocol.DeleteKVConfig, "namespace", NamespaceOrderTopicConfig, "key", "T")), protocol.Success)
	requireCode(t, conn.RoundTrip(kvReq(protocol.GetKVConfig, "namespace", NamespaceOrderTopicConfig, "key", "T")), protocol.QueryNotFound)

	// The store survives a restart of the name server.
	requireCode(t, conn.RoundTrip(kvReq(protocol.PutKVConfig, "namespace", "ns", "key", "k", "value", "v")), protocol.Success)
	kv, err := NewKVConfig(KVOptions{Path: s.opts.KVConfigPath}, nil)
	require.NoError(t, err)
	v, ok := kv.Get("ns", "k")
	require.True(t, ok)
	require.Equal(t, "v", v)
}

func TestDisabledListingsAndWaitForService(t *testing.T) {
	s := startServer(t, func(o *Options) {
		o.EnableAllTopicList = false
		o.EnableTopicList = false
		o.NeedWaitForService = true
	})
	conn := remotingtest.Dial(t, s.addr)
	resp := conn.RoundTrip(protocol.NewRequest(protocol.GetAllTopicListFromNameserver, nil, nil))
	requireCode(t, resp, protocol.SystemError)
	require.Equal(t, "disable", resp.Remark)
	requireCode(t, conn.RoundTrip(protocol.NewHeaderRequest(protocol.GetTopicsByCluster,
		&protocol.GetTopicsByClusterRequestHeader{Cluster: "c1"}, nil)), protocol.SystemError)

	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	resp = conn.RoundTrip(routeRequest("T"))
	requireCode(t, resp, protocol.SystemError)
	require.Equal(t, "name server not ready", resp.Remark)
	s.clk.Advance(46 * time.Second)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(routeRequest("T")), protocol.Success)
}

func TestServerLifecycle(t *testing.T) {
	verifyNoLeaks(t)
	o := DefaultOptions()
	o.ListenAddr = "127.0.0.1:0"
	o.KVConfigPath = filepath.Join(t.TempDir(), "kv.json")
	s, err := New(o, nil, nil)
	require.NoError(t, err)
	require.Nil(t, s.Addr())
	require.NoError(t, s.Start())
	require.Error(t, s.Start())
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	require.Error(t, s.Start())

	never, err := New(o, nil, nil)
	require.NoError(t, err)
	require.NoError(t, never.Close(), "Close without Start")

	o.KVConfigPath = ""
	_, err = New(o, nil, nil)
	require.Error(t, err)
}

// haOf is the HA address of a test broker at addr: the next port.
func haOf(addr string) string {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	return net.JoinHostPort(host, strconv.Itoa(p+1))
}
