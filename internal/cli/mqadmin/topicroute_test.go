package mqadmin

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestTopicRoute: the route as indented JSON that decodes back; an unknown topic fails with the
// name server's code and remark.
func TestTopicRoute(t *testing.T) {
	cl := admintest.Start(t)
	cl.CreateTopic(t, "Route", 3)

	out := mustRunAdmin(t, "topicRoute", "-t", "Route", "-n", cl.NamesrvAddr)
	require.Contains(t, out, "\n\t\"brokerDatas\": [")
	route, err := body.DecodeTopicRouteData([]byte(out))
	require.NoError(t, err)
	require.Len(t, route.BrokerDatas, 1)
	require.Equal(t, admintest.Addr(cl.Brokers[0]), route.BrokerDatas[0].BrokerAddrs[0])
	require.Equal(t, []body.QueueData{{BrokerName: "broker-a", ReadQueueNums: 3, WriteQueueNums: 3, Perm: 6}}, route.QueueDatas)

	out, errOut, err := runAdmin(t, "topicRoute", "-t", "Nope", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Empty(t, out)
	require.Contains(t, errOut, "GET_ROUTEINFO_BY_TOPIC: TOPIC_NOT_EXIST (17): ")
	require.Contains(t, errOut, "Nope")
}

// TestTopicRouteList: -l (RocketMQ 5) prints one line per broker group in name order, a rule and
// the totals, in Java's columns.
func TestTopicRouteList(t *testing.T) {
	cl := admintest.Start(t, "broker-b", "broker-a")
	cl.CreateTopic(t, "Listed", 3)
	out := mustRunAdmin(t, "topicRoute", "-t", "Listed", "-l", "-n", cl.NamesrvAddr)
	const format = "%-45s %-32s %-50s %-10s %-11s %-5s"
	addrA, addrB := admintest.Addr(cl.Brokers[1]), admintest.Addr(cl.Brokers[0])
	require.Equal(t, []string{
		fmt.Sprintf(format, "#ClusterName", "#BrokerName", "#BrokerAddrs", "#ReadQueue", "#WriteQueue", "#Perm"),
		fmt.Sprintf(format, "DefaultCluster", "broker-a", "{0="+addrA+"}", "3", "3", "6"),
		fmt.Sprintf(format, "DefaultCluster", "broker-b", "{0="+addrB+"}", "3", "3", "6"),
		strings.Repeat("-", 158),
		fmt.Sprintf(format, "Total:", "2", "", "6", "6", ""),
	}, lines(out))
	out, errOut, err := runAdmin(t, "topicRoute", "-t", "Nope", "-l", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Empty(t, out)
	require.Contains(t, errOut, "GET_ROUTEINFO_BY_TOPIC: TOPIC_NOT_EXIST (17): ")
	require.Contains(t, errOut, "Nope")
}
