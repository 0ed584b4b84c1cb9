package broker_test

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/namesrv"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

const haWait = 15 * time.Second

// startNamesrv runs an in-process nameserver for the test.
func startNamesrv(t *testing.T) string {
	t.Helper()
	o := namesrv.DefaultOptions()
	o.ListenAddr = "127.0.0.1:0"
	o.KVConfigPath = filepath.Join(t.TempDir(), "kvConfig.json")
	ns, err := namesrv.New(o, zaptest.NewLogger(t), nil)
	require.NoError(t, err)
	require.NoError(t, ns.Start())
	t.Cleanup(func() { _ = ns.Close() })
	return ns.Addr().String()
}

// freeAddr is a loopback address with a port free a moment ago: a broker advertises the address
// it listens on, so both must be known before it starts.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// haBroker returns the options of one member of broker group "broker-a" registered with ns.
func haBroker(t *testing.T, ns string, role store.Role, edits ...func(*broker.Options)) broker.Options {
	t.Helper()
	o := brokertest.Options(t.TempDir())
	o.ListenAddr = freeAddr(t)
	o.BrokerAddr = o.ListenAddr
	o.NamesrvAddrs = []string{ns}
	o.HA = broker.HAOptions{Role: role, ListenAddr: "127.0.0.1:0", HeartbeatInterval: 100 * time.Millisecond,
		HousekeepingInterval: 3 * time.Second, ReconnectInterval: 50 * time.Millisecond,
		MetadataSyncInterval: 100 * time.Millisecond}
	o.HAServerAddr = "127.0.0.1:0"
	if role == store.RoleSlave {
		o.BrokerID = 1
	}
	for _, e := range edits {
		e(&o)
	}
	return o
}

func send(t *testing.T, c *brokertest.Conn, topic string, qid int32, bodyText string) *protocol.Command {
	t.Helper()
	return c.Call(brokertest.SendRequest(brokertest.Msg{Topic: topic, QueueID: qid, Body: []byte(bodyText)}))
}

func slaveMaxOffset(t *testing.T, c *brokertest.Conn, topic string, qid int32) (int64, bool) {
	t.Helper()
	resp := c.Call(brokertest.QueueRequest(protocol.GetMaxOffset, topic, qid))
	if resp.ResponseCode() != protocol.Success {
		return 0, false
	}
	return brokertest.ExtInt(t, resp, "offset"), true
}

