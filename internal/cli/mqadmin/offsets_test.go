package mqadmin

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
)

// TestCloneGroupOffset: the destination group gets the source group's offsets of the topic; the
// source's offsets of other topics are not copied.
func TestCloneGroupOffset(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Cloned", 2)
	cl.CreateTopic(t, "Other", 1)
	for range 3 {
		admintest.Send(t, b, brokertest.Msg{Topic: "Cloned", QueueID: 0, Body: []byte("x")})
		admintest.Send(t, b, brokertest.Msg{Topic: "Cloned", QueueID: 1, Body: []byte("y")})
		admintest.Send(t, b, brokertest.Msg{Topic: "Other", QueueID: 0, Body: []byte("z")})
	}
	conn := admintest.Heartbeat(t, b, "10.0.0.1@1", "Src", map[string]string{"Cloned": "*", "Other": "*"})
	defer conn.Close()
	admintest.CommitOffset(t, b, "Src", "Cloned", 0, 3)
	admintest.CommitOffset(t, b, "Src", "Cloned", 1, 1)
	admintest.CommitOffset(t, b, "Src", "Other", 0, 2)
	cl.WaitRoute(t, "%RETRY%Src")

	out := mustRunAdmin(t, "cloneGroupOffset", "-s", "Src", "-d", "Dest", "-t", "Cloned", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{"clone group offset success. srcGroup[Src], destGroup=[Dest], topic[Cloned]"}, lines(out))
	require.Equal(t, []int64{3, 1}, committed(t, b, "Dest", "Cloned", 2))
	_, ok := brokerOffsets(t, b)["Other@Dest"]
	require.False(t, ok, "only the topic named is cloned")

	_, errOut, err := runAdmin(t, "cloneGroupOffset", "-s", "Nobody", "-d", "Dest", "-t", "Cloned", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "offset table is empty")
}

// TestSkipAccumulatedMessage: with a member online the brokers move the group to the end of each
// queue and the table lists the new offsets; offline, each queue is committed at its end and the
// rollback table says so.
func TestSkipAccumulatedMessage(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Backlog", 2)
	for range 4 {
		admintest.Send(t, b, brokertest.Msg{Topic: "Backlog", QueueID: 0, Body: []byte("x")})
	}
	admintest.Send(t, b, brokertest.Msg{Topic: "Backlog", QueueID: 1, Body: []byte("y")})
	admintest.CommitOffset(t, b, "Slow", "Backlog", 0, 1)
	admintest.CommitOffset(t, b, "Slow", "Backlog", 1, 0)

	member := admintest.Heartbeat(t, b, "10.0.0.9@slow", "Slow", map[string]string{"Backlog": "*"})
	out := mustRunAdmin(t, "skipAccumulatedMessage", "-g", "Slow", "-t", "Backlog", "-n", cl.NamesrvAddr)
	row := func(q, off int) string { return fmt.Sprintf("%-40s  %-40d  %-40d", "broker-a", q, off) }
	require.Equal(t, []string{fmt.Sprintf("%-40s  %-40s  %-40s", "#brokerName", "#queueId", "#offset"), row(0, 4), row(1, 1)}, lines(out))
	require.Equal(t, []int64{4, 1}, committed(t, b, "Slow", "Backlog", 2))
	member.Close()

	admintest.Send(t, b, brokertest.Msg{Topic: "Backlog", QueueID: 1, Body: []byte("z")})
	require.Eventually(t, func() bool {
		_, errOut, err := runAdmin(t, "consumerConnection", "-g", "Slow", "-n", cl.NamesrvAddr)
		return err != nil && len(errOut) > 0
	}, admintest.WaitFor, 10*time.Millisecond, "the member is still online")
	out = mustRunAdmin(t, "skipAccumulatedMessage", "-g", "Slow", "-t", "Backlog", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Equal(t, fmt.Sprintf("%-20s  %-20s  %-20s  %-20s  %-20s  %-20s", "#brokerName", "#queueId", "#brokerOffset",
		"#consumerOffset", "#timestampOffset", "#rollbackOffset"), ls[0])
	require.Equal(t, fmt.Sprintf("%-20s  %-20d  %-20d  %-20d  %-20d  %-20d", "broker-a", 1, 2, 1, 2, 2), ls[2])
	require.Equal(t, []int64{4, 2}, committed(t, b, "Slow", "Backlog", 2))
}
