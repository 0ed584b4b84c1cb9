package mqadmin

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// committed reads a group's committed offsets of a topic's queues from the broker.
func committed(t *testing.T, b *brokertest.Broker, group, topic string, queues int) []int64 {
	t.Helper()
	offs := brokerOffsets(t, b)[topic+"@"+group]
	out := make([]int64, queues)
	for q := range out {
		off, ok := offs[int32(q)]
		require.True(t, ok, "no committed offset of %s on %s/%d", group, topic, q)
		out[q] = off
	}
	return out
}

// sendOldAndNew stores two "old" then, well after, two "new" messages on each of two queues and
// returns a time nearer the first new message than any old one.
func sendOldAndNew(t *testing.T, b *brokertest.Broker, topic string) int64 {
	t.Helper()
	var lastOld int64
	for q := range int32(2) {
		for range 2 {
			admintest.Send(t, b, brokertest.Msg{Topic: topic, QueueID: q, Body: []byte("old")})
		}
		lastOld = max(lastOld, b.Store().MessageStoreTime(topic, q, 1))
	}
	require.Eventually(t, func() bool { return time.Now().UnixMilli() > lastOld+200 }, admintest.WaitFor, time.Millisecond)
	firstNew := int64(-1)
	for q := range int32(2) {
		for range 2 {
			admintest.Send(t, b, brokertest.Msg{Topic: topic, QueueID: q, Body: []byte("new")})
		}
		if ts := b.Store().MessageStoreTime(topic, q, 2); firstNew < 0 || ts < firstNew {
			firstNew = ts
		}
	}
	return firstNew - 1
}

// TestResetOffsetByTimeOnline: with a member online the brokers reset the offsets and tell it;
// the table lists the new offset of each queue.
func TestResetOffsetByTimeOnline(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Replay", 2)
	resetTo := sendOldAndNew(t, b, "Replay")
	for q := range int32(2) {
		admintest.CommitOffset(t, b, "Replayers", "Replay", q, 4)
	}
	member := admintest.Heartbeat(t, b, "10.0.0.9@replay", "Replayers", map[string]string{"Replay": "*"})

	ms := strconv.FormatInt(resetTo, 10)
	out := mustRunAdmin(t, "resetOffsetByTime", "-g", "Replayers", "-t", "Replay", "-s", ms, "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"rollback consumer offset by specified group[Replayers], topic[Replay], force[true], timestamp(string)[" + ms +
			"], timestamp(long)[" + ms + "]",
		"#brokerName                               #queueId                                  #offset",
		"broker-a                                  0                                         2",
		"broker-a                                  1                                         2",
	}, lines(out))
	require.Equal(t, []int64{2, 2}, committed(t, b, "Replayers", "Replay", 2))
	told := member.AwaitRequest(protocol.ResetConsumerClientOffset)
	require.Equal(t, ms, told.ExtFields.Get("timestamp"))
	require.Equal(t, "Replayers", told.ExtFields.Get("group"))

	// -f false never moves forward: "now" leaves 2 and 2.
	mustRunAdmin(t, "resetOffsetByTime", "-g", "Replayers", "-t", "Replay", "-s", "now", "-f", "false", "-n", cl.NamesrvAddr)
	require.Equal(t, []int64{2, 2}, committed(t, b, "Replayers", "Replay", 2))
	// Forced (the default), "now" goes to the end.
	out = mustRunAdmin(t, "resetOffsetByTime", "-g", "Replayers", "-t", "Replay", "-s", "now", "-n", cl.NamesrvAddr)
	require.Contains(t, lines(out)[0], "timestamp(string)[now], timestamp(long)[-1]")
	require.Equal(t, []int64{4, 4}, committed(t, b, "Replayers", "Replay", 2))
}

// TestResetOffsetByTimeOffline: with nobody of the group online the broker refuses
// (CONSUMER_NOT_ONLINE) and the tool commits the offsets itself, printing Java's rollback table.
func TestResetOffsetByTimeOffline(t *testing.T) {
	cl := admintest.Start(t, "broker-a", "broker-b")
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Offline", 2)
	resetTo := sendOldAndNew(t, b, "Offline")
	admintest.CommitOffset(t, b, "Sleepers", "Offline", 0, 4)
	admintest.CommitOffset(t, b, "Sleepers", "Offline", 1, 1)

	ms := strconv.FormatInt(resetTo, 10)
	out := mustRunAdmin(t, "resetOffsetByTime", "-g", "Sleepers", "-t", "Offline", "-s", ms, "-f", "false", "-n", cl.NamesrvAddr)
	require.Equal(t, []string{
		"rollback consumer offset by specified consumerGroup[Sleepers], topic[Offline], force[false], timestamp(string)[" + ms +
			"], timestamp(long)[" + ms + "]",
		"#brokerName           #queueId              #brokerOffset         #consumerOffset       #timestampOffset      #rollbackOffset",
		"broker-a              0                     4                     4                     2                     2",
		"broker-a              1                     4                     1                     2                     1",
		// broker-b: no progress of the group there, so every read queue from its min offset.
		"broker-b              0                     0                     0                     0                     0",
		"broker-b              1                     0                     0                     0                     0",
	}, lines(out))
	require.Equal(t, []int64{2, 1}, committed(t, b, "Sleepers", "Offline", 2), "not forced: queue 1 does not move forward")
	require.Equal(t, []int64{0, 0}, committed(t, cl.Brokers[1], "Sleepers", "Offline", 2))

	// A group without an offset on every queue is refused by the broker before it looks for
	// members, as in Java; there is no fallback for that.
	admintest.CommitOffset(t, b, "Newcomers", "Offline", 0, 0)
	_, errOut, err := runAdmin(t, "resetOffsetByTime", "-g", "Newcomers", "-t", "Offline", "-s", "now", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "The consumer group <Newcomers> not exist: it has no committed offset on queue 1")
}

// TestResetOffsetByTimeArguments: -s forms and bad input.
func TestResetOffsetByTimeArguments(t *testing.T) {
	loc := time.FixedZone("UTC+8", 8*3600)
	for in, want := range map[string]int64{
		"now":                     -1,
		"1700000000123":           1700000000123,
		"2023-11-15#06:13:20:123": time.Date(2023, 11, 15, 6, 13, 20, 123e6, loc).UnixMilli(),
	} {
		got, err := parseResetTime(in, loc)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"2023-11-15 06:13:20", "2023-11-15#06:13:20", "2023-11-15#06:13:20:12x", "2023-11-15#06:13:20:-12", "x:123"} {
		_, err := parseResetTime(in, loc)
		require.ErrorContains(t, err, "yyyy-MM-dd#HH:mm:ss:SSS", in)
	}

	cl := admintest.Start(t)
	_, errOut, err := runAdmin(t, "resetOffsetByTime", "-g", "G", "-t", "T", "-s", "yesterday", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, `timestamp "yesterday"`)
	_, errOut, err = runAdmin(t, "resetOffsetByTime", "-g", "G", "-t", "NoSuchTopic", "-s", "now", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "TOPIC_NOT_EXIST")
}
