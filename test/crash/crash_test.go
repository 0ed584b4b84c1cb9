package crash

import (
	"context"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Shape of a crash run.
const (
	crashQueues    = 4
	crashProducers = 3 // Go-client producers (separate client instances)
	crashWorkers   = 3 // concurrent senders per producer
	// Before most kills the broker must have acknowledged this many sends in the cycle; then the
	// kill comes after a random delay of up to maxRunBeforeKill.
	minAcksBeforeKill = 40
	maxRunBeforeKill  = 1500 * time.Millisecond
	// One kill in earlyKillOneIn comes at once after the broker is ready, with or without sends.
	earlyKillOneIn = 8
	// Messages sent after the final restart: the store must accept them.
	afterSends = 40
)

// TestCrashSyncFlush kills a SYNC_FLUSH broker with SIGKILL at random moments under concurrent
// producers, CRASH_CYCLES times, and then requires every acknowledged message to be readable at
// its queue offset, by key and by offset msgId: no acknowledged message may be lost.
func TestCrashSyncFlush(t *testing.T) {
	runCrash(t, "SYNC_FLUSH")
}

// TestCrashAsyncFlush is the same run under ASYNC_FLUSH. An acknowledgement there does not wait
// for the disk, so losses are only reported (for the docs), not failed. SIGKILL leaves the page
// cache to the kernel, which writes it back, so the expected loss is 0 here too; only a power
// failure or kernel crash would lose the unflushed tail. The store must still come back without
// holes or garbage, keep its key and id look-ups consistent with its queues, and accept new sends.
func TestCrashAsyncFlush(t *testing.T) {
	runCrash(t, "ASYNC_FLUSH")
}

func runCrash(t *testing.T, mode string) {
	n, s := cycles(t), seed(t)
	t.Logf("crash run: mode=%s cycles=%d seed=%d (rerun with CRASH_SEED=%d for the same kill moments)", mode, n, s, s)
	rng := rand.New(rand.NewPCG(uint64(s), 0x6b696c6c))
	began := time.Now()

	c, b := startCluster(t, mode)
	topic := uniq(t, "CRASH")
	createTopic(t, c, b, topic, crashQueues)
	ld := startLoad(t, c, uniq(t, "PG"), topic, strings.ToLower(strings.SplitN(mode, "_", 2)[0]),
		crashProducers, crashWorkers, s)
	t.Cleanup(ld.close)
	killCycles(t, b, ld, n, rng)
	// Senders caught by the last kill fail within sendTimeout.
	ld.close()

	b.StartAgain()
	rc := newRawClient(t, b.Addr)
	afterAcks := sendAfterRecovery(t, c, topic, ld, rng, n+1)
	acks, sent, failures := ld.led.snapshot()
	acks = append(acks, afterAcks...)
	v := verifyAll(t, rc, topic, crashQueues, acks, sent)
	v.report(t, 20)
	segments := commitLogSegments(t, b)
	maxPhy := ld.led.maxPhy.Load()
	t.Logf("crash run %s: %d cycles in %v; %d sends attempted, %d acknowledged (incl. %d after the last restart); "+
		"unacknowledged: %s; commit log up to %d (%d segments of %d bytes; %d files now: %s .. %s), %d index files; "+
		"queue ranges %v; %d unacknowledged messages survived, %d keys stored twice",
		mode, n, time.Since(began).Round(time.Millisecond), len(sent), len(acks), len(afterAcks),
		failureSummary(failures), maxPhy, maxPhy/segmentSize+1, segmentSize, len(segments), first(segments), last(segments),
		indexFiles(t, b), v.queueRanges, v.survivors, v.duplicates)
	t.Logf("crash summary: mode=%s cycles=%d acked=%d lost=%d seed=%d", mode, n, len(acks), v.lost, s)

	assert.GreaterOrEqual(t, maxPhy, int64(segmentSize), "the run should cross commit log segment boundaries")
	for _, name := range consumeQueueTopics(t, b) {
		// Only the test's topic is written to; a torn record must not invent another.
		assert.True(t, name == topic || strings.HasPrefix(name, "%RETRY%") || name == "SCHEDULE_TOPIC_XXXX",
			"consume queue of an unexpected topic %q", name)
	}
	assert.Empty(t, v.holes, "queues must have no holes between min and max offset")
	assert.Empty(t, v.strangers, "queues must hold only messages that were sent, intact")
	assert.Empty(t, v.torn, "recovery must not accept a record the kill cut short (an unacknowledged send, "+
		"whose header, body and properties length were written but not all of its properties)")
	assert.Zero(t, v.indexMisses, "a message readable in its queue must be found by key and by offset msgId")
	if mode == "SYNC_FLUSH" {
		assert.Zero(t, v.lost, "SYNC_FLUSH lost acknowledged messages (seed %d)", s)
	}
	if t.Failed() {
		t.Logf("broker log lines about recovery:\n%s", grepLog(b, 60,
			"opening message store", "recovered", "recovering", "removing segment", "truncat"))
	}
}

// killCycles runs n cycles of: (re)start the broker, let the load run until a random moment,
// kill -9. The broker is down when it returns.
func killCycles(t *testing.T, b *cluster.Broker, ld *load, n int, rng *rand.Rand) {
	t.Helper()
	for cycle := 1; cycle <= n; cycle++ {
		ld.setCycle(cycle)
		if cycle > 1 {
			restarted := time.Now()
			b.StartAgain()
			t.Logf("cycle %d: broker ready %v after the restart", cycle, time.Since(restarted).Round(time.Millisecond))
		}
		var delay time.Duration
		if rng.IntN(earlyKillOneIn) == 0 {
			delay = time.Duration(rng.Int64N(int64(100 * time.Millisecond)))
		} else {
			waitCycleAcks(t, b, ld, cycle, minAcksBeforeKill)
			delay = time.Duration(rng.Int64N(int64(maxRunBeforeKill)))
		}
		pause(delay)
		if cycle == n {
			// However short the run, its acknowledged messages must span a segment boundary.
			waitUntil(t, firstAckTimeout, 10*time.Millisecond, "an acknowledged message in the second commit log segment",
				func() (bool, string) {
					return ld.led.maxPhy.Load() >= segmentSize, fmt.Sprintf("highest acknowledged commit log offset %d", ld.led.maxPhy.Load())
				})
		}
		require.NoError(t, b.Kill(), "cycle %d: kill -9 the broker", cycle)
		t.Logf("cycle %d: kill -9 %v into the cycle's run; %d sends acknowledged in the cycle, %d in all",
			cycle, delay.Round(time.Millisecond), ld.led.cycleAcks(cycle), ld.led.total.Load())
	}
}

// waitCycleAcks waits until the broker has acknowledged min sends in this cycle.
func waitCycleAcks(t *testing.T, b *cluster.Broker, ld *load, cycle, min int) {
	t.Helper()
	waitUntil(t, firstAckTimeout, 10*time.Millisecond, fmt.Sprintf("cycle %d: %d acknowledged sends", cycle, min), func() (bool, string) {
		if !b.Running() {
			return false, "the broker is not running: " + b.ExitStatus()
		}
		got := ld.led.cycleAcks(cycle)
		return got >= min, fmt.Sprintf("%d acknowledged; failures so far: %s", got, failureSummary(ld.led.failureCounts()))
	})
}

// sendAfterRecovery sends afterSends messages from a new producer to the recovered broker; each
// must be acknowledged. They are returned as acknowledgements of cycle.
func sendAfterRecovery(t *testing.T, c *cluster.Cluster, topic string, ld *load, rng *rand.Rand, cycle int) []*ack {
	t.Helper()
	p := newProducer(t, c, uniq(t, "PG_AFTER"))
	var out []*ack
	for i := range afterSends {
		key := fmt.Sprintf("after-%d", i)
		msg, body, padLen := crashMessage(rng, topic, key)
		ld.led.attempt(key, body, padLen)
		var res *primitive.SendResult
		var err error
		// The first sends may meet a route the producer is still fetching.
		waitUntil(t, firstAckTimeout, 50*time.Millisecond, "send "+key+" to the recovered broker", func() (bool, string) {
			ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+2*time.Second)
			defer cancel()
			res, err = p.SendSync(ctx, msg)
			if err != nil {
				return false, err.Error()
			}
			return res.Status == primitive.SendOK, fmt.Sprintf("status %d", res.Status)
		})
		off, perr := phyOffsetOf(res.OffsetMsgID)
		require.NoError(t, perr)
		out = append(out, &ack{key: key, uniqID: res.MsgID, offsetMsgID: res.OffsetMsgID, phyOffset: off,
			queueID: res.MessageQueue.QueueId, queueOffset: res.QueueOffset, bodyCRC: crc32.ChecksumIEEE(body),
			bodyLen: len(body), cycle: cycle})
	}
	return out
}

// pause waits d: the random moment of a kill.
func pause(d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	<-timer.C
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func last(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
