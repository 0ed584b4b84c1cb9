package mqadmin

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
)

// TestBrokerStatus: "key: value" lines sorted by key; with -c for every broker of the cluster,
// prefixed by its address. An unreachable broker is an error.
func TestBrokerStatus(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	addr := admintest.Addr(cl.Brokers[0])

	out := mustRunAdmin(t, "brokerStatus", "-b", addr)
	ls := lines(out)
	require.Contains(t, ls, "brokerVersionDesc               : V4_9_8")
	requireLine(t, out, `^putTps                          : \S+ \S+ \S+$`)
	require.True(t, sort.StringsAreSorted(ls))
	for _, l := range ls {
		require.Regexp(t, `^\S+\s*: `, l)
	}

	out = mustRunAdmin(t, "brokerStatus", "-c", admintest.ClusterName, "-n", cl.NamesrvAddr)
	for _, b := range cl.Brokers {
		requireLine(t, out, `^`+regexp.QuoteMeta(admintest.Addr(b))+`\s+brokerVersionDesc\s+: V4_9_8$`)
	}
	require.Equal(t, 2*len(ls), len(lines(out)))

	_, errOut, err := runAdmin(t, "brokerStatus", "-b", "127.0.0.1:1", "--timeout", "2s")
	require.Error(t, err)
	require.True(t, strings.HasPrefix(errOut, "Error: 127.0.0.1:1 GET_BROKER_RUNTIME_INFO: "), errOut)

	_, errOut, err = runAdmin(t, "brokerStatus")
	require.Error(t, err)
	require.Contains(t, errOut, "either -b brokerAddr or -c clusterName")
}
