package pop

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

func bodiesOf(t testing.TB, res Result) []string {
	var out []string
	for _, rec := range res.Records {
		v, err := message.Parse(rec)
		require.NoError(t, err)
		out = append(out, string(v.Body()))
	}
	return out
}

func extraOf(res Result, q int32, off int64) string {
	return protocol.ExtraInfo{CkQueueOffset: off, PopTime: res.PopTime, InvisibleTime: res.InvisibleTime,
		ReviveQid: res.ReviveQid, Retry: '0', BrokerName: "broker-a", QueueID: q}.String()
}

// TestPopCommitsItsOffsetAndCheckpoint: a pop moves the group's offset past what it took and
// leaves one checkpoint; the revive queue's committed offset stays at the checkpoint until it is
// settled.
func TestPopCommitsItsOffsetAndCheckpoint(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	e.send("T", 0, 5)
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 3, InvisibleTime: 1000})
	require.Equal(t, outcome.OK, res.Status)
	require.Equal(t, []string{"T-0", "T-1", "T-2"}, bodiesOf(t, res))
	require.Equal(t, "0 0 0", res.StartOffsetInfo)
	require.Equal(t, "0 0 0,1,2", res.MsgOffsetInfo)
	require.Equal(t, int64(2), res.RestNum)
	res.Release()
	off, _ := e.offsets.Query("G", "T", 0)
	require.Equal(t, int64(3), off)
	require.Equal(t, 1, e.svc.Outstanding())
	require.Equal(t, map[int32]int64{0: 3}, e.svc.InFlight("T", "G"))
	require.Nil(t, e.svc.InFlight("T", "G2"), "another group popped nothing")

	e.svc.commitReviveOffsets()
	committed, ok := e.offsets.Query(systopic.ReviveGroup, e.svc.ReviveTopic(), res.ReviveQid)
	require.True(t, ok)
	require.Equal(t, int64(0), committed, "the checkpoint at 0 is not settled")
	for _, o := range []int64{0, 1, 2} {
		require.NoError(t, e.svc.Ack(AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extraOf(res, 0, 0), Offset: o}))
		if o == 0 {
			require.Equal(t, map[int32]int64{0: 2}, e.svc.InFlight("T", "G"), "an ack settles one")
		}
	}
	require.Zero(t, e.svc.Outstanding())
	require.Nil(t, e.svc.InFlight("T", "G"))
	// The checkpoint and the three acks are four revive records; wait until the store's dispatch
	// has them all in the revive queue (it runs behind the puts).
	require.Eventually(t, func() bool { return e.st.MaxOffsetInQueue(e.svc.ReviveTopic(), res.ReviveQid) == 4 },
		5*time.Second, time.Millisecond)
	e.svc.commitReviveOffsets()
	committed, _ = e.offsets.Query(systopic.ReviveGroup, e.svc.ReviveTopic(), res.ReviveQid)
	require.Equal(t, int64(4), committed, "settled: past every record")
}

// TestReviveRewritesAndDeadLetters: a message not acknowledged in time is stored in the retry
// topic with reconsumeTimes+1 and 1ST_POP_TIME, popped from there under the original topic with
// a POP_CK naming the retry topic; past retryMaxTimes it goes to the DLQ.
func TestReviveRewritesAndDeadLetters(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	e.send("T", 0, 1)
	first := e.pop(Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: 1, InvisibleTime: 1000})
	first.Release()
	e.advance(2 * time.Second)
	e.svc.reviveDue()
	require.Zero(t, e.svc.Outstanding())
	retry := systopic.PopRetry("G", "T")
	e.waitQueue(retry, 0, 1)

	require.Nil(t, e.svc.InFlight("T", "G"), "revived: no longer in flight")
	again := e.pop(Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: 1, InvisibleTime: 1000})
	require.Len(t, again.Records, 1)
	require.Equal(t, map[int32]int64{0: 1}, e.svc.InFlight(retry, "G"), "in flight from the retry topic")
	require.Equal(t, retry, RetryTopic("G", "T"))
	v, err := message.Parse(again.Records[0])
	require.NoError(t, err)
	require.Equal(t, "T", string(v.Topic()), "rewritten under the original topic")
	require.Equal(t, int32(1), v.ReconsumeTimes())
	ck, ok := v.Property(message.PropertyPopCK)
	require.True(t, ok)
	require.True(t, strings.Contains(string(ck), " 1 broker-a 0 0"), "POP_CK %q names the retry topic's queue 0 offset 0", ck)
	fp, _ := v.Property(message.PropertyFirstPopTime)
	require.Equal(t, "1700000000000", string(fp))
	again.Release()

	for i := range int64(16) {
		e.advance(2 * time.Second)
		e.svc.reviveDue()
		if i < 15 {
			e.waitQueue(retry, 0, i+2)
		}
		if r := e.pop(Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: 1, InvisibleTime: 1000}); r.Release != nil {
			r.Release()
		}
	}
	e.waitQueue(systopic.DLQ("G"), 0, 1) // reconsumed 16 times: the DLQ
	require.Equal(t, int64(16), e.st.MaxOffsetInQueue(retry, 0), "15 revives to the retry topic before")
}

