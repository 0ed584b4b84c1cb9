package admintest

import (
	"math"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/namesrv"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// ClusterName is the cluster every broker joins.
const ClusterName = "DefaultCluster"

// WaitFor bounds every wait for the name server or the store to catch up.
const WaitFor = 10 * time.Second

// Cluster is a name server and the brokers registered with it.
type Cluster struct {
	Namesrv     *namesrv.Server
	NamesrvAddr string
	Brokers     []*brokertest.Broker
}

// Start runs a name server and one master per broker name ("broker-a" when none is given) in
// ClusterName, and waits until all are registered. Everything is closed when the test ends.
func Start(t testing.TB, brokerNames ...string) *Cluster {
	t.Helper()
	if len(brokerNames) == 0 {
		brokerNames = []string{"broker-a"}
	}
	ns := StartNamesrv(t)
	c := &Cluster{Namesrv: ns, NamesrvAddr: ns.Addr().String()}
	for _, name := range brokerNames {
		c.Brokers = append(c.Brokers, StartBroker(t, c.NamesrvAddr, func(o *broker.Options) { o.BrokerName = name }))
	}
	c.WaitRegistered(t, len(brokerNames))
	return c
}

// WaitBrokerIDs waits until n addresses of broker group brokerName are registered.
func (c *Cluster) WaitBrokerIDs(t testing.TB, brokerName string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		bd, ok := c.Namesrv.Routes().ClusterInfo().BrokerAddrTable[brokerName]
		return ok && len(bd.BrokerAddrs) == n
	}, WaitFor, 10*time.Millisecond, "broker group %s does not have %d addresses", brokerName, n)
}

// WaitRegistered waits until n broker groups of ClusterName are registered.
func (c *Cluster) WaitRegistered(t testing.TB, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		info := c.Namesrv.Routes().ClusterInfo()
		return len(info.ClusterAddrTable[ClusterName]) == n
	}, WaitFor, 10*time.Millisecond, "brokers did not register")
}

// StartNamesrv runs a name server on 127.0.0.1:0 over a temporary kvConfig.json.
func StartNamesrv(t testing.TB) *namesrv.Server {
	t.Helper()
	o := namesrv.DefaultOptions()
	o.ListenAddr = "127.0.0.1:0"
	o.KVConfigPath = filepath.Join(t.TempDir(), "kvConfig.json")
	s, err := namesrv.New(o, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)), nil)
	require.NoError(t, err)
	require.NoError(t, s.Start())
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}

// StartBroker runs a master of ClusterName on a free loopback port, advertised as its address
// and store host, registered with namesrvAddr; edits change brokertest's options first. The port
// is picked before the broker listens, so the start is retried if another process took it.
func StartBroker(t testing.TB, namesrvAddr string, edits ...func(*broker.Options)) *brokertest.Broker {
	t.Helper()
	var lastErr error
	for range 3 {
		addr, haAddr := freeAddr(t), freeAddr(t)
		o := brokertest.Options(t.TempDir())
		o.ClusterName = ClusterName
		o.ListenAddr, o.BrokerAddr, o.HAServerAddr = addr, addr, haAddr
		o.Store.StoreHost = netip.MustParseAddrPort(addr)
		o.NamesrvAddrs = []string{namesrvAddr}
		for _, e := range edits {
			e(&o)
		}
		b, err := broker.New(o, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)))
		require.NoError(t, err)
		if lastErr = b.Start(); lastErr != nil {
			_ = b.Close()
			continue
		}
		t.Cleanup(func() { require.NoError(t, b.Close()) })
		return &brokertest.Broker{Broker: b, Opts: o, Started: time.Now()}
	}
	t.Fatalf("start broker: %v", lastErr)
	return nil
}

// StartSlave runs a slave (brokerId 1) of the broker group brokerName, registered with
// namesrvAddr; it replicates from the group's master once the name server names it.
func StartSlave(t testing.TB, namesrvAddr, brokerName string) *brokertest.Broker {
	t.Helper()
	return StartBroker(t, namesrvAddr, func(o *broker.Options) {
		o.BrokerName, o.BrokerID = brokerName, 1
		o.HA.Role = store.RoleSlave
	})
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// Addr is a broker's advertised address.
func Addr(b *brokertest.Broker) string { return b.Opts.BrokerAddr }

// WaitRoute waits until the name server's route of topic lists every broker name given (any
// broker at all when none is).
func (c *Cluster) WaitRoute(t testing.TB, topic string, brokerNames ...string) {
	t.Helper()
	require.Eventually(t, func() bool {
		r, ok := c.Namesrv.Routes().TopicRoute(topic)
		if !ok || len(r.QueueDatas) == 0 {
			return false
		}
		for _, name := range brokerNames {
			if !slices.ContainsFunc(r.QueueDatas, func(q body.QueueData) bool { return q.BrokerName == name }) {
				return false
			}
		}
		return true
	}, WaitFor, 10*time.Millisecond, "no route for topic %s on %v", topic, brokerNames)
}

// WaitNoRoute waits until the name server has no route for topic.
func (c *Cluster) WaitNoRoute(t testing.TB, topic string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, ok := c.Namesrv.Routes().TopicRoute(topic)
		return !ok
	}, WaitFor, 10*time.Millisecond, "topic %s still has a route", topic)
}

// CreateTopic creates topic with queues read and write queues on every broker and waits for the
// name server's route.
func (c *Cluster) CreateTopic(t testing.TB, topic string, queues int) {
	t.Helper()
	var names []string
	for _, b := range c.Brokers {
		resp := b.Dial(t).Call(brokertest.CreateTopicRequest(topic, queues))
		require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
		names = append(names, b.Opts.BrokerName)
	}
	c.WaitRoute(t, topic, names...)
}

