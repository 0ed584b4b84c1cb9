package mqadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// brokerGroups reads a broker's consumer group table (GET_ALL_SUBSCRIPTIONGROUP_CONFIG).
func brokerGroups(t *testing.T, b *brokertest.Broker) map[string]body.SubscriptionGroupConfig {
	t.Helper()
	resp := b.Dial(t).Call(protocol.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil))
	require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	w, err := body.DecodeSubscriptionGroupWrapper(resp.Body)
	require.NoError(t, err)
	return w.SubscriptionGroupTable
}

// TestUpdateSubGroupInCluster: -c creates the group on every master with the config Java's tool
// sends (broadcast and from-min off unless asked).
func TestUpdateSubGroupInCluster(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	out := mustRunAdmin(t, "updateSubGroup", "-g", "OrderConsumers", "-c", admintest.ClusterName, "-n", cl.NamesrvAddr)
	require.ElementsMatch(t, []string{
		"create subscription group to " + admintest.Addr(cl.Brokers[0]) + " success.",
		"create subscription group to " + admintest.Addr(cl.Brokers[1]) + " success.",
		"SubscriptionGroupConfig [groupName=OrderConsumers, consumeEnable=true, consumeFromMinEnable=false, " +
			"consumeBroadcastEnable=false, retryQueueNums=1, retryMaxTimes=16, brokerId=0, whichBrokerWhenConsumeSlowly=1, " +
			"notifyConsumerIdsChangedEnable=true]",
	}, lines(out))
	want := body.NewSubscriptionGroupConfig("OrderConsumers")
	want.ConsumeBroadcastEnable, want.ConsumeFromMinEnable = false, false
	for _, b := range cl.Brokers {
		require.Equal(t, want, brokerGroups(t, b)["OrderConsumers"], b.Opts.BrokerName)
	}

	_, errOut, err := runAdmin(t, "updateSubGroup", "-g", "G", "-c", "NoSuchCluster", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `cluster "NoSuchCluster" not found`)
	_, errOut, err = runAdmin(t, "updateSubGroup", "-g", "G", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "either -b brokerAddr or -c clusterName")
}

// TestUpdateSubGroupOnBroker: -b with every option; a second run replaces the config.
func TestUpdateSubGroupOnBroker(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	addr := admintest.Addr(cl.Brokers[0])
	out := mustRunAdmin(t, "updateSubGroup", "-g", "Slow", "-b", addr, "-s", "false", "-m", "true", "-d", "TRUE",
		"-q", "3", "-r", "5", "-i", "1", "-w", "2", "-a", "false")
	require.Equal(t, []string{
		"create subscription group to " + addr + " success.",
		"SubscriptionGroupConfig [groupName=Slow, consumeEnable=false, consumeFromMinEnable=true, " +
			"consumeBroadcastEnable=true, retryQueueNums=3, retryMaxTimes=5, brokerId=1, whichBrokerWhenConsumeSlowly=2, " +
			"notifyConsumerIdsChangedEnable=false]",
	}, lines(out))
	want := body.NewSubscriptionGroupConfig("Slow")
	want.ConsumeEnable, want.ConsumeFromMinEnable, want.ConsumeBroadcastEnable = false, true, true
	want.RetryQueueNums, want.RetryMaxTimes, want.BrokerID, want.WhichBrokerWhenConsumeSlowly = 3, 5, 1, 2
	want.NotifyConsumerIdsChangedEnable = false
	require.Equal(t, want, brokerGroups(t, cl.Brokers[0])["Slow"])
	require.NotContains(t, brokerGroups(t, cl.Brokers[1]), "Slow", "only the broker named")

	mustRunAdmin(t, "updateSubGroup", "-g", "Slow", "-b", addr)
	require.True(t, brokerGroups(t, cl.Brokers[0])["Slow"].ConsumeEnable, "the whole config is replaced")
}
