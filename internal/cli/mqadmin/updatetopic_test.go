package mqadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestUpdateTopicInCluster: -c creates the topic on every master; the route shows its queues.
func TestUpdateTopicInCluster(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	out := mustRunAdmin(t, "updateTopic", "-t", "Made", "-c", admintest.ClusterName, "-r", "3", "-w", "4", "-n", cl.NamesrvAddr)
	require.ElementsMatch(t, []string{
		"create topic to " + admintest.Addr(cl.Brokers[0]) + " success.",
		"create topic to " + admintest.Addr(cl.Brokers[1]) + " success.",
		"TopicConfig [topicName=Made, readQueueNums=3, writeQueueNums=4, perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]",
	}, lines(out))
	cl.WaitRoute(t, "Made", "broker-a", "broker-b")
	route, ok := cl.Namesrv.Routes().TopicRoute("Made")
	require.True(t, ok)
	for _, q := range route.QueueDatas {
		require.Equal(t, 3, q.ReadQueueNums)
		require.Equal(t, 4, q.WriteQueueNums)
		require.Equal(t, body.PermRead|body.PermWrite, q.Perm)
	}

	// An order topic's layout over the whole cluster replaces what the name server had.
	require.NoError(t, cl.Namesrv.KV().Put(admin.NamespaceOrderTopicConfig, "Made", "broker-z:9"))
	out = mustRunAdmin(t, "updateTopic", "-t", "Made", "-c", admintest.ClusterName, "-w", "4", "-o", "true", "-n", cl.NamesrvAddr)
	require.Contains(t, lines(out), "set cluster orderConf. isOrder=true, orderConf=[broker-a:4;broker-b:4]")
	conf, ok := cl.Namesrv.KV().Get(admin.NamespaceOrderTopicConfig, "Made")
	require.True(t, ok)
	require.Equal(t, "broker-a:4;broker-b:4", conf)

	_, errOut, err := runAdmin(t, "updateTopic", "-t", "Made", "-c", "NoSuchCluster", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `cluster "NoSuchCluster" not found`)
}

// TestUpdateTopicOnBroker: -b creates the topic on one broker; -o true also records the order
// layout on the name server, merged with what is there.
func TestUpdateTopicOnBroker(t *testing.T) {
	cl := admintest.Start(t)
	require.NoError(t, cl.Namesrv.KV().Put(admin.NamespaceOrderTopicConfig, "Ord", "broker-z:2"))
	addr := admintest.Addr(cl.Brokers[0])

	out := mustRunAdmin(t, "updateTopic", "-t", "Ord", "-b", addr, "-w", "2", "-r", "2", "-p", "4", "-o", "true", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"create topic to " + addr + " success.",
		"set broker orderConf. isOrder=true, orderConf=[broker-a:2;broker-z:2]",
		"TopicConfig [topicName=Ord, readQueueNums=2, writeQueueNums=2, perm=R--, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=true]",
	}, lines(out))
	conf, ok := cl.Namesrv.KV().Get(admin.NamespaceOrderTopicConfig, "Ord")
	require.True(t, ok)
	require.Equal(t, "broker-a:2;broker-z:2", conf)
	cl.WaitRoute(t, "Ord")
	route, _ := cl.Namesrv.Routes().TopicRoute("Ord")
	require.Equal(t, body.PermRead, route.QueueDatas[0].Perm)
}

// TestUpdateTopicRefused: a name the broker refuses comes back with the broker's code and remark;
// a command naming neither a broker nor a cluster does nothing.
func TestUpdateTopicRefused(t *testing.T) {
	cl := admintest.Start(t)
	addr := admintest.Addr(cl.Brokers[0])
	out, errOut, err := runAdmin(t, "updateTopic", "-t", "bad topic!", "-b", addr, "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Empty(t, out)
	require.Contains(t, errOut, addr+" UPDATE_AND_CREATE_TOPIC: SYSTEM_ERROR (1): ")

	_, errOut, err = runAdmin(t, "updateTopic", "-t", "T", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "either -b brokerAddr or -c clusterName")
}
