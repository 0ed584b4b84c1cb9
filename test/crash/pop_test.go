package crash

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Shape of a POP crash run.
const (
	popQueues       = 4
	popConsumers    = 3
	popBatch        = 16
	popInvisible    = 2 * time.Second
	popNoAckPercent = 15 // of deliveries the consumers leave unacknowledged: they must come back
	popSendEvery    = 2 * time.Millisecond
	popMaxRun       = 2500 * time.Millisecond // a cycle runs up to this long before the kill
	popMinRun       = 300 * time.Millisecond
	// popTimelyMargin: an ack answered at least this long before the message's invisible time
	// ends is timely; the message must never come back after it.
	popTimelyMargin = 500 * time.Millisecond
	popDrainTimeout = 120 * time.Second
)

// TestCrashPopSyncFlush and TestCrashPopAsyncFlush kill a broker with SIGKILL at random moments
// while producers send and POP consumers pop, acknowledge most deliveries and leave some
// unacknowledged, CRASH_CYCLES times. After the last restart the consumers go on until every
// acknowledged send has been acknowledged by a consumer. The test prints
//
//	pop crash summary: mode=... cycles=N sent=S deliveries=D lost=L ackedRedelivered=R ...
//
// where lost counts sends the broker acknowledged that no consumer could ever acknowledge (a
// checkpoint, or the message, lost) and ackedRedelivered counts deliveries of a stored message
// after a timely ack of it (an ack lost, or a pop offset that went back). Both must be 0. A send
// whose last delivery's ack got no answer (the kill came while it was in flight) is neither: the
// broker may have applied that ack, and then the message rightly never comes back; such sends
// are reported as ackUnanswered. Every send attempt has its own key, so that a send whose answer
// a kill lost, stored and then sent again, is not one key stored twice. Also
// reported: unacknowledged deliveries that came back (expected: each of them), deliveries after
// a late ack, and revive duplicates (a copy stored twice in the retry topic by a kill between
// storing it and recording the revive: the documented at-least-once window).
func TestCrashPopSyncFlush(t *testing.T)  { runPopCrash(t, "SYNC_FLUSH") }
func TestCrashPopAsyncFlush(t *testing.T) { runPopCrash(t, "ASYNC_FLUSH") }

func runPopCrash(t *testing.T, mode string) {
	n, s := cycles(t), seed(t)
	t.Logf("pop crash run: mode=%s cycles=%d seed=%d (rerun with CRASH_SEED=%d)", mode, n, s, s)
	rng := rand.New(rand.NewPCG(uint64(s), 0x706f70))
	props := brokerProps(mode)
	props["reviveInterval"] = "100"
	c := cluster.Start(t, cluster.Options{BrokerProps: props})
	b := c.Brokers[0]
	topic, group := uniq(t, "POPCRASH"), uniq(t, "G_POP")
	createTopic(t, c, b, topic, popQueues)

	led := newPopLedger()
	run := &popRun{t: t, addr: b.Addr, topic: topic, group: group, led: led, seed: s, tl: newPopTimeline()}
	stop := run.start()
	for cycle := 1; cycle <= n; cycle++ {
		if cycle > 1 {
			b.StartAgain()
			run.tl.mark("started")
		}
		pause(popMinRun + time.Duration(rng.Int64N(int64(popMaxRun-popMinRun))))
		run.tl.mark("kill -9")
		if err := b.Kill(); err != nil {
			t.Fatalf("cycle %d: kill -9: %v", cycle, err)
		}
		t.Logf("cycle %d: kill -9; %d sends acknowledged, %d deliveries, %d consumer acks so far",
			cycle, led.sendAcks(), led.deliveries.Load(), led.ackCount())
	}
	run.stopSending()
	b.StartAgain()
	run.tl.mark("started")
	drained := waitDrained(led, popDrainTimeout)
	pause(2 * popInvisible) // anything that would still come back arrives now
	stop()

	r := led.report(nil)
	if keys := explained(r); len(keys) > 0 {
		ev := readEvidence(context.Background(), newRawClient(t, b.Addr), c.Name, group, topic)
		t.Logf("pop crash evidence:\n%s", run.explain(ev, keys, b.LogPaths()))
		r = led.report(ev)
	}
	t.Logf("pop crash run %s: %s", mode, r.detail)
	t.Logf("pop crash summary: mode=%s cycles=%d sent=%d deliveries=%d lost=%d ackedRedelivered=%d "+
		"unackedRedelivered=%d lateAckRedelivered=%d reviveDuplicates=%d duplicateBack=%d ackUnanswered=%d seed=%d",
		mode, n, r.sent, r.deliveries, r.lost, r.ackedRedelivered, r.unackedBack, r.lateBack, r.reviveDups, r.duplicateBack,
		r.ackUnanswered, s)
	assert.True(t, drained, "every acknowledged send acknowledged by a consumer within %v", popDrainTimeout)
	assert.Zero(t, r.lost, "acknowledged sends no consumer could acknowledge: %v", r.lostKeys)
	assert.Zero(t, r.ackedRedelivered, "messages delivered again after a timely ack: %v", r.redeliveredKeys)
	assert.Positive(t, r.unackedBack, "unacknowledged deliveries must come back (the test left some)")
}

