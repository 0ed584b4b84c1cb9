package mqadmin

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestBrokerConsumeStats: every group's queues on the broker that were consumed, with the lag,
// in 4.9's columns, then the broker's total; -l leaves out queues that lag less. The broker side
// (GET_BROKER_CONSUME_STATS, 317) is served from branch java2 on.
func TestBrokerConsumeStats(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	admintest.SkipUnlessServed(t, b, protocol.GetBrokerConsumeStats, &protocol.GetConsumeStatsInBrokerHeader{})
	cl.CreateTopic(t, "BCS", 2)
	for range 4 {
		admintest.Send(t, b, brokertest.Msg{Topic: "BCS", QueueID: 0, Body: []byte("x")})
	}
	admintest.Send(t, b, brokertest.Msg{Topic: "BCS", QueueID: 1, Body: []byte("y")})
	admintest.Heartbeat(t, b, "10.1.1.1@7", "BCSGroup", map[string]string{"BCS": "*"})
	admintest.CommitOffset(t, b, "BCSGroup", "BCS", 0, 1)
	admintest.CommitOffset(t, b, "BCSGroup", "BCS", 1, 0)
	consumed := b.Store().MessageStoreTime("BCS", 0, 0)

	out := mustRunAdmin(t, "brokerConsumeStats", "-b", admintest.Addr(b), "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Regexp(t, `^#Topic\s+#Group\s+#Broker Name\s+#QID\s+#Broker Offset\s+#Consumer Offset\s+#Diff\s+#LastTime$`, ls[0])
	line := regexp.MustCompile(`^BCS {61}  BCSGroup {56}  broker-a {24}  0     4 {19}  1 {19}  3 {19}  ` + dateTime(consumed) + `$`)
	requireLine(t, out, line.String())
	for _, l := range ls {
		require.NotRegexp(t, `^BCS\s+BCSGroup\s+broker-a\s+1\s`, l, "queue 1 was never consumed: no last time, not printed")
	}
	require.Equal(t, []string{"", "Diff Total: 4"}, ls[len(ls)-2:], "the broker's total counts queue 1 too")

	out = mustRunAdmin(t, "brokerConsumeStats", "-b", admintest.Addr(b), "-l", "4", "-n", cl.NamesrvAddr)
	require.NotContains(t, out, "BCSGroup", "a lag of 3 is under -l 4")
	out = mustRunAdmin(t, "brokerConsumeStats", "-b", admintest.Addr(b), "-o", "true", "-n", cl.NamesrvAddr)
	require.NotContains(t, out, "BCSGroup", "-o true: order topics only")

	_, errOut, err := runAdmin(t, "brokerConsumeStats", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `"brokerAddr" not set`)
}
