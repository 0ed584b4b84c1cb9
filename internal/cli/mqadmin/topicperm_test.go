package mqadmin

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// brokerTopic is a topic's configuration in a broker's own table (GET_ALL_TOPIC_CONFIG).
func brokerTopic(t *testing.T, addr, topic string) body.TopicConfig {
	t.Helper()
	c := admin.New(admin.Options{}, nil)
	defer c.Close()
	all, err := c.AllTopicConfig(context.Background(), addr)
	require.NoError(t, err)
	tc, ok := all.TopicConfigTable[topic]
	require.True(t, ok, "topic %s not on %s", topic, addr)
	return tc
}

// TestUpdateTopicPerm: -b changes the perm on that master, keeping its queue counts and order
// flag; the same perm again is reported and nothing is sent; -c changes it on every master; a
// broker that is not a master of the route is refused.
func TestUpdateTopicPerm(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Perm", 3)
	a, b := cl.Brokers[0], cl.Brokers[1]
	addrA := admintest.Addr(a)

	out := mustRunAdmin(t, "updateTopicPerm", "-t", "Perm", "-b", addrA, "-p", "4", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"update topic perm from 6 to 4 in " + addrA + " success.",
		"TopicConfig [topicName=Perm, readQueueNums=3, writeQueueNums=3, perm=R--, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false].",
	}, lines(out))
	tc := brokerTopic(t, addrA, "Perm")
	require.Equal(t, body.PermRead, tc.Perm)
	require.Equal(t, 3, tc.WriteQueueNums)
	tcB := brokerTopic(t, admintest.Addr(b), "Perm")
	require.Equal(t, body.PermRead|body.PermWrite, tcB.Perm)

	require.Eventually(t, func() bool { n, p := topicsOf(t, cl, "broker-a", "Perm"); return n > 0 && p == body.PermRead },
		admintest.WaitFor, 10*time.Millisecond)
	out = mustRunAdmin(t, "updateTopicPerm", "-t", "Perm", "-b", addrA, "-p", "4", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"new perm equals to the old one!"}, lines(out))

	out = mustRunAdmin(t, "updateTopicPerm", "-t", "Perm", "-c", admintest.ClusterName, "-p", "2", "-n", cl.NamesrvAddr)
	require.ElementsMatch(t, []string{
		"update topic perm from 4 to 2 in " + addrA + " success.",
		"update topic perm from 6 to 2 in " + admintest.Addr(b) + " success.",
	}, lines(out))
	tcB = brokerTopic(t, admintest.Addr(b), "Perm")
	require.Equal(t, body.PermWrite, tcB.Perm)

	// An order topic stays one (Java's tool rebuilds the configuration from the route and drops
	// the flag).
	mustRunAdmin(t, "updateTopic", "-t", "Ord", "-b", addrA, "-r", "2", "-w", "2", "-o", "true", "-n", cl.NamesrvAddr)
	cl.WaitRoute(t, "Ord")
	out = mustRunAdmin(t, "updateTopicPerm", "-t", "Ord", "-b", addrA, "-p", "4", "-n", cl.NamesrvAddr)
	require.Contains(t, out, "perm=R--, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=true].")
	require.True(t, brokerTopic(t, addrA, "Ord").Order)

	_, errOut, err := runAdmin(t, "updateTopicPerm", "-t", "Perm", "-b", "127.0.0.1:1", "-p", "6", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "broker not exit or broker is not master")
	_, errOut, err = runAdmin(t, "updateTopicPerm", "-t", "Perm", "-b", addrA, "-p", "9", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "want a permission 0-7")
}

// TestTopicClusterList: the clusters of the topic's brokers, one a line.
func TestTopicClusterList(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Where", 1)
	require.Equal(t, []string{admintest.ClusterName}, lines(mustRunAdmin(t, "topicClusterList", "-t", "Where", "-n", cl.NamesrvAddr)))
	_, errOut, err := runAdmin(t, "topicClusterList", "-t", "Nowhere", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "TOPIC_NOT_EXIST")
}
