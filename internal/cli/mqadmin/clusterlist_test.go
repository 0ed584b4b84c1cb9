package mqadmin

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker"
)

// TestClusterList: one line per broker with its cluster, name, id, address, version and load.
func TestClusterList(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	out := mustRunAdmin(t, "clusterList", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Len(t, ls, 3, out)
	require.Regexp(t, `^#Cluster Name\s+#Broker Name\s+#BID\s+#Addr\s+#Version\s+#InTPS\(LOAD\)\s+#OutTPS\(LOAD\)\s+#PCWait\(ms\)\s+#Hour\s+#SPACE$`, ls[0])
	for i, b := range cl.Brokers {
		require.Regexp(t, `^DefaultCluster\s+`+b.Opts.BrokerName+`\s+0\s+`+regexp.QuoteMeta(admintest.Addr(b))+
			`\s+V4_9_8\s+\d+\.\d\d\(0,0ms\)\s+\d+\.\d\d\(0,0ms\)\s+\d+\s+\d+\.\d\d\s+\d\.\d{4}$`, ls[i+1])
	}

	out = mustRunAdmin(t, "clusterList", "-m", "-n", cl.NamesrvAddr)
	ls = lines(out)
	require.Len(t, ls, 3, out)
	require.Regexp(t, `^#Cluster Name\s+#Broker Name\s+#InTotalYest\s+#OutTotalYest\s+#InTotalToday\s+#OutTotalToday$`, ls[0])
	require.Regexp(t, `^DefaultCluster\s+broker-a\s+\d+\s+\d+\s+\d+\s+\d+$`, ls[1])
}

// TestClusterListLayout pins the columns to Java's printf widths (the expected lines were
// formatted with the same printf patterns by another printf implementation).
func TestClusterListLayout(t *testing.T) {
	now := time.UnixMilli(10 * 3600 * 1000)
	brokers := []admin.BrokerAddr{
		{Cluster: "C", BrokerName: "broker-a", BrokerID: 0, Addr: "10.0.0.1:10911"},
		{Cluster: "C", BrokerName: "broker-a", BrokerID: 1, Addr: "10.0.0.2:10911"},
	}
	stats := []map[string]string{{
		"brokerVersionDesc": "V4_9_8", "putTps": "1234.5 1000.0 900.0", "getTransferedTps": "12.25 10.0 9.0",
		"sendThreadPoolQueueSize": "3", "sendThreadPoolQueueHeadWaitTimeMills": "7",
		"pullThreadPoolQueueSize": "0", "pullThreadPoolQueueHeadWaitTimeMills": "0",
		"pageCacheLockTimeMills": "0", "earliestMessageTimeStamp": "1800000", "commitLogDiskRatio": "0.125",
	}, nil}
	var buf bytes.Buffer
	printClusterBase(&buf, brokers, stats, now)
	want := "" +
		"#Cluster Name     #Broker Name            #BID  #Addr                  #Version                #InTPS(LOAD)       #OutTPS(LOAD) #PCWait(ms) #Hour #SPACE\n" +
		"C                 broker-a                0     10.0.0.1:10911         V4_9_8                1234.50(3,7ms)        12.25(0,0ms)          0  9.50 0.1250\n" +
		"C                 broker-a                1     10.0.0.2:10911                                    0.00(,ms)           0.00(,ms)             0.00 0.0000\n"
	require.Equal(t, want, buf.String())
}

// syncBuffer is a buffer a command writes to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestClusterListClusterAndInterval: -c (RocketMQ 5) keeps one cluster's brokers; -i prints the
// table again every so many seconds until the command's context ends.
func TestClusterListClusterAndInterval(t *testing.T) {
	cl := admintest.Start(t, "broker-a")
	admintest.StartBroker(t, cl.NamesrvAddr, func(o *broker.Options) { o.ClusterName, o.BrokerName = "OtherCluster", "broker-o" })
	require.Eventually(t, func() bool { return len(cl.Namesrv.Routes().ClusterInfo().ClusterAddrTable) == 2 }, admintest.WaitFor, 10*time.Millisecond)
	ls := lines(mustRunAdmin(t, "clusterList", "-c", "OtherCluster", "-n", cl.NamesrvAddr))
	require.Len(t, ls, 2)
	require.Regexp(t, `^OtherCluster\s+broker-o\s+0\s`, ls[1])
	require.Len(t, lines(mustRunAdmin(t, "clusterList", "-n", cl.NamesrvAddr)), 3)
	require.Len(t, lines(mustRunAdmin(t, "clusterList", "-c", "NoSuch", "-n", cl.NamesrvAddr)), 1, "the header only, as Java")

	cmd := newRootCommand(testEnv(t))
	var out syncBuffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"clusterList", "-i", "0", "-m", "-n", cl.NamesrvAddr})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	require.Eventually(t, func() bool { return strings.Count(out.String(), "#Cluster Name") >= 3 }, admintest.WaitFor, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	require.Regexp(t, `DefaultCluster\s+broker-a\s+\d+`, out.String())
}
