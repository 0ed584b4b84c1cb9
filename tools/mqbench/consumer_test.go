package mqbench

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// testConsumer is a consumer whose pulls are driven by hand: nextSpan
// picks, the test answers through answered.
func testConsumer(t *testing.T, target int64) (*consumer, *pullQueue) {
	o := &Options{Mode: ModeConsume, PullBatch: 32, PullWindow: 4, CheckCRC: true}
	require.NoError(t, o.Validate())
	c := newConsumer(o, testKeys(), &tracker{})
	c.backoff = time.Hour // back-offs never fire during a test
	c.ctx, c.cancel = context.WithCancel(context.Background())
	// Should a fill run anyway, it dials a port nobody listens on.
	c.cli = remoting.NewClient(remoting.ClientOptions{DialTimeout: 100 * time.Millisecond}, nil)
	t.Cleanup(func() {
		c.cancel()
		_ = c.cli.Close()
	})
	c.addQueue(newQueueRef("b", "127.0.0.1:1", 2), 0, 100)
	c.setTarget(target)
	return c, c.qs[0]
}

// pullAnswer is the broker's answer with records at offsets from..to-1.
func pullAnswer(t testing.TB, code protocol.ResponseCode, qid int32, from, to, nextBegin, maxOff int64) *protocol.Command {
	resp := protocol.NewResponse(&protocol.Command{}, code, "")
	keys := testKeys()
	for off := from; off < to; off++ {
		m := &message.Message{Topic: DefaultTopic, QueueID: qid, QueueOffset: off,
			BornHost: netip.MustParseAddrPort("127.0.0.1:1"), StoreHost: netip.MustParseAddrPort("127.0.0.1:2"),
			Body: []byte("x"), BodyCRC: message.BodyCRC([]byte("x")),
			Properties: string(message.AppendProperty(nil, message.PropertyUniqClientMessageID,
				string(keys.appendKey(nil, uint64(off)))))}
		rec := make([]byte, m.EncodedSize())
		_, err := message.Encode(rec, m)
		require.NoError(t, err)
		resp.Body = append(resp.Body, rec...)
	}
	protocol.PullMessageResponseHeader{NextBeginOffset: nextBegin, MaxOffset: maxOff}.Encode(&resp.ExtFields)
	return resp
}

// take picks the next span and records it as sent.
func take(t *testing.T, c *consumer, pq *pullQueue) (span, bool) {
	s, ok := c.nextSpan(pq)
	if ok {
		pq.pending = append(pq.pending, s)
	}
	return s, ok
}

var longAgo = time.Now().Add(-time.Hour) // answers that were held, so no pause

func TestSpansAheadThenOneWaitPastTheEnd(t *testing.T) {
	c, pq := testConsumer(t, 200)
	var got []span
	for {
		s, ok := take(t, c, pq)
		if !ok {
			break
		}
		got = append(got, s)
	}
	assert.Equal(t, []span{{0, 32}, {32, 32}, {64, 32}, {96, 4}, {100, 32}}, got,
		"inside the end in batches, then a single pull past it")
}

func TestShortAnswerLeavesAHoleThatIsPulledFirst(t *testing.T) {
	c, pq := testConsumer(t, 100)
	s0, _ := take(t, c, pq)
	s1, _ := take(t, c, pq)
	c.answered(pq, s1, longAgo, pullAnswer(t, protocol.Success, 2, 32, 39, 39, 100), nil)
	assert.Equal(t, []span{{39, 25}}, pq.holes)
	assert.Equal(t, int64(7), c.got.Load())

	s, _ := take(t, c, pq)
	assert.Equal(t, span{39, 25}, s, "the hole comes before new spans")
	assert.Equal(t, int64(0), pq.committable(), "span 0 is still out")

	c.answered(pq, s0, longAgo, pullAnswer(t, protocol.Success, 2, 0, 32, 32, 100), nil)
	c.answered(pq, s, longAgo, pullAnswer(t, protocol.Success, 2, 39, 64, 64, 100), nil)
	assert.Equal(t, int64(64), pq.committable())
	assert.Empty(t, pq.holes)
	assert.Zero(t, c.badOrder.Load())
	assert.Equal(t, int64(64), c.got.Load())
	assert.Equal(t, int64(64), c.tr.report().Received)
}

func TestMisplacedRecordsAreCounted(t *testing.T) {
	c, pq := testConsumer(t, 100)
	s, _ := take(t, c, pq)
	// The broker answers the pull at 0 with records from offset 5, and of queue 3.
	c.answered(pq, s, longAgo, pullAnswer(t, protocol.Success, 3, 5, 10, 5, 100), nil)
	assert.Equal(t, int64(5), c.badOrder.Load())
}

