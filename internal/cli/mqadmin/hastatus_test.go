package mqadmin

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
)

// startReplicatedGroup runs a name server, a master of broker-a serving slaves on its HA address
// and a slave following it.
func startReplicatedGroup(t *testing.T) (cl *admintest.Cluster, master, slave *brokertest.Broker) {
	t.Helper()
	ns := admintest.StartNamesrv(t)
	cl = &admintest.Cluster{Namesrv: ns, NamesrvAddr: ns.Addr().String()}
	master = admintest.StartBroker(t, cl.NamesrvAddr, func(o *broker.Options) {
		o.BrokerName = "broker-a"
		o.HA.ListenAddr = o.HAServerAddr
	})
	cl.Brokers = []*brokertest.Broker{master}
	cl.WaitRegistered(t, 1)
	slave = admintest.StartSlave(t, cl.NamesrvAddr, "broker-a")
	cl.WaitBrokerIDs(t, "broker-a", 2)
	return cl, master, slave
}

// TestHAStatus: the master's slave table in Java's columns, with the slave's ack offset at the
// master's end after the sends; the slave's view of its master; -c lists the cluster's masters.
func TestHAStatus(t *testing.T) {
	cl, master, slave := startReplicatedGroup(t)
	cl.CreateTopic(t, "HA_T", 1)
	for i := range 10 {
		admintest.Send(t, master, brokertest.Msg{Topic: "HA_T", Body: []byte("m" + strconv.Itoa(i))})
	}
	end := master.Store().CommitLogMaxOffset()
	require.Eventually(t, func() bool { return slave.Store().CommitLogMaxOffset() == end }, admintest.WaitFor, 10*time.Millisecond)
	maddr := admintest.Addr(master)
	endText := strconv.FormatInt(end, 10)
	slaveRow := `^127\.0\.0\.1:\d+\s+` + endText + `\s+0\s+\d+\.\d\d\s+OK\s+` + endText + `$`
	var out string
	require.Eventually(t, func() bool {
		out = mustRunAdmin(t, "haStatus", "-b", maddr)
		return matchesLine(out, slaveRow)
	}, admintest.WaitFor, 50*time.Millisecond, "the slave's ack offset reaches the master's end")
	ls := lines(out)
	require.Equal(t, []string{"", "#MasterAddr\t" + maddr, "#MasterCommitLogMaxOffset\t" + endText, "#SlaveNum\t1",
		"#InSyncSlaveNum\t1"}, ls[:5])
	sp := func(n int) string { return strings.Repeat(" ", n) }
	// Java's "%-32s  %-16s %16s %16s %16s %16s".
	require.Equal(t, "#SlaveAddr"+sp(24)+"#SlaveAckOffset"+sp(13)+"#Diff #TransferSpeed(KB/s)"+sp(10)+"#Status #TransferFromWhere", ls[5])
	require.Len(t, ls, 7)

	out = mustRunAdmin(t, "haStatus", "-b", admintest.Addr(slave))
	ls = lines(out)
	require.Len(t, ls, 7)
	require.Equal(t, "", ls[0])
	require.Equal(t, "#MasterAddr\t"+master.Opts.HAServerAddr, ls[1])
	require.Equal(t, "#CommitLogMaxOffset\t"+endText, ls[2])
	require.Regexp(t, `^#TransferSpeed\(KB/s\)\t\d+\.\d\d$`, ls[3])
	today := time.Now().Format("2006-01-02")
	require.Regexp(t, `^#LastReadTime\t`+today+` \d\d:\d\d:\d\d,\d{3}$`, ls[4])
	require.Regexp(t, `^#LastWriteTime\t`+today+` \d\d:\d\d:\d\d,\d{3}$`, ls[5])
	require.Equal(t, "#MasterFlushOffset\t0", ls[6])

	// -c: the cluster's masters only, as Java's fetchMasterAddrByClusterName.
	out = mustRunAdmin(t, "haStatus", "-c", admintest.ClusterName, "-n", cl.NamesrvAddr)
	require.Equal(t, 1, strings.Count(out, "#MasterAddr\t"), out)
	requireLine(t, out, `^#MasterAddr\t`+regexp.QuoteMeta(maddr)+`$`)
	requireLine(t, out, slaveRow)

	_, errOut, err := runAdmin(t, "haStatus")
	require.Error(t, err)
	require.Contains(t, errOut, "-b brokerAddr or -c clusterName")
	_, errOut, err = runAdmin(t, "haStatus", "-c", "NoSuch", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `cluster "NoSuch" not found`)
}

// TestHAStatusInterval: -i prints again every so many seconds until interrupted.
func TestHAStatusInterval(t *testing.T) {
	cl := admintest.Start(t)
	cmd := newRootCommand(testEnv(t))
	var out syncBuffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"haStatus", "-b", admintest.Addr(cl.Brokers[0]), "-i", "1"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	require.Eventually(t, func() bool { return strings.Count(out.String(), "#SlaveNum\t0") >= 2 }, admintest.WaitFor, 20*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	requireLine(t, out.String(), `^#InSyncSlaveNum\t0$`)
}
