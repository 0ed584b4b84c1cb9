package mqadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestDeleteTopic: the topic leaves every broker of the cluster and the name server.
func TestDeleteTopic(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Gone", 2)
	admintest.Send(t, cl.Brokers[0], brokertest.Msg{Topic: "Gone", Body: []byte("x")})

	out := mustRunAdmin(t, "deleteTopic", "-t", "Gone", "-c", admintest.ClusterName, "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"delete topic [Gone] from cluster [DefaultCluster] success.",
		"delete topic [Gone] from NameServer success.",
	}, lines(out))
	cl.WaitNoRoute(t, "Gone")
	for _, b := range cl.Brokers {
		resp := b.Dial(t).Call(protocol.NewRequest(protocol.GetTopicStatsInfo, map[string]string{"topic": "Gone"}, nil))
		require.Equal(t, protocol.TopicNotExist, resp.ResponseCode(), "%s still has the topic", b.Opts.BrokerName)
	}

	_, errOut, err := runAdmin(t, "deleteTopic", "-t", "Gone", "-c", "NoSuchCluster", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `cluster "NoSuchCluster" not found`)
}
