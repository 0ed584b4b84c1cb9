package pop

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestHeldPollsAreBoundedPerConnection: a connection holds at most MaxPollingPerConnection POPs
// and NOTIFICATIONs; beyond it they are answered POLLING_FULL, other connections still hold, and
// a closed connection's holds are dropped without an answer.
func TestHeldPollsAreBoundedPerConnection(t *testing.T) {
	e := newEnv(t)
	e.svc.polls.perConn = 2
	e.createTopic("T", 1)
	woken := make(chan uint64, 8)
	pop := func(conn uint64) (Result, bool) {
		res, held, err := e.svc.Pop(Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: 1, InvisibleTime: 60000,
			PollTime: 20000, ConnID: conn}, func(Result, error) { woken <- conn })
		require.NoError(t, err)
		return res, held
	}
	for range 2 {
		_, held := pop(7)
		require.True(t, held)
	}
	res, held := pop(7)
	require.False(t, held)
	require.Equal(t, outcome.PollingFull, res.Status)
	note, held, err := e.svc.Notification(NotifyRequest{Group: "G", Topic: "T", QueueID: -1, PollTime: 20000, ConnID: 7},
		func(NotifyResult) { woken <- 7 })
	require.NoError(t, err)
	require.False(t, held)
	require.True(t, note.PollingFull)
	_, held = pop(8)
	require.True(t, held, "another connection is not bound by the first one's holds")
	require.Equal(t, 2, e.svc.polls.heldBy(7))

	e.svc.ConnClosed(7)
	require.Equal(t, 0, e.svc.polls.heldBy(7))
	require.Equal(t, int64(1), e.svc.polls.count.Load())
	_, held = pop(7)
	require.True(t, held, "the closed connection's holds no longer count")
	e.svc.Stop()
	got := map[uint64]int{}
	for len(woken) > 0 {
		got[<-woken]++
	}
	require.Equal(t, map[uint64]int{8: 1, 7: 1}, got, "only the holds still held are answered at stop")
}

// TestHeldPollTimeIsCapped: a POP asking to be held an hour, born an hour ahead of the broker's
// clock, is answered POLLING_TIMEOUT after MaxPollTime.
func TestHeldPollTimeIsCapped(t *testing.T) {
	e := newEnv(t)
	e.svc.opts.MaxPollTime = 50 * time.Millisecond
	e.svc.polls.maxWait = 50
	e.createTopic("T", 1)
	done := make(chan Result, 1)
	_, held, err := e.svc.Pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 1, InvisibleTime: 60000,
		PollTime: time.Hour.Milliseconds(), BornTime: e.clock.Add(time.Hour).UnixMilli(), ConnID: 1},
		func(res Result, _ error) { done <- res })
	require.NoError(t, err)
	require.True(t, held)
	select {
	case res := <-done:
		require.Equal(t, outcome.PollingTimeout, res.Status)
	case <-time.After(10 * time.Second):
		t.Fatal("a pop asking an hour was still held after 10 s")
	}
}

// TestNamesFromTheWireAreChecked: topics, groups and attempt ids that are not valid names are
// refused by every POP entry point before they reach a table or the revive log.
func TestNamesFromTheWireAreChecked(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	bad := []struct{ group, topic string }{{"G", "T\n"}, {"G", ""}, {"G", strings.Repeat("t", 128)},
		{"", "T"}, {"G/../x", "T"}, {strings.Repeat("g", 256), "T"}}
	isNameErr := func(err error) bool {
		return outcome.Is(err, outcome.TopicNotExist) || outcome.Is(err, outcome.GroupNotExist)
	}
	for _, b := range bad {
		_, _, err := e.svc.Pop(Request{Group: b.group, Topic: b.topic, QueueID: -1, MaxMsgNums: 1, InvisibleTime: 1000}, nil)
		require.True(t, isNameErr(err), "pop %q/%q: %v", b.group, b.topic, err)
		_, err = e.svc.Peek(PeekRequest{Group: b.group, Topic: b.topic, QueueID: -1, MaxMsgNums: 1})
		require.True(t, isNameErr(err), "peek: %v", err)
		_, _, err = e.svc.Notification(NotifyRequest{Group: b.group, Topic: b.topic, QueueID: -1}, nil)
		require.True(t, isNameErr(err), "notification: %v", err)
		_, err = e.svc.PollingInfo(b.group, b.topic, -1, 0)
		require.True(t, isNameErr(err), "polling info: %v", err)
		ack := AckRequest{Group: b.group, Topic: b.topic, QueueID: 0, ExtraInfo: "0 1 1000 0 0 broker-a 0 0", Offset: 0}
		require.True(t, isNameErr(e.svc.Ack(ack)), "ack")
		_, err = e.svc.ChangeInvisibleTime(ChangeRequest{AckRequest: ack, InvisibleTime: 1000})
		require.True(t, isNameErr(err), "change: %v", err)
		err = e.svc.BatchAck([]body.BatchAck{{ConsumerGroup: "G", Topic: "T"}, {ConsumerGroup: b.group, Topic: b.topic}})
		require.True(t, isNameErr(err), "batch ack: %v", err)
	}
	_, _, err := e.svc.Pop(Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: 1, InvisibleTime: 1000, Order: true,
		AttemptID: "an attempt"}, nil)
	require.True(t, outcome.Is(err, outcome.InvalidParameter), "%v", err)
	_, _, err = e.svc.Notification(NotifyRequest{Group: "G", Topic: "T", QueueID: -1, AttemptID: strings.Repeat("a", 256)}, nil)
	require.True(t, outcome.Is(err, outcome.InvalidParameter), "%v", err)
	// The remark shows a bad extra info quoted and cut.
	err = e.svc.Ack(AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: strings.Repeat("\x01", 1000), Offset: 0})
	require.Error(t, err)
	require.Less(t, len(err.Error()), 600)
	require.NotContains(t, err.Error(), "\x01")
}