func TestNotFoundPastTheEndWaitsAgain(t *testing.T) {
	c, pq := testConsumer(t, 200)
	for range 5 {
		take(t, c, pq)
	}
	_, ok := take(t, c, pq)
	assert.False(t, ok, "one pull past the end at a time")
	waiting := span{100, 32}
	c.answered(pq, waiting, longAgo, pullAnswer(t, protocol.PullNotFound, 2, 0, 0, 100, 100), nil)
	assert.Equal(t, []span{waiting}, pq.holes)
	s, ok := take(t, c, pq)
	require.True(t, ok)
	assert.Equal(t, waiting, s, "asked again at once after a held pull")

	// New messages arrive: the answer moves the end, and spans follow.
	c.answered(pq, s, longAgo, pullAnswer(t, protocol.Success, 2, 100, 110, 110, 150), nil)
	assert.Equal(t, int64(150), pq.max)
	assert.Equal(t, []span{{110, 22}}, pq.holes)
	s, _ = take(t, c, pq)
	assert.Equal(t, span{110, 22}, s)
	s, _ = take(t, c, pq)
	assert.Equal(t, span{132, 18}, s)
}

func TestOffsetMovedSkipsTheGoneRange(t *testing.T) {
	c, pq := testConsumer(t, 100)
	s, _ := take(t, c, pq)
	c.answered(pq, s, longAgo, pullAnswer(t, protocol.PullOffsetMoved, 2, 0, 0, 20, 100), nil)
	assert.Equal(t, []span{{20, 12}}, pq.holes)
}

func TestRepeatedFailuresAbandonTheQueue(t *testing.T) {
	c, pq := testConsumer(t, 100)
	for i := range errLimit {
		s := span{0, 32}
		pq.pending = append(pq.pending, s)
		pq.holes = nil
		c.answered(pq, s, longAgo, pullAnswer(t, protocol.SystemError, 2, 0, 0, -1, -1), nil)
		if i < errLimit-1 {
			require.False(t, pq.failed)
		}
	}
	assert.True(t, pq.failed)
	assert.Error(t, c.ctx.Err(), "the only queue failed: the consumer stops")
	snap := c.codes.snapshot()
	assert.Equal(t, int64(errLimit), snap["SYSTEM_ERROR"])
}

func TestStoppedPullsStayUncommitted(t *testing.T) {
	c, pq := testConsumer(t, 100)
	s0, _ := take(t, c, pq)
	s1, _ := take(t, c, pq)
	c.answered(pq, s0, longAgo, pullAnswer(t, protocol.Success, 2, 0, 32, 32, 100), nil)
	c.cancel()
	c.answered(pq, s1, longAgo, nil, context.Canceled)
	assert.Equal(t, int64(32), pq.committable())
}

func TestFilteringReadsOnePullAtATimeFollowingNextBegin(t *testing.T) {
	c, pq := testConsumer(t, 100)
	c.o.Subscription = "TagA"
	s, ok := take(t, c, pq)
	require.True(t, ok)
	assert.Equal(t, span{0, 32}, s)
	_, ok = take(t, c, pq)
	assert.False(t, ok, "one pull at a time with a filter")

	// Everything in 0..39 filtered out: the broker scanned past the span.
	c.answered(pq, s, longAgo, pullAnswer(t, protocol.PullRetryImmediately, 2, 0, 0, 40, 100), nil)
	assert.Zero(t, pq.errStreak)
	s, _ = take(t, c, pq)
	assert.Equal(t, span{40, 32}, s)
	// Two matches, at 50 and 51 (offsets may skip), scanned up to 90.
	resp := pullAnswer(t, protocol.Success, 2, 50, 52, 90, 100)
	c.answered(pq, s, longAgo, resp, nil)
	assert.Zero(t, c.badOrder.Load(), "skipped offsets are fine with a filter")
	s, _ = take(t, c, pq)
	assert.Equal(t, span{90, 10}, s)
}

func TestDrainEndsWhenEveryQueueIsRead(t *testing.T) {
	c, pq := testConsumer(t, 1000) // a target never reached
	c.drain()
	var spans []span
	for range 4 {
		s, _ := take(t, c, pq)
		spans = append(spans, s)
	}
	for _, s := range spans {
		c.answered(pq, s, longAgo, pullAnswer(t, protocol.Success, 2, s.off, s.end(), s.end(), 100), nil)
	}
	select {
	case <-c.done:
	default:
		t.Fatal("reading the only queue to its end did not end the run")
	}
}