// TestRecoveryRebuildsTableAndOffsets: after a restart the outstanding checkpoint is back with
// its acks applied, and the pop offset is at least what the checkpoints prove even when the
// consumer offsets on disk are older.
func TestRecoveryRebuildsTableAndOffsets(t *testing.T) {
	e := newEnv(t)
	e.createTopic("T", 1)
	e.send("T", 0, 4)
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 4, InvisibleTime: 5000})
	res.Release()
	require.NoError(t, e.svc.Ack(AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extraOf(res, 0, 0), Offset: 1}))
	e.offsets.Commit("G", "T", 0, 0) // as if consumerOffset.json were older than the log
	e.restart()
	require.Equal(t, 1, e.svc.Outstanding())
	off, _ := e.offsets.Query("G", "T", 0)
	require.Equal(t, int64(4), off, "raised to the checkpoint's next offset")
	e.advance(6 * time.Second)
	e.svc.reviveDue()
	e.waitQueue(systopic.PopRetry("G", "T"), 0, 3) // the three unacknowledged revived
	require.Zero(t, e.svc.Outstanding())
}

// TestRecordRoundTrip: every kind survives its codec; bodies that are not records are refused.
func TestRecordRoundTrip(t *testing.T) {
	k := key{topic: "%RETRY%G_T", group: "G", queueID: 3, start: 1 << 40, popTime: 1_700_000_000_000}
	for _, r := range []record{
		{kind: kindCheckpoint, key: k, invisibleTime: 60000, nextOffset: 1<<40 + 9, offsets: []int64{1 << 40, 1<<40 + 2, 1<<40 + 8}},
		{kind: kindAck, key: k, offsets: []int64{1<<40 + 2}},
		{kind: kindRevived, key: k, offsets: []int64{1 << 40, 1<<40 + 8}},
	} {
		b, ok := appendRecord(nil, &r)
		require.True(t, ok)
		back, err := parseRecord(b)
		require.NoError(t, err)
		require.Equal(t, r, back)
		for n := range len(b) {
			if _, err := parseRecord(b[:n]); err == nil {
				t.Fatalf("kind %d cut to %d bytes parsed", r.kind, n)
			}
		}
	}
	_, ok := appendRecord(nil, &record{kind: kindAck, key: k, offsets: []int64{k.start - 1}})
	require.False(t, ok, "an offset before the checkpoint's start")
	_, ok = appendRecord(nil, &record{kind: kindCheckpoint, key: k, offsets: make([]int64, 33)})
	require.False(t, ok, "more than 32 messages")
}

func FuzzParseRecord(f *testing.F) {
	b, _ := appendRecord(nil, &record{kind: kindCheckpoint, key: key{topic: "T", group: "G", start: 5}, offsets: []int64{5, 6}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRecord(b)
		if err != nil {
			return
		}
		out, ok := appendRecord(nil, &r)
		if !ok {
			return
		}
		back, err := parseRecord(out)
		require.NoError(t, err)
		require.Equal(t, r, back)
	})
}

// TestOutstandingBound: past MaxOutstanding checkpoints a pop is refused SYSTEM_BUSY until an
// ack settles one.
func TestOutstandingBound(t *testing.T) {
	e := newEnv(t)
	e.svc.opts.MaxOutstanding = 1
	e.createTopic("T", 1)
	e.send("T", 0, 3)
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 1, InvisibleTime: 60000})
	res.Release()
	_, _, err := e.svc.Pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 1, InvisibleTime: 60000}, nil)
	require.True(t, outcome.Is(err, outcome.SystemBusy), "%v", err)
	require.NoError(t, e.svc.Ack(AckRequest{Group: "G", Topic: "T", QueueID: 0, ExtraInfo: extraOf(res, 0, 0), Offset: 0}))
	again := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 1, InvisibleTime: 60000})
	require.Equal(t, []string{"T-1"}, bodiesOf(t, again))
	again.Release()
}
