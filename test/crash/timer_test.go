package crash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Shape of a timer crash run.
const (
	timerQueues    = 4
	timerWorkers   = 4                       // concurrent senders of timer messages
	timerMaxDelay  = 4 * time.Second         // a message asks for delivery up to this far ahead
	timerAckedKill = 30                      // sends acknowledged in a cycle before its kill
	timerMaxRun    = 2500 * time.Millisecond // then the kill comes within this long
	timerGrace     = 10 * time.Second        // after the last time asked for, everything is delivered
)

// TestTimerCrashAsyncFlush sends timer messages without pause while the broker is killed with
// SIGKILL at random moments, CRASH_CYCLES times: each acknowledged timer message must reach its
// topic exactly once (lost = 0, duplicated = 0), and none before the time it asked for.
func TestTimerCrashAsyncFlush(t *testing.T) { runTimerCrash(t, "ASYNC_FLUSH") }

// TestTimerCrashSyncFlush is the same run under SYNC_FLUSH.
func TestTimerCrashSyncFlush(t *testing.T) { runTimerCrash(t, "SYNC_FLUSH") }

// timerSend is one attempted send of a timer message.
type timerSend struct {
	key     string
	due     int64 // the earliest time it may be delivered (ms)
	acked   bool
	sentAt  int64
	byDelay bool // TIMER_DELAY_MS rather than TIMER_DELIVER_MS
}

// timerLedger records the sends of a run; safe for concurrent use.
type timerLedger struct {
	mu    sync.Mutex
	sends map[string]*timerSend
	cycle map[int]int // acknowledgements per kill cycle
}

func (l *timerLedger) add(s *timerSend, cycle int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sends[s.key] = s
	if s.acked {
		l.cycle[cycle]++
	}
}

func (l *timerLedger) acks(cycle int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cycle[cycle]
}

func runTimerCrash(t *testing.T, mode string) {
	n, s := cycles(t), seed(t)
	t.Logf("timer crash run: mode=%s cycles=%d seed=%d (CRASH_SEED=%d replays the kill moments)", mode, n, s, s)
	rng := rand.New(rand.NewPCG(uint64(s), 0x74696d72))
	props := brokerProps(mode)
	props["timerPrecisionMs"] = "100"               // many slots end during a run
	props["timerFlushIntervalMs"] = "200"           // and many checkpoints are taken
	props["flushCommitLogThoroughInterval"] = "500" // which wait for the CommitLog's flush
	c := cluster.Start(t, cluster.Options{BrokerProps: props})
	b := c.Brokers[0]
	topic := uniq(t, "TIMERCRASH")
	createTopic(t, c, b, topic, timerQueues)

	led := &timerLedger{sends: map[string]*timerSend{}, cycle: map[int]int{}}
	var cycle atomic.Int32
	stop := make(chan struct{})
	var wg sync.WaitGroup
	p := newProducer(t, c, uniq(t, "PG"))
	for w := range timerWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			timerWorker(p, topic, w, rand.New(rand.NewPCG(uint64(s), uint64(w))), led, &cycle, stop)
		}()
	}
	for k := 1; k <= n; k++ {
		cycle.Store(int32(k))
		if k > 1 {
			b.StartAgain()
		}
		waitUntil(t, firstAckTimeout, 10*time.Millisecond, fmt.Sprintf("cycle %d: %d acknowledged timer sends", k, timerAckedKill),
			func() (bool, string) { return led.acks(k) >= timerAckedKill, strconv.Itoa(led.acks(k)) })
		delay := time.Duration(rng.Int64N(int64(timerMaxRun)))
		pause(delay)
		require.NoError(t, b.Kill(), "cycle %d: kill -9", k)
		t.Logf("cycle %d: kill -9 %v after %d acknowledgements", k, delay.Round(time.Millisecond), led.acks(k))
	}
	b.StartAgain()
	pause(time.Second) // deliveries go on after the restart while the senders still run
	close(stop)
	wg.Wait()
	verifyTimers(t, b, topic, led, mode, n, s)
}

