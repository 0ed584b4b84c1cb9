package mqadmin

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestStatsAll: one line per topic and consumer group with the group's lag, NO_CONSUMER for a
// topic nobody consumes, no retry topics; -t one topic; -a only topics with traffic. The
// throughput columns read VIEW_BROKER_STATS_DATA (315), served from branch java2 on: that part
// is skipped before it.
func TestStatsAll(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Busy", 1)
	cl.CreateTopic(t, "Loner", 1)
	cl.CreateTopic(t, "Quiet", 1)
	for range 3 {
		admintest.Send(t, b, brokertest.Msg{Topic: "Busy", QueueID: 0, Body: []byte("x")})
	}
	admintest.Send(t, b, brokertest.Msg{Topic: "Loner", QueueID: 0, Body: []byte("y")})
	admintest.Heartbeat(t, b, "10.1.1.1@7", "BusyGroup", map[string]string{"Busy": "*"})
	admintest.CommitOffset(t, b, "BusyGroup", "Busy", 0, 1)
	cl.WaitRoute(t, "%RETRY%BusyGroup")

	out := mustRunAdmin(t, "statsAll", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Equal(t, fmt.Sprintf("%-64s  %-64s %12s %11s %11s %14s %14s", "#Topic", "#Consumer Group", "#Accumulation",
		"#InTPS", "#OutTPS", "#InMsg24Hour", "#OutMsg24Hour"), ls[0])
	requireLine(t, out, `^Busy {60}  BusyGroup {55} {12}2 +\d+\.\d\d +\d+\.\d\d +\d+ +\d+$`)
	requireLine(t, out, `^Loner\s+0 +\d+\.\d\d +\d+ +NO_CONSUMER$`)
	requireLine(t, out, `^Quiet\s+0 +0\.00 +0 +NO_CONSUMER$`)
	require.NotContains(t, out, "%RETRY%")

	out = mustRunAdmin(t, "statsAll", "-t", "Busy", "-n", cl.NamesrvAddr)
	require.Len(t, lines(out), 2, out)
	require.Regexp(t, `^Busy\s+BusyGroup\s`, lines(out)[1])

	admintest.SkipUnlessServed(t, b, protocol.ViewBrokerStatsData,
		&protocol.ViewBrokerStatsDataRequestHeader{StatsName: admin.StatsTopicPutNums, StatsKey: "Busy"})
	c := admin.New(admin.Options{NamesrvAddrs: []string{cl.NamesrvAddr}}, nil)
	defer c.Close()
	pulled, err := c.Pull(context.Background(), admintest.Addr(b), "BusyGroup",
		body.MessageQueue{Topic: "Busy", BrokerName: "broker-a", QueueID: 0}, "*", 1, 32)
	require.NoError(t, err)
	require.Len(t, pulled.Msgs, 2)
	require.Eventually(t, func() bool {
		out = mustRunAdmin(t, "statsAll", "-n", cl.NamesrvAddr)
		return matchesLine(out, `^Busy\s+BusyGroup\s+2 +\d+\.\d\d +\d+\.\d\d +3 +2$`)
	}, admintest.WaitFor, 50*time.Millisecond, "3 stored and 2 pulled over the day:\n%s", out)
	requireLine(t, out, `^Loner\s+0 +\d+\.\d\d +1 +NO_CONSUMER$`)

	out = mustRunAdmin(t, "statsAll", "-a", "-n", cl.NamesrvAddr)
	requireLine(t, out, `^Busy\s+BusyGroup\s`)
	requireLine(t, out, `^Loner\s`)
	require.NotContains(t, out, "Quiet", "-a: a topic without traffic is left out")
}