// popRun is the load: one producer and popConsumers consumers over raw connections.
type popRun struct {
	t                  *testing.T
	addr, topic, group string
	led                *popLedger
	seed               int64
	tl                 *popTimeline
	sending            atomic.Bool
	wg                 sync.WaitGroup
	stopc              chan struct{}
}

func (r *popRun) start() (stop func()) {
	r.stopc = make(chan struct{})
	r.sending.Store(true)
	r.wg.Add(1)
	go r.produce(newPopClient())
	for i := range popConsumers {
		r.wg.Add(1)
		go r.consume(newPopClient(), rand.New(rand.NewPCG(uint64(r.seed), uint64(i+1))))
	}
	return func() {
		close(r.stopc)
		r.wg.Wait()
	}
}

func (r *popRun) stopSending() { r.sending.Store(false) }

func newPopClient() *remoting.Client {
	return remoting.NewClient(remoting.ClientOptions{RequestTimeout: rawTimeout}, nil)
}

func (r *popRun) stopped() bool {
	select {
	case <-r.stopc:
		return true
	default:
		return false
	}
}

// produce sends messages "k-<i>" round-robin over the queues while sending is on, a new key
// for every attempt: a send that failed, or whose answer a kill lost (it may be stored), is not
// sent again under its key.
func (r *popRun) produce(cli *remoting.Client) {
	defer r.wg.Done()
	defer cli.Close()
	for i := 0; !r.stopped(); i++ {
		if !r.sending.Load() {
			pause(20 * time.Millisecond)
			continue
		}
		key := "k-" + strconv.Itoa(i)
		h := protocol.SendMessageRequestHeader{ProducerGroup: "PG_POP_CRASH", Topic: r.topic, DefaultTopic: "TBW102",
			DefaultTopicQueueNums: 4, QueueID: int32(i % popQueues), BornTimestamp: time.Now().UnixMilli(),
			Properties: protocol.Some("KEYS\x01" + key + "\x02")}
		resp, err := invoke(cli, r.addr, protocol.NewHeaderRequest(protocol.SendMessage, &h, []byte(key)))
		if err == nil && resp.ResponseCode() == protocol.Success {
			r.led.sent(key)
		} else {
			pause(50 * time.Millisecond)
		}
		pause(popSendEvery)
	}
}

func invoke(cli *remoting.Client, addr string, req *protocol.Command) (*protocol.Command, error) {
	ctx, cancel := context.WithTimeout(context.Background(), rawTimeout)
	defer cancel()
	return cli.Invoke(ctx, addr, req)
}

// consume pops, records each delivery and acks it, except popNoAckPercent of them.
func (r *popRun) consume(cli *remoting.Client, rng *rand.Rand) {
	defer r.wg.Done()
	defer cli.Close()
	for !r.stopped() {
		msgs, err := r.pop(cli)
		if err != nil {
			pause(100 * time.Millisecond)
			continue
		}
		for _, m := range msgs {
			r.led.delivered(m)
			if rng.IntN(100) < popNoAckPercent {
				continue
			}
			r.ack(cli, m)
		}
	}
}