// timerWorker sends timer messages without pause: due 0..timerMaxDelay ahead, by TIMER_DELIVER_MS
// or TIMER_DELAY_MS.
func timerWorker(p rocketmq.Producer, topic string, id int, rng *rand.Rand, led *timerLedger, cycle *atomic.Int32, stop <-chan struct{}) {
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		s := &timerSend{key: fmt.Sprintf("t%d-%d", id, seq), sentAt: time.Now().UnixMilli(), byDelay: rng.IntN(2) == 0}
		delay := 1 + rng.Int64N(timerMaxDelay.Milliseconds())
		s.due = s.sentAt + delay
		msg := primitive.NewMessage(topic, []byte(s.key))
		msg.WithKeys([]string{s.key})
		if s.byDelay {
			msg.WithProperty(message.PropertyTimerDelayMS, strconv.FormatInt(delay, 10))
		} else {
			msg.WithProperty(message.PropertyTimerDeliverMS, strconv.FormatInt(s.due, 10))
		}
		k := int(cycle.Load())
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+2*time.Second)
		res, err := p.SendSync(ctx, msg)
		cancel()
		s.acked = err == nil && res.Status == primitive.SendOK
		led.add(s, k)
		if !s.acked {
			pause(20 * time.Millisecond)
		}
	}
}

// verifyTimers waits until every message is due and then some, reads every queue and counts each
// key's deliveries.
func verifyTimers(t *testing.T, b *cluster.Broker, topic string, led *timerLedger, mode string, cycles int, seed int64) {
	led.mu.Lock()
	sends := led.sends
	led.mu.Unlock()
	var lastDue int64
	for _, s := range sends {
		lastDue = max(lastDue, s.due)
	}
	pause(time.Until(time.UnixMilli(lastDue)) + timerGrace)
	rc := newRawClient(t, b.Addr)
	got := map[string][]int64{} // key → store times of its deliveries
	for q := range timerQueues {
		for _, m := range pullQueue(t, rc, topic, q) {
			got[m.Props[message.PropertyKeys]] = append(got[m.Props[message.PropertyKeys]], m.StoreTimestamp)
		}
	}
	var acked, lost, twice, early, unackedDelivered int
	var lateness []int64
	for key, s := range sends {
		times := got[key]
		switch {
		case s.acked && len(times) == 0:
			lost++
			t.Errorf("lost: %s (due %d)", key, s.due)
		case len(times) > 1:
			twice += len(times) - 1
			t.Errorf("delivered %d times: %s", len(times), key)
		}
		if s.acked {
			acked++
		} else if len(times) > 0 {
			unackedDelivered++
		}
		for _, ts := range times {
			if ts < s.due {
				early++
				t.Errorf("delivered %d ms early: %s", s.due-ts, key)
			}
			lateness = append(lateness, ts-s.due)
		}
		delete(got, key)
	}
	assert.Empty(t, got, "delivered keys that were never sent")
	slices.Sort(lateness)
	t.Logf("timer crash summary: mode=%s cycles=%d sent=%d acked=%d lost=%d duplicated=%d early=%d "+
		"unacknowledged-but-delivered=%d seed=%d", mode, cycles, len(sends), acked, lost, twice, early, unackedDelivered, seed)
	if len(lateness) > 0 {
		t.Logf("lateness across the kills (ms after the time asked): p50=%d p99=%d max=%d",
			lateness[len(lateness)/2], lateness[len(lateness)*99/100], lateness[len(lateness)-1])
	}
	// What each recovery found: the deliveries made after the checkpoint it resumed from.
	t.Logf("recoveries:\n%s", grepLog(b, 40, "timer recovered", "timer redelivery check done"))
	require.Zero(t, lost, "lost")
	require.Zero(t, twice, "duplicated")
	require.Zero(t, early, "early")
}

// pullQueue reads a queue from its min to its max offset.
func pullQueue(t *testing.T, rc *rawClient, topic string, q int) []*message.MessageExt {
	ctx, cancel := context.WithTimeout(context.Background(), dispatchTimeout)
	defer cancel()
	lo, err := rc.minOffset(ctx, topic, q)
	require.NoError(t, err)
	hi, err := rc.maxOffset(ctx, topic, q)
	require.NoError(t, err)
	var out []*message.MessageExt
	for off := lo; off < hi; {
		res, err := rc.pull(ctx, "CG_TIMER_VERIFY", topic, q, off, 32)
		require.NoError(t, err)
		require.Equal(t, "SUCCESS", res.code.String(), "pull %s/%d@%d: %s", topic, q, off, res.remark)
		out = append(out, res.records...)
		off = res.nextBeginOffset
	}
	return out
}
