package admin_test

import (
	"context"
	"math"
	"net"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newClient(t *testing.T, namesrv ...string) *admin.Client {
	t.Helper()
	c := admin.New(admin.Options{NamesrvAddrs: namesrv, Timeout: 5 * time.Second}, nil)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// TestClusterInfoAndRuntimeInfo: the cluster lists both masters; each answers its runtime info.
func TestClusterInfoAndRuntimeInfo(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	c := newClient(t, cl.NamesrvAddr)
	ctx := context.Background()

	info, err := c.ClusterInfo(ctx)
	require.NoError(t, err)
	brokers := admin.Brokers(info)
	require.Equal(t, []admin.BrokerAddr{
		{Cluster: admintest.ClusterName, BrokerName: "broker-a", BrokerID: 0, Addr: admintest.Addr(cl.Brokers[0])},
		{Cluster: admintest.ClusterName, BrokerName: "broker-b", BrokerID: 0, Addr: admintest.Addr(cl.Brokers[1])},
	}, brokers)
	require.Equal(t, "broker-b", admin.BrokerNameOf(info, admintest.Addr(cl.Brokers[1])))

	rt, err := c.BrokerRuntimeInfo(ctx, brokers[0].Addr)
	require.NoError(t, err)
	require.Equal(t, "V4_9_8", rt["brokerVersionDesc"])
	require.Contains(t, rt, "putTps")
}

// TestServerErrorKeepsCodeAndRemark: a refusal comes back as a ServerError naming the code.
func TestServerErrorKeepsCodeAndRemark(t *testing.T) {
	cl := admintest.Start(t)
	c := newClient(t, cl.NamesrvAddr)

	_, err := c.TopicRoute(context.Background(), "NoSuchTopic")
	require.True(t, admin.IsCode(err, protocol.TopicNotExist), "%v", err)
	var se *admin.ServerError
	require.ErrorAs(t, err, &se)
	require.Equal(t, protocol.GetRouteinfoByTopic, se.Request)
	require.Contains(t, err.Error(), "GET_ROUTEINFO_BY_TOPIC: TOPIC_NOT_EXIST (17): ")
	require.Contains(t, se.Remark, "NoSuchTopic")
}

// TestNamesrvFailover: a dead name server is skipped; a missing one is ErrNoNamesrv.
func TestNamesrvFailover(t *testing.T) {
	cl := admintest.Start(t)
	dead := deadAddr(t)
	c := newClient(t, dead, cl.NamesrvAddr)
	topics, err := c.TopicList(context.Background())
	require.NoError(t, err)
	require.Contains(t, topics, admintest.ClusterName)

	_, err = newClient(t).TopicList(context.Background())
	require.ErrorIs(t, err, admin.ErrNoNamesrv)
	_, err = newClient(t, dead).TopicList(context.Background())
	require.Error(t, err)
	require.Contains(t, err.Error(), dead)
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// TestTopicLifecycle: create on every master of the cluster, read the merged stats, delete from
// the brokers and the name server.
func TestTopicLifecycle(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	c := newClient(t, cl.NamesrvAddr)
	ctx := context.Background()

	tc := body.NewTopicConfig("Orders")
	tc.ReadQueueNums, tc.WriteQueueNums = 2, 2
	done, err := c.CreateTopicInCluster(ctx, admintest.ClusterName, tc)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{admintest.Addr(cl.Brokers[0]), admintest.Addr(cl.Brokers[1])}, done)
	cl.WaitRoute(t, "Orders", "broker-a", "broker-b")

	admintest.Send(t, cl.Brokers[1], brokertest.Msg{Topic: "Orders", QueueID: 1, Body: []byte("x")})
	stats, err := c.ExamineTopicStats(ctx, "Orders")
	require.NoError(t, err)
	require.Len(t, stats.OffsetTable, 4)
	got := stats.OffsetTable[body.MessageQueue{Topic: "Orders", BrokerName: "broker-b", QueueID: 1}]
	require.Equal(t, int64(1), got.MaxOffset)
	require.Positive(t, got.LastUpdateTimestamp)
	require.Zero(t, stats.OffsetTable[body.MessageQueue{Topic: "Orders", BrokerName: "broker-a", QueueID: 1}].MaxOffset)

	_, err = c.CreateTopicInCluster(ctx, "NoSuchCluster", tc)
	require.ErrorContains(t, err, `cluster "NoSuchCluster" not found`)

	deleted, err := c.DeleteTopicInCluster(ctx, admintest.ClusterName, "Orders")
	require.NoError(t, err)
	require.Len(t, deleted, 2)
	require.NoError(t, c.DeleteTopicInNamesrv(ctx, "Orders", admintest.ClusterName))
	_, err = c.TopicRoute(ctx, "Orders")
	require.True(t, admin.IsCode(err, protocol.TopicNotExist), "%v", err)
	_, err = c.TopicStats(ctx, admintest.Addr(cl.Brokers[0]), "Orders")
	require.True(t, admin.IsCode(err, protocol.TopicNotExist), "%v", err)
}

// TestConsumerGroup: stats merged from the brokers of the group's retry topic, connections, and
// the one-line summaries.
func TestConsumerGroup(t *testing.T) {
	cl := admintest.Start(t)
	c := newClient(t, cl.NamesrvAddr)
	ctx := context.Background()
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Pay", 2)
	for range 3 {
		admintest.Send(t, b, brokertest.Msg{Topic: "Pay", QueueID: 0, Body: []byte("m")})
	}
	conn := admintest.Heartbeat(t, b, "10.0.0.1@1", "GroupPay", map[string]string{"Pay": "*"})
	admintest.CommitOffset(t, b, "GroupPay", "Pay", 0, 1)
	cl.WaitRoute(t, systopic.Retry("GroupPay"))

	cs, err := c.ExamineConsumeStats(ctx, "GroupPay")
	require.NoError(t, err)
	w := cs.OffsetTable[body.MessageQueue{Topic: "Pay", BrokerName: "broker-a", QueueID: 0}]
	require.Equal(t, body.OffsetWrapper{BrokerOffset: 3, ConsumerOffset: 1, LastTimestamp: w.LastTimestamp, PullOffset: 1}, w)
	require.Positive(t, w.LastTimestamp)
	require.Equal(t, int64(2), admin.TotalDiff(cs))

	cc, err := c.ExamineConsumerConnection(ctx, "GroupPay")
	require.NoError(t, err)
	require.Len(t, cc.ConnectionSet, 1)
	require.Equal(t, "10.0.0.1@1", cc.ConnectionSet[0].ClientID)
	require.Equal(t, conn.LocalAddr(), cc.ConnectionSet[0].ClientAddr)
	require.Equal(t, "*", cc.SubscriptionTable["Pay"].SubString)
	require.Equal(t, body.ConsumePassively, cc.ConsumeType)

	sums, err := c.GroupSummaries(ctx)
	require.NoError(t, err)
	require.Len(t, sums, 1)
	require.Equal(t, admin.GroupSummary{Group: "GroupPay", Count: 1, Version: int(protocol.VersionV4_9_8),
		ConsumeType: body.ConsumePassively, MessageModel: body.Clustering, DiffTotal: 2}, sums[0])

	info, err := c.ClusterInfo(ctx)
	require.NoError(t, err)
	clusters, groups, err := c.TopicGroups(ctx, info, "Pay")
	require.NoError(t, err)
	require.Equal(t, []string{admintest.ClusterName}, clusters)
	require.Equal(t, []string{"GroupPay"}, groups)

	conn.Close()
	require.Eventually(t, func() bool {
		_, err := c.ExamineConsumerConnection(ctx, "GroupPay")
		return admin.IsCode(err, protocol.ConsumerNotOnline)
	}, admintest.WaitFor, 10*time.Millisecond)

	// A group known only by its offsets (no heartbeat, so no retry topic) is looked up on every master.
	admintest.CommitOffset(t, b, "GroupOffline", "Pay", 1, 0)
	cs, err = c.ExamineConsumeStats(ctx, "GroupOffline")
	require.NoError(t, err)
	require.Len(t, cs.OffsetTable, 2)

	_, err = c.ExamineConsumeStats(ctx, "GroupNobody")
	require.ErrorContains(t, err, "offset table is empty")
}

// TestQueryMessages: by key (hash collisions dropped), by unique key, by offset message id.
func TestQueryMessages(t *testing.T) {
	cl := admintest.Start(t)
	c := newClient(t, cl.NamesrvAddr)
	ctx := context.Background()
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Q", 4)

	first := admintest.Send(t, b, brokertest.Msg{Topic: "Q", QueueID: 2, Body: []byte("hello"), Tags: "T1",
		Keys: "Aa order-1", Props: map[string]string{message.PropertyUniqClientMessageID: "AC1100010000000000000000000A0001"}})
	admintest.Send(t, b, brokertest.Msg{Topic: "Q", QueueID: 3, Body: []byte("other"), Keys: "BB"})

	msgs, err := c.QueryMessageByKey(ctx, "Q", "Aa", admin.DefaultKeyQueryMax, 0, math.MaxInt64)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, first.OffsetMsgID, msgs[0].OffsetMsgID())
	require.Equal(t, first.QueueOffset, msgs[0].QueueOffset)
	require.Equal(t, "hello", string(msgs[0].Body))

	msgs, err = c.QueryMessageByKey(ctx, "Q", "order-1", admin.DefaultKeyQueryMax, 0, math.MaxInt64)
	require.NoError(t, err)
	require.Len(t, msgs, 1)

	_, err = c.QueryMessageByKey(ctx, "Q", "Aa", admin.DefaultKeyQueryMax, 0, 1) // before any store time
	require.ErrorContains(t, err, `no message with key "Aa" in topic Q`)

	msgs, err = c.QueryMessageByUniqKey(ctx, "Q", "AC1100010000000000000000000A0001")
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, int32(2), msgs[0].QueueID)

	m, err := c.ViewMessageByOffsetID(ctx, first.OffsetMsgID)
	require.NoError(t, err)
	require.Equal(t, "Q", m.Topic)
	require.Equal(t, "T1", m.Tags())
	require.Equal(t, admintest.Addr(b), m.StoreHost.String())

	_, err = c.ViewMessageByOffsetID(ctx, "not-an-id")
	require.ErrorContains(t, err, "is not an offset message id")
	host, off, err := message.ParseOffsetMsgID(first.OffsetMsgID)
	require.NoError(t, err)
	_, err = c.ViewMessageByOffsetID(ctx, message.OffsetMsgID(host, off+1<<20))
	require.True(t, admin.IsCode(err, protocol.SystemError), "%v", err)
}

