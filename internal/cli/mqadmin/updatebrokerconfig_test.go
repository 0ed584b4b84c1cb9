package mqadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
)

// TestUpdateBrokerConfig: -b, -c (masters) and -c -a (masters and slaves) send the key to each
// broker and print a line per broker that took it; a black-listed key is refused with the
// broker's NO_PERMISSION. (Keys that change a broker's configuration at run time are the broker's
// to accept: this test sets a key to the value it has, which every broker takes.)
func TestUpdateBrokerConfig(t *testing.T) {
	cl := admintest.Start(t)
	slave := admintest.StartSlave(t, cl.NamesrvAddr, "broker-a")
	master := admintest.Addr(cl.Brokers[0])
	cl.WaitBrokerIDs(t, "broker-a", 2)

	out := mustRunAdmin(t, "updateBrokerConfig", "-b", master, "-k", "brokerName", "-v", "broker-a")
	require.Equal(t, []string{"update broker config success, " + master}, lines(out))
	out = mustRunAdmin(t, "updateBrokerConfig", "-c", admintest.ClusterName, "-k", "brokerName", "-v", "broker-a", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"update broker config success, " + master}, lines(out))
	out = mustRunAdmin(t, "updateBrokerConfig", "-c", admintest.ClusterName, "-a", "true", "-k", "brokerName", "-v", "broker-a",
		"-n", cl.NamesrvAddr)
	require.Equal(t, []string{"update broker config success, " + master, "update broker config success, " + admintest.Addr(slave)},
		lines(out))

	_, errOut, err := runAdmin(t, "updateBrokerConfig", "-b", master, "-k", "brokerConfigPath", "-v", "/tmp/x")
	require.Error(t, err)
	require.Contains(t, errOut, "UPDATE_BROKER_CONFIG: NO_PERMISSION (16): Can not update config in black list.")
	_, errOut, err = runAdmin(t, "updateBrokerConfig", "-k", "a", "-v", "b")
	require.Error(t, err)
	require.Contains(t, errOut, "needs either -b brokerAddr or -c clusterName")
}
