package mqadmin

import (
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