// TestQueryDropsHashCollisions: a Java broker answers every record indexed under the key's hash;
// "Aa" and "BB" have the same Java hash code, so a query for one returns both. Only the record
// that really carries the key is kept, and a record found twice is listed once.
func TestQueryDropsHashCollisions(t *testing.T) {
	host := netip.MustParseAddrPort("127.0.0.1:10911")
	var recs []byte
	for i, keys := range []string{"Aa", "BB", "xx Aa"} {
		m := message.Message{Topic: "Q", QueueID: int32(i), PhysicalOffset: int64(i) * 1000, StoreHost: host,
			BornHost: host, StoreTimestamp: int64(100 - i), Body: []byte{byte('0' + i)},
			Properties: message.EncodeProperties(map[string]string{message.PropertyKeys: keys})}
		m.BodyCRC = message.BodyCRC(m.Body)
		rec := make([]byte, m.EncodedSize())
		_, err := message.Encode(rec, &m)
		require.NoError(t, err)
		recs = append(recs, rec...)
	}
	var routeBody atomic.Pointer[[]byte] // set once the servers' addresses are known
	serve := func(s *remoting.Server) {
		s.HandleDefault(remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = recs
			if req.RequestCode() == protocol.GetRouteinfoByTopic {
				resp.Body = *routeBody.Load()
			}
			return resp
		}))
	}
	// Two broker groups that answer the same records (as a misconfigured pair might).
	addr := remotingtest.StartServer(t, remoting.ServerOptions{}, serve).Addr().String()
	addr2 := remotingtest.StartServer(t, remoting.ServerOptions{}, serve).Addr().String()
	route := body.TopicRouteData{QueueDatas: []body.QueueData{{BrokerName: "a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6}},
		BrokerDatas: []body.BrokerData{{BrokerName: "a", BrokerAddrs: body.BrokerAddrs{0: addr}},
			{BrokerName: "b", BrokerAddrs: body.BrokerAddrs{0: addr2}}}}
	rb, err := route.Encode()
	require.NoError(t, err)
	routeBody.Store(&rb)

	msgs, err := newClient(t, addr).QueryMessageByKey(context.Background(), "Q", "Aa", 64, 0, math.MaxInt64)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, "2", string(msgs[0].Body), "sorted by store time")
	require.Equal(t, "0", string(msgs[1].Body))
}

