package mqadmin

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// brokerOffsets reads a broker's committed offsets (GET_ALL_CONSUMER_OFFSET).
func brokerOffsets(t *testing.T, b *brokertest.Broker) map[string]map[int32]int64 {
	t.Helper()
	resp := b.Dial(t).Call(protocol.NewRequest(protocol.GetAllConsumerOffset, nil, nil))
	require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	w, err := body.DecodeConsumerOffsetSerializeWrapper(resp.Body)
	require.NoError(t, err)
	return w.OffsetTable
}

// TestDeleteSubGroupOnBroker: -b removes the group from one broker; its offsets stay unless -r true.
func TestDeleteSubGroupOnBroker(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	addr := admintest.Addr(b)
	mustRunAdmin(t, "updateSubGroup", "-g", "Gone", "-b", addr)
	admintest.CommitOffset(t, b, "Gone", "SomeTopic", 0, 4)

	out := mustRunAdmin(t, "deleteSubGroup", "-g", "Gone", "-b", addr)
	require.Equal(t, []string{"delete subscription group [Gone] from broker [" + addr + "] success."}, lines(out))
	require.NotContains(t, brokerGroups(t, b), "Gone")
	require.Equal(t, map[int32]int64{0: 4}, brokerOffsets(t, b)["SomeTopic@Gone"])

	mustRunAdmin(t, "deleteSubGroup", "-g", "Gone", "-b", addr, "-r", "true")
	require.NotContains(t, brokerOffsets(t, b), "SomeTopic@Gone")

	_, errOut, err := runAdmin(t, "deleteSubGroup", "-g", "Gone")
	require.Error(t, err)
	require.Contains(t, errOut, "either -b brokerAddr or -c clusterName")
}

// TestDeleteSubGroupInCluster: -c removes the group from every master, with -r true its offsets,
// then its retry and dead-letter topics from the brokers and the name server.
func TestDeleteSubGroupInCluster(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	mustRunAdmin(t, "updateSubGroup", "-g", "Gone", "-c", admintest.ClusterName, "-n", cl.NamesrvAddr)
	cl.CreateTopic(t, "%RETRY%Gone", 1)
	cl.CreateTopic(t, "%DLQ%Gone", 1)
	for i, b := range cl.Brokers {
		admintest.CommitOffset(t, b, "Gone", "T"+strconv.Itoa(i), 0, 9)
		admintest.CommitOffset(t, b, "Kept", "T"+strconv.Itoa(i), 0, 1)
	}

	out := mustRunAdmin(t, "deleteSubGroup", "-g", "Gone", "-c", admintest.ClusterName, "-r", "true", "-n", cl.NamesrvAddr)
	require.ElementsMatch(t, []string{
		"delete subscription group [Gone] from broker [" + admintest.Addr(cl.Brokers[0]) + "] in cluster [DefaultCluster] success.",
		"delete subscription group [Gone] from broker [" + admintest.Addr(cl.Brokers[1]) + "] in cluster [DefaultCluster] success.",
		"delete topic [%RETRY%Gone] from cluster [DefaultCluster] success.",
		"delete topic [%RETRY%Gone] from NameServer success.",
		"delete topic [%DLQ%Gone] from cluster [DefaultCluster] success.",
		"delete topic [%DLQ%Gone] from NameServer success.",
	}, lines(out))
	cl.WaitNoRoute(t, "%RETRY%Gone")
	cl.WaitNoRoute(t, "%DLQ%Gone")
	for i, b := range cl.Brokers {
		require.NotContains(t, brokerGroups(t, b), "Gone", b.Opts.BrokerName)
		offs := brokerOffsets(t, b)
		require.NotContains(t, offs, "T"+strconv.Itoa(i)+"@Gone")
		require.Contains(t, offs, "T"+strconv.Itoa(i)+"@Kept")
	}
}