// popped is one delivery: the stored record it came from (real topic, queue, offset), its key,
// reconsumeTimes, POP_CK and when it becomes visible again.
type popped struct {
	key, extra   string
	realTopic    string
	queueID      int32
	queueOffset  int64
	reconsume    int32
	visibleAgain time.Time
}

func (p popped) record() string {
	return p.realTopic + "/" + strconv.Itoa(int(p.queueID)) + "@" + strconv.FormatInt(p.queueOffset, 10)
}

func (r *popRun) pop(cli *remoting.Client) ([]popped, error) {
	h := protocol.PopMessageRequestHeader{ConsumerGroup: r.group, Topic: r.topic, QueueID: -1, MaxMsgNums: popBatch,
		InvisibleTime: popInvisible.Milliseconds(), PollTime: 500, BornTime: protocol.Some(time.Now().UnixMilli())}
	resp, err := invoke(cli, r.addr, protocol.NewHeaderRequest(protocol.PopMessage, &h, nil))
	if err != nil {
		return nil, err
	}
	if resp.ResponseCode() != protocol.Success {
		return nil, nil
	}
	return decodePopped(resp, r.group)
}

// decodePopped reads a POP answer as the Java client does: each record's POP_CK from the
// answer's offset infos, or the one the broker set (a message popped from the retry topic).
func decodePopped(resp *protocol.Command, group string) ([]popped, error) {
	var rh protocol.PopMessageResponseHeader
	if err := rh.Decode(resp.ExtFields); err != nil {
		return nil, err
	}
	start, err := protocol.ParseInfo(rh.StartOffsetInfo.V)
	if err != nil {
		return nil, err
	}
	recs, err := message.DecodeAll(resp.Body, true)
	if err != nil {
		return nil, err
	}
	out := make([]popped, 0, len(recs))
	for _, m := range recs {
		extra := m.Props[message.PropertyPopCK]
		if extra == "" {
			so, err := strconv.ParseInt(start[protocol.InfoKey(protocol.RetryMarkNormal, strconv.Itoa(int(m.QueueID)))], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("startOffsetInfo %q: %w", rh.StartOffsetInfo.V, err)
			}
			extra = protocol.ExtraInfo{CkQueueOffset: so, PopTime: rh.PopTime, InvisibleTime: rh.InvisibleTime,
				ReviveQid: rh.ReviveQid, Retry: protocol.RetryMarkNormal, BrokerName: "broker-a", QueueID: m.QueueID,
				QueueOffset: m.QueueOffset, HasQueueOffset: true}.String()
		}
		e, err := protocol.ParseExtraInfo(extra)
		if err != nil {
			return nil, err
		}
		out = append(out, popped{key: string(m.Body), extra: extra, realTopic: protocol.RealTopic(m.Topic, group, e.Retry),
			queueID: m.QueueID, queueOffset: m.QueueOffset, reconsume: m.ReconsumeTimes,
			visibleAgain: time.UnixMilli(e.PopTime + e.InvisibleTime)})
	}
	return out, nil
}

func (r *popRun) ack(cli *remoting.Client, m popped) {
	h := protocol.AckMessageRequestHeader{ConsumerGroup: r.group, Topic: m.realTopic, QueueID: m.queueID,
		ExtraInfo: m.extra, Offset: m.queueOffset}
	resp, err := invoke(cli, r.addr, protocol.NewHeaderRequest(protocol.AckMessage, &h, nil))
	switch {
	case err != nil:
		r.led.ackUnanswered(m)
	case resp.ResponseCode() == protocol.Success:
		r.led.acked(m, time.Now())
	}
}

// waitDrained waits until every acknowledged send was acknowledged by a consumer.
func waitDrained(led *popLedger, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if led.unconsumed() == 0 {
			return true
		}
		pause(200 * time.Millisecond)
	}
	return false
}