// TestOrderConf: a single broker's layout is merged into the stored one; a cluster's replaces it.
func TestOrderConf(t *testing.T) {
	cl := admintest.Start(t)
	c := newClient(t, cl.NamesrvAddr)
	ctx := context.Background()

	_, ok, err := c.KVConfig(ctx, admin.NamespaceOrderTopicConfig, "Ord")
	require.NoError(t, err)
	require.False(t, ok)

	v, err := c.UpdateOrderConf(ctx, "Ord", map[string]int{"broker-b": 4, "broker-a": 8}, false)
	require.NoError(t, err)
	require.Equal(t, "broker-a:8;broker-b:4", v)
	v, err = c.UpdateOrderConf(ctx, "Ord", map[string]int{"broker-b": 2, "broker-c": 1}, true)
	require.NoError(t, err)
	require.Equal(t, "broker-a:8;broker-b:2;broker-c:1", v)
	stored, ok, err := c.KVConfig(ctx, admin.NamespaceOrderTopicConfig, "Ord")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, v, stored)
	v, err = c.UpdateOrderConf(ctx, "Ord", map[string]int{"broker-a": 3}, false)
	require.NoError(t, err)
	require.Equal(t, "broker-a:3", v)
}

// TestPartialAnswers: when one broker of a route cannot be reached, the others' queues still come
// back, with the failure.
func TestPartialAnswers(t *testing.T) {
	cl := admintest.Start(t)
	cl.CreateTopic(t, "Half", 2)
	dead := deadAddr(t)
	route := body.TopicRouteData{
		QueueDatas: []body.QueueData{{BrokerName: "broker-a", ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6},
			{BrokerName: "broker-z", ReadQueueNums: 2, WriteQueueNums: 2, Perm: 6}},
		BrokerDatas: []body.BrokerData{
			{Cluster: admintest.ClusterName, BrokerName: "broker-a", BrokerAddrs: body.BrokerAddrs{0: admintest.Addr(cl.Brokers[0])}},
			{Cluster: admintest.ClusterName, BrokerName: "broker-z", BrokerAddrs: body.BrokerAddrs{0: dead}},
		},
	}
	routeBody, err := route.Encode()
	require.NoError(t, err)
	ns := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(protocol.GetRouteinfoByTopic, remoting.HandlerFunc(
			func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
				resp := protocol.NewResponse(req, protocol.Success, "")
				resp.Body = routeBody
				return resp
			}))
	})
	c := newClient(t, ns.Addr().String())

	stats, err := c.ExamineTopicStats(context.Background(), "Half")
	require.Error(t, err)
	require.Contains(t, err.Error(), dead)
	require.Len(t, stats.OffsetTable, 2)
	for mq := range stats.OffsetTable {
		require.Equal(t, "broker-a", mq.BrokerName)
	}
}

