package pop

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// retried is a message popped from the retry topic: its body, reconsumeTimes and the ack that
// settles it.
type retried struct {
	body string
	rc   int32
	ack  AckRequest
}

// popRetried pops up to n messages of G's topic T and returns those from the retry topic.
func (e *env) popRetried(n int32) []retried {
	res := e.pop(Request{Group: "G", Topic: "T", QueueID: -1, MaxMsgNums: n, InvisibleTime: 1000})
	defer func() {
		if res.Release != nil {
			res.Release()
		}
	}()
	var out []retried
	for _, rec := range res.Records {
		v, err := message.Parse(rec)
		require.NoError(e.t, err)
		ck, ok := v.Property(message.PropertyPopCK)
		if !ok {
			continue
		}
		out = append(out, retried{body: string(v.Body()), rc: v.ReconsumeTimes(), ack: AckRequest{Group: "G",
			Topic: systopic.PopRetry("G", "T"), QueueID: v.QueueID(), ExtraInfo: string(ck), Offset: v.QueueOffset()}})
	}
	return out
}

// retryCopies reads every copy in G's retry topic of T as "body/rc".
func (e *env) retryCopies() []string {
	retry := systopic.PopRetry("G", "T")
	var out []string
	for off := int64(0); off < e.st.MaxOffsetInQueue(retry, 0); off++ {
		got := e.st.GetMessage("READER", retry, 0, off, 1, nil)
		require.Equal(e.t, store.Found, got.Status)
		v, err := message.Parse(got.Records[0])
		require.NoError(e.t, err)
		out = append(out, string(v.Body())+"/"+strconv.Itoa(int(v.ReconsumeTimes())))
		got.Release()
	}
	return out
}

// waitRevive waits until the revive queues hold n records in all (the dispatcher runs behind the
// puts; the revive offsets committed stay below what it has not dispatched).
func (e *env) waitRevive(n int64) {
	e.t.Helper()
	require.Eventually(e.t, func() bool {
		var sum int64
		for q := range int32(e.svc.opts.ReviveQueueNum) {
			sum += e.st.MaxOffsetInQueue(e.svc.ReviveTopic(), q)
		}
		return sum >= n
	}, 5*time.Second, time.Millisecond, "the revive queues never held %d records", n)
}

// TestRetriedAckSurvivesCrash: a message popped from the retry topic and acknowledged there (its
// ack names the retry topic's checkpoint) never comes back after a kill -9, whatever moment
// consumerOffset.json was last written at: before the message was revived, before it was popped
// from the retry topic, before the ack, or after it. The unacknowledged one comes back once, with
// reconsumeTimes 2.
func TestRetriedAckSurvivesCrash(t *testing.T) {
	for _, snapshot := range []string{"beforeRevive", "beforeRetryPop", "beforeAck", "afterAck"} {
		t.Run(snapshot, func(t *testing.T) {
			e := newEnv(t)
			e.createTopic("T", 1)
			e.send("T", 0, 2)
			persistAt := func(moment string) {
				if moment == snapshot {
					require.NoError(t, e.offsets.Persist())
				}
			}
			e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 2, InvisibleTime: 1000}).Release()
			persistAt("beforeRevive")
			e.advance(2 * time.Second)
			e.svc.reviveDue()
			e.waitQueue(systopic.PopRetry("G", "T"), 0, 2)
			e.waitRevive(2) // the checkpoint and its revived record
			e.svc.commitReviveOffsets()
			persistAt("beforeRetryPop")
			got := e.popRetried(2)
			require.Len(t, got, 2)
			persistAt("beforeAck")
			require.NoError(t, e.svc.Ack(got[0].ack))
			e.waitRevive(4) // and the retry pop's checkpoint and the ack
			e.svc.commitReviveOffsets()
			persistAt("afterAck")

			e.crash()
			require.Empty(t, e.popRetried(2), "nothing popped and not yet due comes back early")
			e.advance(2 * time.Second)
			e.svc.reviveDue()
			e.waitQueue(systopic.PopRetry("G", "T"), 0, 3)
			require.Equal(t, []string{"T-0/1", "T-1/1", got[1].body + "/2"}, e.retryCopies(),
				"only the unacknowledged %s comes back", got[1].body)
			back := e.popRetried(2)
			require.Len(t, back, 1)
			require.Equal(t, retried{body: got[1].body, rc: 2}, retried{body: back[0].body, rc: back[0].rc})
		})
	}
}

// dropRevived is a store whose revived records are lost while drop is set: the revive log as a
// kill -9 between storing a message's next attempt and writing its revived record leaves it.
type dropRevived struct {
	Store
	drop atomic.Bool
}

func (d *dropRevived) PutMessage(m *store.Message) store.PutResult {
	if d.drop.Load() && m.Properties == recordTags[kindRevived] {
		return store.PutResult{Status: store.UnknownError}
	}
	return d.Store.PutMessage(m)
}

// TestReviveDuplicateCopiesAreDeliveriesOfTheirOwn: a kill between storing a message's next
// attempt and writing its revived record leaves the checkpoint outstanding, so recovery revives
// it again and the retry topic holds the attempt twice (docs/pop.md, the at-least-once window).
// Each copy is a delivery of its own: acknowledging one settles nothing of the other, which comes
// back with one more reconsume when it is not acknowledged in its turn.
func TestReviveDuplicateCopiesAreDeliveriesOfTheirOwn(t *testing.T) {
	e := &env{t: t, dir: t.TempDir(), clock: time.UnixMilli(1_700_000_000_000)}
	e.svcOpts = func(o *Options) { o.ReviveInterval = time.Hour } // revives run when the test says
	lossy := &dropRevived{}
	e.wrap = func(s Store) Store { lossy.Store = s; return lossy }
	e.open()
	e.createTopic("T", 1)
	e.send("T", 0, 1)
	e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 1, InvisibleTime: 1000}).Release()
	e.advance(2 * time.Second)
	lossy.drop.Store(true)
	e.svc.reviveDue()
	require.Equal(t, 1, e.svc.Outstanding(), "no revived record: the checkpoint is not settled")
	lossy.drop.Store(false)

	e.crash()
	e.svc.reviveDue()
	e.waitQueue(systopic.PopRetry("G", "T"), 0, 2)
	require.Equal(t, []string{"T-0/1", "T-0/1"}, e.retryCopies(), "the attempt stored twice")
	require.Zero(t, e.svc.Outstanding())

	copies := e.popRetried(2)
	require.Len(t, copies, 2)
	require.NoError(t, e.svc.Ack(copies[0].ack), "the first copy acknowledged in time, the second left")
	e.advance(2 * time.Second)
	e.svc.reviveDue()
	e.waitQueue(systopic.PopRetry("G", "T"), 0, 3)
	require.Equal(t, []string{"T-0/1", "T-0/1", "T-0/2"}, e.retryCopies(), "the second copy comes back")
	require.Zero(t, e.svc.Outstanding())
}