// TestHeldPopPanicIsRecovered: a held POP runs again on a goroutine of the service, outside the
// request that held it; a panic there (here the adapter's answer panics) is logged and the
// broker goes on serving.
func TestHeldPopPanicIsRecovered(t *testing.T) {
	e := newEnv(t)
	core, logs := observer.New(zap.ErrorLevel)
	e.svc.lg = zap.New(core)
	e.createTopic("T", 1)
	_, held, err := e.svc.Pop(Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: 1, InvisibleTime: 60000,
		PollTime: 20000, ConnID: 3}, func(Result, error) { panic("answer failed") })
	require.NoError(t, err)
	require.True(t, held)
	e.send("T", 0, 1)
	e.svc.Notify("T", 0)
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("panicked").Len() == 1 }, 5*time.Second, time.Millisecond)
	res := e.pop(Request{Group: "G2", Topic: "T", QueueID: -1, MaxMsgNums: 1, InvisibleTime: 60000})
	require.Equal(t, outcome.OK, res.Status, "the service still serves after the panic")
	res.Release()
}

// TestChangeNeedsAnOutstandingMessage: CHANGE_MESSAGE_INVISIBLETIME of an offset no checkpoint
// holds (never popped, already acknowledged) is refused and writes no checkpoint, so that changes
// cannot fill the table (MaxOutstanding, then SYSTEM_BUSY for every POP); a change of a popped
// message replaces its checkpoint by one, and a change of the changed message works again.
func TestChangeNeedsAnOutstandingMessage(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	e.send("T", 0, 3)
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 1, InvisibleTime: 60000})
	require.Equal(t, outcome.OK, res.Status)
	res.Release()
	require.Equal(t, 1, e.svc.Outstanding())
	for off := int64(1); off < 3; off++ { // in the queue, never popped
		_, err := e.svc.ChangeInvisibleTime(ChangeRequest{InvisibleTime: 1e12,
			AckRequest: AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extraOf(res, 0, 0), Offset: off}})
		require.True(t, outcome.Is(err, outcome.NoMessage), "%v", err)
	}
	require.Equal(t, 1, e.svc.Outstanding(), "a refused change writes no checkpoint")

	e.advance(time.Millisecond)
	ch, err := e.svc.ChangeInvisibleTime(ChangeRequest{InvisibleTime: 30000,
		AckRequest: AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extraOf(res, 0, 0), Offset: 0}})
	require.NoError(t, err)
	require.Equal(t, 1, e.svc.Outstanding(), "the change replaced the checkpoint")
	_, err = e.svc.ChangeInvisibleTime(ChangeRequest{InvisibleTime: 30000,
		AckRequest: AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extraOf(res, 0, 0), Offset: 0}})
	require.True(t, outcome.Is(err, outcome.NoMessage), "the old checkpoint no longer holds it: %v", err)
	moved := Result{PopTime: ch.PopTime, InvisibleTime: ch.InvisibleTime, ReviveQid: ch.ReviveQid}
	e.advance(time.Millisecond)
	_, err = e.svc.ChangeInvisibleTime(ChangeRequest{InvisibleTime: 30000,
		AckRequest: AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extraOf(moved, 0, 0), Offset: 0}})
	require.NoError(t, err, "the changed message changes again under its new checkpoint")
	require.Equal(t, 1, e.svc.Outstanding())
}

// TestOrderlyChangeOnlyOfPoppedOffsets: an orderly change of an offset the queue's last pop did
// not hand out records nothing (before, each such request added an entry to the order info and
// to consumerOrderInfo.json).
func TestOrderlyChangeOnlyOfPoppedOffsets(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	e.send("T", 0, 50)
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 1, InvisibleTime: 60000, Order: true})
	require.Equal(t, outcome.OK, res.Status)
	res.Release()
	extra := protocol.ExtraInfo{CkQueueOffset: 0, PopTime: res.PopTime, InvisibleTime: res.InvisibleTime,
		ReviveQid: OrderReviveQid, Retry: '0', BrokerName: "broker-a", QueueID: 0}.String()
	for off := int64(0); off < 50; off++ {
		_, err := e.svc.ChangeInvisibleTime(ChangeRequest{InvisibleTime: 1000,
			AckRequest: AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extra, Offset: off}})
		require.NoError(t, err)
	}
	info := e.svc.orders.get("T", "G", 0)
	require.Len(t, info.NextVisibleTimes, 1, "only the popped offset 0: %v", info.NextVisibleTimes)
	require.Contains(t, info.NextVisibleTimes, int64(0))
}

// TestBatchAckEntriesAreBounded: a BATCH_ACK_MESSAGE of more than MaxBatchAcks entries is refused
// with a remark before any is settled.
func TestBatchAckEntriesAreBounded(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	acks := make([]body.BatchAck, MaxBatchAcks+1)
	for i := range acks {
		acks[i] = body.BatchAck{ConsumerGroup: "G", Topic: "T", BitSet: body.NewBitSet(0)}
	}
	err := e.svc.BatchAck(acks)
	require.True(t, outcome.Is(err, outcome.InvalidParameter), "%v", err)
	require.Contains(t, err.Error(), "more than 1024")
	require.NoError(t, e.svc.BatchAck(acks[:MaxBatchAcks]))
}