// TestMalformedAnswer: a body that does not decode is an error, not a panic.
func TestMalformedAnswer(t *testing.T) {
	srv := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.HandleDefault(remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = []byte("{not json")
			return resp
		}))
	})
	c := newClient(t, srv.Addr().String())
	ctx := context.Background()
	addr := srv.Addr().String()
	_, err := c.ClusterInfo(ctx)
	require.Error(t, err)
	_, err = c.TopicList(ctx)
	require.Error(t, err)
	_, err = c.BrokerRuntimeInfo(ctx, addr)
	require.Error(t, err)
	_, err = c.TopicStats(ctx, addr, "t")
	require.Error(t, err)
	_, err = c.ConsumeStats(ctx, addr, "g", "")
	require.Error(t, err)
	_, err = c.ConsumerConnection(ctx, addr, "g")
	require.Error(t, err)
	_, err = c.QueryMessage(ctx, addr, admin.Query{Topic: "t", Key: "k"})
	require.Error(t, err)
	_, err = c.ViewMessage(ctx, addr, 0)
	require.Error(t, err)
}

func TestVersionDesc(t *testing.T) {
	for v, want := range map[int]string{
		0: "V3_0_0_SNAPSHOT", 1: "V3_0_0_ALPHA1", 15: "V3_0_0_FINAL", 16: "V3_0_1_SNAPSHOT", 17: "V3_0_1",
		45: "V3_0_15", 46: "V3_1_0_SNAPSHOT", 86: "V3_3_1_SNAPSHOT", 212: "V4_0_0_SNAPSHOT", 213: "V4_0_0",
		317: "V4_5_2", 409: "V4_9_8", 412: "V5_0_0_SNAPSHOT", 611: "V5_9_9", 612: "HIGHER_VERSION",
		100000: "HIGHER_VERSION", -1: "-1",
	} {
		require.Equal(t, want, admin.VersionDesc(v), "version %d", v)
	}
}

