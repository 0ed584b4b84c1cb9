package mqadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
)

// TestTopicList: every topic one a line; with -c each topic's cluster and consumer groups, retry
// topics left out.
func TestTopicList(t *testing.T) {
	cl := admintest.Start(t)
	cl.CreateTopic(t, "Shop", 2)
	admintest.Heartbeat(t, cl.Brokers[0], "10.0.0.9@1", "ShopGroup", map[string]string{"Shop": "*"})
	cl.WaitRoute(t, "%RETRY%ShopGroup")

	ls := lines(mustRunAdmin(t, "topicList", "-n", cl.NamesrvAddr))
	require.Contains(t, ls, "Shop")
	require.Contains(t, ls, "%RETRY%ShopGroup")
	require.Contains(t, ls, admintest.ClusterName)
	require.IsIncreasing(t, ls)

	out := mustRunAdmin(t, "topicList", "-c", "-n", cl.NamesrvAddr)
	require.Regexp(t, `^#Cluster Name\s+#Topic\s+#Consumer Group\s*$`, lines(out)[0])
	requireLine(t, out, `^DefaultCluster\s+Shop\s+ShopGroup\s*$`)
	requireLine(t, out, `^DefaultCluster\s+broker-a\s*$`)
	require.NotContains(t, out, "%RETRY%")
}
