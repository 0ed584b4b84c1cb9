package crash

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// ack is one acknowledged send: SendSync returned SEND_OK.
type ack struct {
	key         string // the message's only KEYS element, unique in the run
	uniqID      string // UNIQ_KEY: SendResult.MsgID
	offsetMsgID string // SendResult.OffsetMsgID (store host + commit log offset)
	phyOffset   int64  // parsed from offsetMsgID
	queueID     int
	queueOffset int64
	bodyCRC     uint32
	bodyLen     int
	cycle       int // the kill cycle during which the acknowledgement arrived
}

func (a *ack) String() string {
	return fmt.Sprintf("key=%s uniq=%s offsetMsgId=%s phyOffset=%d queue=%d queueOffset=%d cycle=%d",
		a.key, a.uniqID, a.offsetMsgID, a.phyOffset, a.queueID, a.queueOffset, a.cycle)
}

// sent is what the ledger remembers of every attempted send, acknowledged or not.
type sent struct {
	bodyCRC uint32
	bodyLen int
	padLen  int // length of the padProp property, -1 without it
}

// Properties of the crash-run messages besides KEYS: every message has tag crashTag, and half of
// them a padProp property of up to 1500 bytes, so that a kill often lands while a record's
// properties are being written.
const (
	crashTag = "crash"
	padProp  = "pad"
)

// ledger records every send of a run. It is safe for concurrent use.
type ledger struct {
	mu       sync.Mutex
	acks     []*ack
	sent     map[string]sent // by key
	failures map[string]int  // failed sends by a short reason
	perCycle map[int]int     // acknowledgements per cycle
	total    atomic.Int64    // acknowledgements so far
	maxPhy   atomic.Int64    // highest acknowledged commit log offset
}

func newLedger() *ledger {
	return &ledger{sent: map[string]sent{}, failures: map[string]int{}, perCycle: map[int]int{}}
}

func (l *ledger) attempt(key string, body []byte, padLen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent[key] = sent{bodyCRC: crc32.ChecksumIEEE(body), bodyLen: len(body), padLen: padLen}
}

func (l *ledger) acked(a *ack) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acks = append(l.acks, a)
	l.perCycle[a.cycle]++
	l.total.Add(1)
	for {
		cur := l.maxPhy.Load()
		if a.phyOffset <= cur || l.maxPhy.CompareAndSwap(cur, a.phyOffset) {
			break
		}
	}
}

func (l *ledger) failed(reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures[reason]++
}

// snapshot returns the acknowledgements, the attempted sends and the failure counts.
func (l *ledger) snapshot() ([]*ack, map[string]sent, map[string]int) {
	failures := l.failureCounts()
	l.mu.Lock()
	defer l.mu.Unlock()
	sentCopy := make(map[string]sent, len(l.sent))
	for k, v := range l.sent {
		sentCopy[k] = v
	}
	return append([]*ack(nil), l.acks...), sentCopy, failures
}

// failureCounts returns the failed sends by reason.
func (l *ledger) failureCounts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.failures))
	for k, v := range l.failures {
		out[k] = v
	}
	return out
}

func (l *ledger) cycleAcks(cycle int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.perCycle[cycle]
}

// failureSummary formats failure counts, most frequent first.
func failureSummary(f map[string]int) string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range f {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v })
	var parts []string
	for _, e := range all {
		parts = append(parts, fmt.Sprintf("%d× %s", e.v, e.k))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// load is a set of Go-client producers sending messages with unique keys to one topic, each
// producer from several goroutines, until stopped. Every attempt goes to the ledger, and every
// SEND_OK with its send result.
type load struct {
	t      testing.TB
	topic  string
	prefix string
	led    *ledger
	cycle  atomic.Int32
	stop   chan struct{}
	wg     sync.WaitGroup
}

// startLoad starts producers × workers senders. Bodies are 64..1500 printable bytes (below the
// client's 4 KiB compression threshold) beginning with the key; their lengths come from rngSeed.
func startLoad(t testing.TB, c *cluster.Cluster, group, topic, prefix string, producers, workers int, rngSeed int64) *load {
	t.Helper()
	l := &load{t: t, topic: topic, prefix: prefix, led: newLedger(), stop: make(chan struct{})}
	for p := range producers {
		prod := newProducer(t, c, group)
		for w := range workers {
			id := p*workers + w
			rng := rand.New(rand.NewPCG(uint64(rngSeed), uint64(id)))
			l.wg.Add(1)
			go l.worker(prod, id, rng)
		}
	}
	return l
}

// setCycle names the kill cycle that later acknowledgements belong to.
func (l *load) setCycle(n int) { l.cycle.Store(int32(n)) }

// close stops the senders and waits for them (a send caught by a kill returns within sendTimeout).
func (l *load) close() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
}

const bodyAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func makeBody(rng *rand.Rand, key string) []byte {
	n := 64 + rng.IntN(1500-64)
	b := make([]byte, 0, n)
	b = append(b, key...)
	b = append(b, '|')
	return randomText(rng, b, n)
}

// randomText appends printable bytes to b up to length n.
func randomText(rng *rand.Rand, b []byte, n int) []byte {
	for len(b) < n {
		b = append(b, bodyAlphabet[rng.IntN(len(bodyAlphabet))])
	}
	return b
}

// crashMessage builds a crash-run message: body, KEYS, TAGS and, for half of them, a padding
// property. It returns the padding length (-1 without one).
func crashMessage(rng *rand.Rand, topic, key string) (*primitive.Message, []byte, int) {
	body := makeBody(rng, key)
	msg := primitive.NewMessage(topic, body)
	msg.WithKeys([]string{key})
	msg.WithTag(crashTag)
	padLen := -1
	if rng.IntN(2) == 0 {
		padLen = 1 + rng.IntN(1500)
		msg.WithProperty(padProp, string(randomText(rng, nil, padLen)))
	}
	return msg, body, padLen
}

func (l *load) worker(p rocketmq.Producer, id int, rng *rand.Rand) {
	defer l.wg.Done()
	backoff := time.NewTimer(0)
	defer backoff.Stop()
	for seq := 0; ; seq++ {
		select {
		case <-l.stop:
			return
		default:
		}
		key := fmt.Sprintf("%s-w%d-%d", l.prefix, id, seq)
		msg, body, padLen := crashMessage(rng, l.topic, key)
		l.led.attempt(key, body, padLen)
		cycle := int(l.cycle.Load())
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+2*time.Second)
		res, err := p.SendSync(ctx, msg)
		cancel()
		if err == nil && res.Status == primitive.SendOK {
			a := &ack{key: key, uniqID: res.MsgID, offsetMsgID: res.OffsetMsgID, queueID: res.MessageQueue.QueueId,
				queueOffset: res.QueueOffset, bodyCRC: crc32.ChecksumIEEE(body), bodyLen: len(body), cycle: cycle}
			off, perr := phyOffsetOf(res.OffsetMsgID)
			if perr != nil {
				l.t.Errorf("SEND_OK for %s with a bad offset msgId: %v", key, perr)
			}
			a.phyOffset = off
			l.led.acked(a)
			continue
		}
		l.led.failed(sendFailure(res, err))
		// The broker is down or recovering: do not spin on it.
		backoff.Reset(20 * time.Millisecond)
		select {
		case <-l.stop:
			return
		case <-backoff.C:
		}
	}
}

// sendFailure names why a send was not acknowledged, briefly enough to count.
func sendFailure(res *primitive.SendResult, err error) string {
	if err == nil {
		return fmt.Sprintf("status %d", res.Status)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	case strings.Contains(err.Error(), "timeout") || strings.Contains(err.Error(), "deadline"):
		return "timeout"
	case strings.Contains(err.Error(), "CODE: "):
		s := err.Error()
		if i := strings.Index(s, ", DESC"); i > 0 {
			return s[:i]
		}
		return s
	}
	s := err.Error()
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}
