package mqadmin

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// topicsOf counts the topics whose route on the name server lists brokerName, and returns the
// perm of its queues of topic.
func topicsOf(t *testing.T, cl *admintest.Cluster, brokerName, topic string) (count, perm int) {
	t.Helper()
	for _, tp := range cl.Namesrv.Routes().Topics() {
		route, ok := cl.Namesrv.Routes().TopicRoute(tp)
		if !ok {
			continue
		}
		for _, q := range route.QueueDatas {
			if q.BrokerName == brokerName {
				count++
				if tp == topic {
					perm = q.Perm
				}
			}
		}
	}
	return count, perm
}

// TestWipeAndAddWritePerm: wipeWritePerm drains a broker group on every name server of -n (its
// queues lose write in the routes, the other group keeps it), one line per name server with the
// topic count; addWritePerm restores it. A name server that cannot be reached is reported Failed
// and makes the command fail after the others.
func TestWipeAndAddWritePerm(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	cl.CreateTopic(t, "Drain", 2)
	n, perm := topicsOf(t, cl, "broker-a", "Drain")
	require.Equal(t, body.PermRead|body.PermWrite, perm)

	out := mustRunAdmin(t, "wipeWritePerm", "-b", "broker-a", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{fmt.Sprintf("wipe write perm of broker[broker-a] in name server[%s] OK, %d", cl.NamesrvAddr, n)}, lines(out))
	_, perm = topicsOf(t, cl, "broker-a", "Drain")
	require.Equal(t, body.PermRead, perm)
	_, perm = topicsOf(t, cl, "broker-b", "Drain")
	require.Equal(t, body.PermRead|body.PermWrite, perm)
	out = mustRunAdmin(t, "topicRoute", "-t", "Drain", "-l", "-n", cl.NamesrvAddr)
	requireLine(t, out, `^DefaultCluster\s+broker-a\s+\{0=\S+\}\s+2\s+2\s+4\s*$`)

	out = mustRunAdmin(t, "addWritePerm", "-b", "broker-a", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{fmt.Sprintf("add write perm of broker[broker-a] in name server[%s] OK, %d", cl.NamesrvAddr, n)}, lines(out))
	_, perm = topicsOf(t, cl, "broker-a", "Drain")
	require.Equal(t, body.PermRead|body.PermWrite, perm)

	out, errOut, err := runAdmin(t, "wipeWritePerm", "-b", "broker-b", "-n", "127.0.0.1:1;"+cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "127.0.0.1:1")
	nb, _ := topicsOf(t, cl, "broker-b", "Drain")
	require.Equal(t, []string{
		"wipe write perm of broker[broker-b] in name server[127.0.0.1:1] Failed",
		fmt.Sprintf("wipe write perm of broker[broker-b] in name server[%s] OK, %d", cl.NamesrvAddr, nb),
	}, lines(out))
	_, errOut, err = runAdmin(t, "addWritePerm", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `required flag(s) "brokerName" not set`)
}

// TestNamesrvConfigCommands: getNamesrvConfig prints each key as Java does; updateNamesrvConfig
// changes a run-time key on every name server, and is refused for the black list and for keys
// fixed at start.
func TestNamesrvConfigCommands(t *testing.T) {
	cl := admintest.Start(t)
	out := mustRunAdmin(t, "getNamesrvConfig", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Equal(t, "============"+cl.NamesrvAddr+"============", ls[0])
	require.Contains(t, ls, fmt.Sprintf("%-50s=  %s", "orderMessageEnable", "false"))
	require.Contains(t, ls, fmt.Sprintf("%-50s=  %s", "waitSecondsForService", "45"))

	out = mustRunAdmin(t, "updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"update name server config success![" + cl.NamesrvAddr + "]", "orderMessageEnable : true"}, lines(out))
	require.Contains(t, lines(mustRunAdmin(t, "getNamesrvConfig", "-n", cl.NamesrvAddr)),
		fmt.Sprintf("%-50s=  %s", "orderMessageEnable", "true"))

	t.Setenv("NAMESRV_ADDR", cl.NamesrvAddr)
	out = mustRunAdmin(t, "updateNamesrvConfig", "-k", "waitSecondsForService", "-v", "3")
	require.Equal(t, []string{"update name server config success!", "waitSecondsForService : 3"}, lines(out))

	for key, want := range map[string]string{
		"kvConfigPath":    "NO_PERMISSION (16): Can not update config in black list.",
		"configStorePath": "NO_PERMISSION (16): Can not update config in black list.",
		"listenPort":      "listenPort cannot change at run time",
	} {
		_, errOut, err := runAdmin(t, "updateNamesrvConfig", "-k", key, "-v", "/tmp/x")
		require.Error(t, err, key)
		require.Contains(t, errOut, want, key)
	}
}

// TestKvConfigCommands: updateKvConfig and deleteKvConfig write to every name server;
// updateOrderConf puts, gets and deletes a topic's layout, which routes then carry.
func TestKvConfigCommands(t *testing.T) {
	cl := admintest.Start(t)
	other := admintest.StartNamesrv(t)
	both := cl.NamesrvAddr + ";" + other.Addr().String()
	out := mustRunAdmin(t, "updateKvConfig", "-s", "ns", "-k", "key", "-v", "value 1", "-n", both)
	require.Equal(t, []string{"create or update kv config to namespace success."}, lines(out))
	for _, kv := range []interface {
		Get(string, string) (string, bool)
	}{cl.Namesrv.KV(), other.KV()} {
		v, ok := kv.Get("ns", "key")
		require.True(t, ok)
		require.Equal(t, "value 1", v)
	}
	out = mustRunAdmin(t, "deleteKvConfig", "-s", "ns", "-k", "key", "-n", both)
	require.Equal(t, []string{"delete kv config from namespace success."}, lines(out))
	_, ok := other.KV().Get("ns", "key")
	require.False(t, ok)

	mustRunAdmin(t, "updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true", "-n", cl.NamesrvAddr)
	cl.CreateTopic(t, "Ordered", 4)
	out = mustRunAdmin(t, "updateOrderConf", "-t", "Ordered", "-m", "put", "-v", "broker-a:4", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"update orderConf success. topic=[Ordered], orderConf=[broker-a:4]"}, lines(out))
	out = mustRunAdmin(t, "updateOrderConf", "-t", "Ordered", "-m", "get", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"get orderConf success. topic=[Ordered], orderConf=[broker-a:4]"}, lines(out))
	requireLine(t, mustRunAdmin(t, "topicRoute", "-t", "Ordered", "-n", cl.NamesrvAddr), `^\s+"orderTopicConf": "broker-a:4",$`)
	out = mustRunAdmin(t, "updateOrderConf", "-t", "Ordered", "-m", "delete", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"delete orderConf success. topic=[Ordered]"}, lines(out))
	_, errOut, err := runAdmin(t, "updateOrderConf", "-t", "Ordered", "-m", "get", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "no order conf for topic Ordered")
	_, errOut, err = runAdmin(t, "updateOrderConf", "-t", "Ordered", "-m", "put", "-v", "broker-a", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "is not brokerName:queues")
	_, errOut, err = runAdmin(t, "updateOrderConf", "-t", "Ordered", "-m", "drop", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `-m "drop": want put, get or delete`)
}
