package admin_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestQueueOffsets: a queue's end, and a group's committed offset before and after a commit.
func TestQueueOffsets(t *testing.T) {
	cl := admintest.Start(t)
	c := newClient(t, cl.NamesrvAddr)
	ctx := context.Background()
	b := cl.Brokers[0]
	addr := admintest.Addr(b)
	cl.CreateTopic(t, "Off", 2)
	for range 3 {
		admintest.Send(t, b, brokertest.Msg{Topic: "Off", QueueID: 1, Body: []byte("m")})
	}
	q0 := body.MessageQueue{Topic: "Off", BrokerName: "broker-a", QueueID: 0}
	q1 := body.MessageQueue{Topic: "Off", BrokerName: "broker-a", QueueID: 1}

	end, err := c.MaxOffset(ctx, addr, q1)
	require.NoError(t, err)
	require.Equal(t, int64(3), end)
	end, err = c.MaxOffset(ctx, addr, q0)
	require.NoError(t, err)
	require.Zero(t, end)

	// No offset committed yet: the queue still begins at 0, so the broker answers 0 (as 4.9 does).
	off, ok, err := c.ConsumerOffset(ctx, addr, "GroupOff", q1)
	require.NoError(t, err)
	require.True(t, ok)
	require.Zero(t, off)
	require.NoError(t, c.UpdateConsumerOffset(ctx, addr, "GroupOff", q1, 2))
	off, ok, err = c.ConsumerOffset(ctx, addr, "GroupOff", q1)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(2), off)
}

// TestConsumerOffsetNotFound: QUERY_NOT_FOUND is "no offset", not an error; the request asks a
// RocketMQ 5 broker not to answer 0 instead.
func TestConsumerOffsetNotFound(t *testing.T) {
	var (
		mu  sync.Mutex
		got protocol.QueryConsumerOffsetRequestHeader
	)
	srv := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(protocol.QueryConsumerOffset, remoting.HandlerFunc(
			func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
				mu.Lock()
				defer mu.Unlock()
				if err := got.Decode(req.ExtFields); err != nil {
					return protocol.NewResponse(req, protocol.SystemError, err.Error())
				}
				return protocol.NewResponse(req, protocol.QueryNotFound, "not found")
			}))
	})
	addr := srv.Addr().String()
	c := newClient(t, addr)
	off, ok, err := c.ConsumerOffset(context.Background(), addr, "G", body.MessageQueue{Topic: "T", QueueID: 5})
	require.NoError(t, err)
	require.False(t, ok)
	require.Zero(t, off)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, protocol.QueryConsumerOffsetRequestHeader{ConsumerGroup: "G", Topic: "T", QueueID: 5,
		SetZeroIfNotFound: protocol.Some(false)}, got)
}

// TestCreateTopicOnMasters: "" is every cluster's masters; a named cluster must exist.
func TestCreateTopicOnMasters(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	c := newClient(t, cl.NamesrvAddr)
	ctx := context.Background()
	tc := body.NewTopicConfig("Everywhere")
	tc.ReadQueueNums, tc.WriteQueueNums = 3, 3

	done, err := c.CreateTopicOnMasters(ctx, "", tc)
	require.NoError(t, err)
	require.Equal(t, []admin.BrokerAddr{
		{Cluster: admintest.ClusterName, BrokerName: "broker-a", BrokerID: 0, Addr: admintest.Addr(cl.Brokers[0])},
		{Cluster: admintest.ClusterName, BrokerName: "broker-b", BrokerID: 0, Addr: admintest.Addr(cl.Brokers[1])},
	}, done)
	cl.WaitRoute(t, "Everywhere", "broker-a", "broker-b")
	route, err := c.TopicRoute(ctx, "Everywhere")
	require.NoError(t, err)
	for _, qd := range route.QueueDatas {
		require.Equal(t, 3, qd.WriteQueueNums, qd.BrokerName)
	}

	done, err = c.CreateTopicOnMasters(ctx, admintest.ClusterName, tc)
	require.NoError(t, err)
	require.Len(t, done, 2)
	_, err = c.CreateTopicOnMasters(ctx, "NoSuchCluster", tc)
	require.ErrorContains(t, err, `cluster "NoSuchCluster" not found`)
}

// TestMasters: every cluster's masters once each, or one cluster's.
func TestMasters(t *testing.T) {
	info := &body.ClusterInfo{
		BrokerAddrTable: map[string]body.BrokerData{
			"b": {Cluster: "C1", BrokerName: "b", BrokerAddrs: body.BrokerAddrs{1: "h:2", 0: "h:1"}},
			"a": {Cluster: "C1", BrokerName: "a", BrokerAddrs: body.BrokerAddrs{2: "g:3"}},
			"x": {Cluster: "C2", BrokerName: "x", BrokerAddrs: body.BrokerAddrs{0: "x:1"}},
		},
		ClusterAddrTable: map[string][]string{"C1": {"b", "a"}, "C2": {"x", "b"}},
	}
	all, err := admin.Masters(info, "")
	require.NoError(t, err)
	require.Equal(t, []admin.BrokerAddr{
		{Cluster: "C1", BrokerName: "b", BrokerID: 0, Addr: "h:1"},
		{Cluster: "C2", BrokerName: "x", BrokerID: 0, Addr: "x:1"},
	}, all)
	c2, err := admin.Masters(info, "C2")
	require.NoError(t, err)
	require.Equal(t, []admin.BrokerAddr{
		{Cluster: "C2", BrokerName: "b", BrokerID: 0, Addr: "h:1"},
		{Cluster: "C2", BrokerName: "x", BrokerID: 0, Addr: "x:1"},
	}, c2)
	_, err = admin.Masters(info, "C3")
	require.Error(t, err)
}

// TestRequestsUseTheSerializeType: every request goes out in the encoding the options name, and
// an offset answer without its offset is an error.
func TestRequestsUseTheSerializeType(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []protocol.SerializeType
	)
	srv := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.HandleDefault(remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			mu.Lock()
			seen = append(seen, req.SerializeType)
			mu.Unlock()
			return protocol.NewResponse(req, protocol.Success, "")
		}))
	})
	addr := srv.Addr().String()
	ctx := context.Background()
	mq := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 0}
	for _, st := range []protocol.SerializeType{protocol.JSON, protocol.RocketMQ} {
		c := admin.New(admin.Options{NamesrvAddrs: []string{addr}, Serialize: st}, nil)
		_, err := c.MaxOffset(ctx, addr, mq)
		require.ErrorContains(t, err, "offset")
		_, _, err = c.ConsumerOffset(ctx, addr, "g", mq)
		require.ErrorContains(t, err, "offset")
		require.NoError(t, c.UpdateConsumerOffset(ctx, addr, "g", mq, 1))
		_, err = c.TopicRoute(ctx, "T")
		require.Error(t, err, "an empty route body")
		require.NoError(t, c.Close())
	}
	mu.Lock()
	defer mu.Unlock()
	j, r := protocol.JSON, protocol.RocketMQ
	require.Equal(t, []protocol.SerializeType{j, j, j, j, r, r, r, r}, seen)
}