func TestOrderConfText(t *testing.T) {
	conf, err := admin.ParseOrderConf(" broker-b:4;broker-a:8; ")
	require.NoError(t, err)
	require.Equal(t, map[string]int{"broker-a": 8, "broker-b": 4}, conf)
	require.Equal(t, "broker-a:8;broker-b:4", admin.FormatOrderConf(conf))
	for _, bad := range []string{"broker-a", "broker-a:x", ":3"} {
		_, err := admin.ParseOrderConf(bad)
		require.Error(t, err, bad)
	}
}

func TestParseNamesrvAddrs(t *testing.T) {
	require.Equal(t, []string{"a:1", "b:2", "c:3"}, admin.ParseNamesrvAddrs("a:1;b:2, c:3;"))
	require.Empty(t, admin.ParseNamesrvAddrs(" ; "))
}

func TestClusterHelpers(t *testing.T) {
	info := &body.ClusterInfo{
		BrokerAddrTable: map[string]body.BrokerData{
			"b": {Cluster: "C1", BrokerName: "b", BrokerAddrs: body.BrokerAddrs{1: "h:2", 0: "h:1"}},
			"a": {Cluster: "C1", BrokerName: "a", BrokerAddrs: body.BrokerAddrs{2: "g:3"}},
			"x": {Cluster: "C2", BrokerName: "x", BrokerAddrs: body.BrokerAddrs{0: "x:1"}},
		},
		ClusterAddrTable: map[string][]string{"C1": {"b", "a"}, "C2": {"x"}},
	}
	var addrs []string
	for _, b := range admin.Brokers(info) {
		addrs = append(addrs, b.Cluster+"/"+b.BrokerName+"/"+strconv.FormatInt(b.BrokerID, 10)+"/"+b.Addr)
	}
	require.Equal(t, []string{"C1/a/2/g:3", "C1/b/0/h:1", "C1/b/1/h:2", "C2/x/0/x:1"}, addrs)
	masters, err := admin.ClusterBrokers(info, "C1", true)
	require.NoError(t, err)
	require.Equal(t, []admin.BrokerAddr{{Cluster: "C1", BrokerName: "b", BrokerID: 0, Addr: "h:1"}}, masters)
	_, err = admin.ClusterBrokers(info, "C3", false)
	require.Error(t, err)
	require.Equal(t, "g:3", admin.SelectAddr(info.BrokerAddrTable["a"]))
	require.Equal(t, "h:1", admin.SelectAddr(info.BrokerAddrTable["b"]))
	require.Equal(t, "", admin.SelectAddr(body.BrokerData{}))
	require.Equal(t, "C2", admin.ClusterOf(info, "x"))
	require.Equal(t, "", admin.BrokerNameOf(info, "nowhere:1"))
}
