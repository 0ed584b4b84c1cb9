package pop

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
)

// notInMemory makes every stored message count as read from disk (the in-memory share of a
// one-byte machine is nothing), as on a broker whose queue's first message was paged out long ago.
func notInMemory(o *store.Options) { o.TotalMemory = 1 }

// TestInitModeMaxStartsAtTheQueueEnd: a group without an offset popping in MAX mode starts at the
// queue's last message (Java getInitOffset: "pop last one, then commit offset") and commits that
// offset, so what was stored before it joined is never delivered; what comes next is.
func TestInitModeMaxStartsAtTheQueueEnd(t *testing.T) {
	e := newEnvWith(t, notInMemory)
	e.createTopic("T", 1)
	e.send("T", 0, 5)
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 1000, InitMode: InitModeMax})
	require.Equal(t, outcome.OK, res.Status)
	require.Equal(t, []string{"T-4"}, bodiesOf(t, res), "only the last message stored before the group came")
	require.Equal(t, "0 0 4", res.StartOffsetInfo)
	res.Release()
	off, ok := e.offsets.Query("G", "T", 0)
	require.True(t, ok)
	require.Equal(t, int64(5), off)

	e.send("T", 0, 2) // T-0 and T-1 again, at offsets 5 and 6
	res = e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 1000, InitMode: InitModeMax})
	require.Equal(t, []string{"T-0", "T-1"}, bodiesOf(t, res), "messages after the start are all delivered")
	require.Equal(t, "0 0 5", res.StartOffsetInfo)
	res.Release()
}

// TestInitModeMaxOnAnEmptyQueue: a group joining an empty queue in MAX mode starts at 0 and gets
// the first message stored after it.
func TestInitModeMaxOnAnEmptyQueue(t *testing.T) {
	e := newEnvWith(t, notInMemory)
	e.createTopic("T", 1)
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 1000, InitMode: InitModeMax})
	require.Equal(t, outcome.PollingTimeout, res.Status)
	off, ok := e.offsets.Query("G", "T", 0)
	require.True(t, ok, "the init offset is committed")
	require.Equal(t, int64(0), off)
	e.send("T", 0, 1)
	res = e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 1000, InitMode: InitModeMax})
	require.Equal(t, []string{"T-0"}, bodiesOf(t, res))
	res.Release()
}

// TestInitModeMaxFromMemoryAndMin: with the queue's first message still in memory MAX mode starts
// at 0, as Java does with initPopOffsetByCheckMsgInMem (its default); MIN mode always starts at
// the queue's first message; a group that has an offset keeps it whatever the mode.
func TestInitModeMaxFromMemoryAndMin(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	e.send("T", 0, 3)
	res := e.pop(Request{Group: "GMax", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 1000, InitMode: InitModeMax})
	require.Equal(t, []string{"T-0", "T-1", "T-2"}, bodiesOf(t, res))
	res.Release()

	e2 := newEnvWith(t, notInMemory)
	e2.createTopic("T", 1)
	e2.send("T", 0, 3)
	res = e2.pop(Request{Group: "GMin", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 1000, InitMode: InitModeMin})
	require.Equal(t, []string{"T-0", "T-1", "T-2"}, bodiesOf(t, res))
	res.Release()

	e2.offsets.Commit("GHas", "T", 0, 1)
	res = e2.pop(Request{Group: "GHas", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 1000, InitMode: InitModeMax})
	require.Equal(t, []string{"T-1", "T-2"}, bodiesOf(t, res), "a committed offset wins over the init mode")
	res.Release()
}