// Sent is a stored message's place, as SEND_MESSAGE answers it.
type Sent struct {
	OffsetMsgID string
	QueueID     int32
	QueueOffset int64
}

// Send stores m on b and waits until it is in its ConsumeQueue and, when it has keys or a
// UNIQ_KEY, in the index.
func Send(t testing.TB, b *brokertest.Broker, m brokertest.Msg) Sent {
	t.Helper()
	resp := b.Dial(t).Call(brokertest.SendRequest(m))
	require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	var h protocol.SendMessageResponseHeader
	require.NoError(t, h.Decode(resp.ExtFields))
	s := Sent{OffsetMsgID: h.MsgID, QueueID: h.QueueID, QueueOffset: h.QueueOffset}
	st := b.Store()
	require.Eventually(t, func() bool { return st.MaxOffsetInQueue(m.Topic, s.QueueID) > s.QueueOffset },
		WaitFor, 5*time.Millisecond, "message not dispatched")
	for _, key := range indexKeys(m) {
		WaitIndexed(t, b, m.Topic, key)
	}
	return s
}

// WaitIndexed waits until b's index holds a message of topic under key (a key or a UNIQ_KEY).
func WaitIndexed(t testing.TB, b *brokertest.Broker, topic, key string) {
	t.Helper()
	st := b.Store()
	require.Eventually(t, func() bool {
		r := st.QueryMessage(topic, key, 64, 0, math.MaxInt64)
		defer r.Release()
		return len(r.Records) > 0
	}, WaitFor, 5*time.Millisecond, "key %q not indexed", key)
}

func indexKeys(m brokertest.Msg) []string {
	keys := message.SplitKeys(m.Keys)
	if u := m.Props[message.PropertyUniqClientMessageID]; u != "" {
		keys = append(keys, u)
	}
	return keys
}

// Heartbeat registers clientID as a push consumer of group on b, subscribed to topic → tag
// expression, over a connection that stays open (the membership ends with it) and is returned.
func Heartbeat(t testing.TB, b *brokertest.Broker, clientID, group string, subs map[string]string) *brokertest.Conn {
	t.Helper()
	conn := b.Dial(t)
	resp := conn.Call(brokertest.HeartbeatRequest(t, clientID, group, subs))
	require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	return conn
}

// CommitOffset stores group's consumer offset of one queue on b (UPDATE_CONSUMER_OFFSET). The
// broker takes offsets only for groups and topics it has: a missing group is created with
// defaults, a missing topic with queueID+1 queues.
func CommitOffset(t testing.TB, b *brokertest.Broker, group, topic string, queueID int32, offset int64) {
	t.Helper()
	conn := b.Dial(t)
	ensureGroupAndTopic(t, conn, group, topic, int(queueID)+1)
	req := protocol.NewHeaderRequest(protocol.UpdateConsumerOffset, &protocol.UpdateConsumerOffsetRequestHeader{
		ConsumerGroup: group, Topic: topic, QueueID: queueID, CommitOffset: offset,
	}, nil)
	resp := conn.Call(req)
	require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
}

// ProducerHeartbeat registers clientID as a producer of group on b over a connection that stays
// open (the membership ends with it) and is returned.
func ProducerHeartbeat(t testing.TB, b *brokertest.Broker, clientID, group string) *brokertest.Conn {
	t.Helper()
	data, err := body.Marshal(body.HeartbeatData{ClientID: clientID, ConsumerDataSet: []body.ConsumerData{},
		ProducerDataSet: []body.ProducerData{{GroupName: group}}})
	require.NoError(t, err)
	conn := b.Dial(t)
	resp := conn.Call(protocol.NewRequest(protocol.HeartBeat, nil, data))
	require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	return conn
}

// SkipUnlessServed skips the test when b answers code with REQUEST_CODE_NOT_SUPPORTED: for
// commands whose server side another branch adds. h is a well-formed header of the request.
func SkipUnlessServed(t testing.TB, b *brokertest.Broker, code protocol.RequestCode, h protocol.Header) {
	t.Helper()
	resp := b.Dial(t).Call(protocol.NewHeaderRequest(code, h, nil))
	if resp.ResponseCode() == protocol.RequestCodeNotSupported {
		t.Skipf("the broker does not serve %s (%d) on this branch: %s", code, int32(code), resp.Remark)
	}
}

// ensureGroupAndTopic creates group and topic on the broker conn talks to unless it has them.
func ensureGroupAndTopic(t testing.TB, conn *brokertest.Conn, group, topic string, queues int) {
	t.Helper()
	var groups body.SubscriptionGroupWrapper
	require.NoError(t, body.Unmarshal(conn.Call(protocol.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil)).Body, &groups))
	if _, ok := groups.SubscriptionGroupTable[group]; !ok {
		data, err := body.Marshal(body.NewSubscriptionGroupConfig(group))
		require.NoError(t, err)
		resp := conn.Call(protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, data))
		require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	}
	var topics body.TopicConfigSerializeWrapper
	require.NoError(t, body.Unmarshal(conn.Call(protocol.NewRequest(protocol.GetAllTopicConfig, nil, nil)).Body, &topics))
	if _, ok := topics.TopicConfigTable[topic]; !ok {
		resp := conn.Call(brokertest.CreateTopicRequest(topic, queues))
		require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	}
}
