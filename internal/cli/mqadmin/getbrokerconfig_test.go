package mqadmin

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker"
)

// TestGetBrokerConfig: -b prints the broker's configuration under a banner, "%-50s=  %s" per
// key, sorted, then a blank line; -c does so for every master of the cluster.
func TestGetBrokerConfig(t *testing.T) {
	cl := admintest.Start(t)
	text := "flushDiskType=ASYNC_FLUSH\nbrokerName=broker-x\n# a comment\nbrokerClusterName=DefaultCluster\n"
	x := admintest.StartBroker(t, cl.NamesrvAddr, func(o *broker.Options) {
		o.BrokerName = "broker-x"
		o.ConfigText = func() string { return text }
	})
	addr := admintest.Addr(x)

	out := mustRunAdmin(t, "getBrokerConfig", "-b", addr)
	require.Equal(t, "============"+addr+"============\n"+
		"brokerClusterName                                 =  DefaultCluster\n"+
		"brokerName                                        =  broker-x\n"+
		"flushDiskType                                     =  ASYNC_FLUSH\n"+
		"\n", out)

	out = mustRunAdmin(t, "getBrokerConfig", "-c", admintest.ClusterName, "-n", cl.NamesrvAddr)
	require.Contains(t, out, "============Master: "+addr+"============\nbrokerClusterName")
	a := admintest.Addr(cl.Brokers[0])
	require.Contains(t, out, "============Master: "+a+"============\n")
	require.Regexp(t, regexp.MustCompile(`(?m)^brokerName\s+=  broker-a$`), out)

	_, errOut, err := runAdmin(t, "getBrokerConfig", "-b", "127.0.0.1:1", "--timeout", "2s")
	require.Error(t, err)
	require.True(t, strings.HasPrefix(errOut, "Error: 127.0.0.1:1 GET_BROKER_CONFIG: "), errOut)
}