func committedOffset(t *testing.T, c *brokertest.Conn, group, topic string, qid int32) (int64, bool) {
	t.Helper()
	resp := c.Call(protocol.NewRequest(protocol.QueryConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": strconv.Itoa(int(qid))}, nil))
	if resp.ResponseCode() != protocol.Success {
		return 0, false
	}
	return brokertest.ExtInt(t, resp, "offset"), true
}

// A slave registered with the same nameserver learns its master from it, replicates the master's
// messages and metadata, serves pulls with Java's slave rules, refuses sends, never commits
// offsets, and keeps serving when the master is gone.
func TestSlaveFollowsItsMaster(t *testing.T) {
	ns := startNamesrv(t)
	master := brokertest.StartWith(t, haBroker(t, ns, store.RoleAsyncMaster))
	slave := brokertest.StartWith(t, haBroker(t, ns, store.RoleSlave))
	require.NotNil(t, master.HAService())
	require.NotNil(t, slave.HAClient())
	require.Nil(t, slave.HAService())
	require.Eventually(t, slave.HAClient().Connected, haWait, 5*time.Millisecond)
	require.Equal(t, master.HAService().Addr().String(), slave.HAClient().MasterAddr(),
		"the slave follows the haServerAddr the nameserver answered")

	mc, sc := master.Dial(t), slave.Dial(t)
	const topic = "HA_T"
	createTopic(t, mc, topic, 4)
	for i := range 20 {
		resp := send(t, mc, topic, int32(i%4), "m"+strconv.Itoa(i))
		require.EqualValues(t, protocol.Success, resp.Code, resp.Remark)
	}
	commit := protocol.NewRequest(protocol.UpdateConsumerOffset, map[string]string{
		"consumerGroup": "CG_HA", "topic": topic, "queueId": "2", "commitOffset": "3"}, nil)
	require.EqualValues(t, protocol.Success, mc.Call(commit).Code)

	// Messages (replication) and the topic (metadata sync) both reach the slave.
	for q := int32(0); q < 4; q++ {
		require.Eventually(t, func() bool { off, ok := slaveMaxOffset(t, sc, topic, q); return ok && off == 5 },
			haWait, 10*time.Millisecond, "queue %d on the slave", q)
	}
	require.Eventually(t, func() bool { off, ok := committedOffset(t, sc, "CG_HA", topic, 2); return ok && off == 3 },
		haWait, 10*time.Millisecond, "committed offsets reach the slave")

	at := func(off int64, flag int32) brokertest.Pull {
		return brokertest.Pull{Group: "CG_HA", Topic: topic, QueueID: 1, Offset: off,
			SysFlag: brokertest.PullSubscription | flag, Sub: "*", CommitOffset: 4}
	}
	r := pull(t, sc, at(0, brokertest.PullCommitOffset))
	require.Equal(t, protocol.Success, r.code)
	require.Len(t, r.msgs, 5)
	require.Equal(t, "m1", string(r.msgs[0].Body))
	require.Equal(t, master.Addr().String(), master.Opts.BrokerAddr)
	off, _ := committedOffset(t, sc, "CG_HA", topic, 1) // not found, or 0 for a young queue (§2.4)
	require.NotEqualValues(t, 4, off, "a slave never commits a pull's offset")

	// Past the end: the master moves the consumer (21), the slave does not (20, same offset).
	r = pull(t, mc, at(50, 0))
	require.Equal(t, protocol.PullOffsetMoved, r.code)
	require.EqualValues(t, 5, r.next)
	r = pull(t, sc, at(50, 0))
	require.Equal(t, protocol.PullRetryImmediately, r.code)
	require.EqualValues(t, 50, r.next)

	resp := send(t, sc, topic, 0, "to the slave")
	require.EqualValues(t, protocol.ServiceNotAvailable, resp.Code)
	require.Contains(t, resp.Remark, "SLAVE")

	// The nameserver routes the group to both.
	route := routeOf(t, ns, topic)
	require.Len(t, route.BrokerDatas, 1)
	require.Equal(t, master.Opts.BrokerAddr, route.BrokerDatas[0].BrokerAddrs[0])
	require.Equal(t, slave.Opts.BrokerAddr, route.BrokerDatas[0].BrokerAddrs[1])

	// The master goes away; the slave still serves every message.
	require.NoError(t, master.Close())
	for q := int32(0); q < 4; q++ {
		r := pull(t, sc, brokertest.Pull{Group: "CG_LATE", Topic: topic, QueueID: q, Offset: 0,
			SysFlag: brokertest.PullSubscription, Sub: "*"})
		require.Equal(t, protocol.Success, r.code)
		require.Len(t, r.msgs, 5)
	}
}

// SYNC_MASTER answers SLAVE_NOT_AVAILABLE (11) without a slave and SUCCESS with one that keeps
// up; the message is stored either way.
func TestSyncMasterBroker(t *testing.T) {
	ns := startNamesrv(t)
	master := brokertest.StartWith(t, haBroker(t, ns, store.RoleSyncMaster))
	mc := master.Dial(t)
	const topic = "HA_SYNC"
	createTopic(t, mc, topic, 1)
	resp := send(t, mc, topic, 0, "alone")
	require.EqualValues(t, protocol.SlaveNotAvailable, resp.Code, resp.Remark)
	require.NotEmpty(t, resp.ExtFields.Get("msgId"), "the message is stored")

	slave := brokertest.StartWith(t, haBroker(t, ns, store.RoleSlave))
	require.Eventually(t, func() bool {
		return len(master.HAService().Slaves()) == 1 && master.HAService().Slaves()[0].AckOffset >= 0
	},
		haWait, 5*time.Millisecond)
	for i := range 10 {
		resp := send(t, mc, topic, 0, "with slave "+strconv.Itoa(i))
		require.EqualValues(t, protocol.Success, resp.Code, resp.Remark)
	}
	require.GreaterOrEqual(t, slave.Store().CommitLogMaxOffset(), master.Store().CommitLogMaxOffset())

	require.NoError(t, slave.Close())
	require.Eventually(t, func() bool { return len(master.HAService().Slaves()) == 0 }, haWait, 5*time.Millisecond)
	resp = send(t, mc, topic, 0, "slave gone")
	require.EqualValues(t, protocol.SlaveNotAvailable, resp.Code, resp.Remark)
}

// With slaveReadEnable a master sends consumers whose data lies "on disk" (further behind the end
// than accessMessageInMemoryMaxRatio of RAM) to the slave: suggestWhichBrokerId 1.
func TestMasterSuggestsTheSlaveForOldData(t *testing.T) {
	b := brokertest.Start(t, func(o *broker.Options) {
		o.SlaveReadEnable = true
		o.Store.TotalMemory = 10 << 10 // 40% = 4 KiB "in memory"
	})
	c := b.Dial(t)
	createTopic(t, c, "HA_READ", 1)
	for i := range 100 {
		require.EqualValues(t, protocol.Success, send(t, c, "HA_READ", 0, "some body of a message "+strconv.Itoa(i)).Code)
	}
	// Under ASYNC_FLUSH a put is answered before it is dispatched: wait for the queue.
	require.Eventually(t, func() bool { return b.Store().MaxOffsetInQueue("HA_READ", 0) == 100 }, 5*time.Second, time.Millisecond)
	suggest := func(off int64) int64 {
		resp := c.Call(brokertest.PullRequest(brokertest.Pull{Group: "CG_READ", Topic: "HA_READ", Offset: off,
			MaxMsgs: 1, SysFlag: brokertest.PullSubscription, Sub: "*"}))
		require.EqualValues(t, protocol.Success, resp.Code)
		return brokertest.ExtInt(t, resp, "suggestWhichBrokerId")
	}
	require.EqualValues(t, 1, suggest(0), "old data: the group's whichBrokerWhenConsumeSlowly")
	require.EqualValues(t, 0, suggest(99), "recent data: the group's brokerId")
}

func routeOf(t *testing.T, ns, topic string) *body.TopicRouteData {
	t.Helper()
	cli := remoting.NewClient(remoting.ClientOptions{}, nil)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.Invoke(ctx, ns, protocol.NewRequest(protocol.GetRouteinfoByTopic, map[string]string{"topic": topic}, nil))
	require.NoError(t, err)
	require.EqualValues(t, protocol.Success, resp.Code, resp.Remark)
	route, err := body.DecodeTopicRouteData(resp.Body)
	require.NoError(t, err)
	return route
}
