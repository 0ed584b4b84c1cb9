package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/config"
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

// TestBrokerConfigTextIsTheEffectiveConfig: mqbroker hands the broker its effective broker.conf
// (what -p prints) for GET_BROKER_CONFIG.
func TestBrokerConfigTextIsTheEffectiveConfig(t *testing.T) {
	path := writeConf(t, "brokerName = broker-conf\nlistenPort = 10977\nbrokerPermission = 4\n")
	cfg, err := config.LoadBroker(path, nil, zap.NewNop())
	require.NoError(t, err)
	o, err := brokerOptions(cfg)
	require.NoError(t, err)
	require.NotNil(t, o.ConfigText)
	text := o.ConfigText()
	props, err := config.ParseProperties([]byte(text))
	require.NoError(t, err)
	require.Len(t, props, len(cfg.Fields()))
	kv := map[string]string{}
	for _, p := range props {
		kv[p.Key] = p.Value
	}
	require.Equal(t, "broker-conf", kv["brokerName"])
	require.Equal(t, "10977", kv["listenPort"])
	require.Equal(t, "4", kv["brokerPermission"])
	require.Equal(t, "ASYNC_FLUSH", kv["flushDiskType"])
}
