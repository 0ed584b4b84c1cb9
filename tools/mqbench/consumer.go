package mqbench

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Pull request sysFlag bits (Java PullSysFlag).
const (
	pullFlagSuspend      = 1 << 1
	pullFlagSubscription = 1 << 2
)

// suspendMillis is how long the broker may hold a pull that found nothing.
// A PULL_NOT_FOUND sooner than minHold means the broker did not hold it
// (long polling off or not implemented): the queue pauses instead of
// spinning.
const (
	suspendMillis = 5000
	minHold       = 100 * time.Millisecond
)

// consumer reads queues with up to PullWindow pulls in flight per queue.
// Every pull asks for its own span [offset, offset+n) of the queue; spans
// never overlap. Inside a queue's known end, spans go out ahead at offset,
// offset+PullBatch, and so on; an answer with fewer records leaves the rest
// of its span as a hole that is pulled again. Past the known end at most
// one pull per queue is out at a time: the broker holds it (long polling)
// until messages arrive.
type consumer struct {
	o    *Options
	cli  *remoting.Client
	keys keySpace
	tr   *tracker // nil: keys are not checked
	qs   []*pullQueue

	ctx    context.Context
	cancel context.CancelFunc

	// target is the messages to read, <0 while not known (still producing).
	// With a tracker, progress is the acknowledged messages that arrived;
	// without, every message read.
	target        atomic.Int64
	got           atomic.Int64 // messages read
	msgs          atomic.Int64 // every message read
	bytes         atomic.Int64 // body bytes read
	pulls         atomic.Int64
	failedPulls   atomic.Int64 // pulls that failed or found nothing they should have
	foreign       atomic.Int64 // records without one of this run's keys
	badCRC        atomic.Int64
	badOrder      atomic.Int64 // a record not at the queue, offset or topic asked for
	lastRead      atomic.Int64 // unix ns
	allFailed     atomic.Int64 // queues abandoned
	idled         atomic.Bool  // stopped after IdleTimeout without a message
	drainedQueues atomic.Int64
	done          chan struct{}
	doneOnce      sync.Once

	hist    Histogram
	codes   codeCounter
	pullReq *reqPool // PULL_MESSAGE commands

	backoff time.Duration // pause unit after a failed or unheld pull

	// inflight counts pulls whose callback has not run. The client must
	// outlive them: remoting's Client.Close does not wait for callbacks
	// of calls whose context was cancelled just before.
	inflight sync.WaitGroup
	// issuing guards inflight.Add against the final Wait: once closed,
	// nothing is sent.
	issuing struct {
		sync.Mutex
		closed bool
	}
}

// pullQueue is one queue's read state.
type pullQueue struct {
	q  queueRef
	mu sync.Mutex
	// Every offset in [start, next) is read, in a pending span, or in a hole.
	start, next int64
	max         int64 // the queue's end as far as is known
	pending     []span
	holes       []span // sorted by offset
	errStreak   int
	pauseUntil  time.Time // back-off after a failed pull
	failed      bool
	drainTo     int64 // <0: none; else the run ends once every queue is read up to its drainTo
	drained     bool
}

type span struct {
	off int64
	n   int
}

func (s span) end() int64 { return s.off + int64(s.n) }

// errLimit is how many failed pulls in a row make a queue give up.
const errLimit = 50

// newConsumer returns a consumer without queues; run sets its client and
// context.
func newConsumer(o *Options, keys keySpace, tr *tracker) *consumer {
	c := &consumer{o: o, keys: keys, tr: tr, done: make(chan struct{}), backoff: 50 * time.Millisecond,
		pullReq: newReqPool(protocol.PullMessage, o.Serialize, false)}
	c.target.Store(-1)
	return c
}

// addQueue adds a queue to read from start, whose end is max as far as is known.
func (c *consumer) addQueue(q queueRef, start, max int64) {
	c.qs = append(c.qs, &pullQueue{q: q, start: start, next: start, max: max, drainTo: -1})
}

// drain makes the run end once every queue is read up to the end it had
// when added, whatever the message count.
func (c *consumer) drain() {
	for _, pq := range c.qs {
		pq.drainTo = pq.max
	}
}

// setTarget sets how many messages end the run.
func (c *consumer) setTarget(n int64) {
	c.target.Store(n)
	c.checkDone()
}

func (c *consumer) checkDone() {
	if t := c.target.Load(); t >= 0 && c.progress() >= t {
		c.doneOnce.Do(func() { close(c.done) })
	}
}

// progress is how far the run is toward its target.
func (c *consumer) progress() int64 {
	if c.tr != nil {
		return c.tr.arrived.Load()
	}
	return c.got.Load()
}

func (c *consumer) stopping() bool { return c.ctx.Err() != nil }

// wantMore reports whether the run still needs messages past the known ends.
func (c *consumer) wantMore() bool {
	t := c.target.Load()
	return t < 0 || c.progress() < t
}

// run pulls over cli until the target is read or ctx ends; it returns true
// when the target was reached. Pulls still out are cancelled and their
// callbacks have run when it returns.
func (c *consumer) run(ctx context.Context, cli *remoting.Client) bool {
	c.cli = cli
	c.ctx, c.cancel = context.WithCancel(ctx)
	defer func() {
		c.cancel()
		c.issuing.Lock()
		c.issuing.closed = true
		c.issuing.Unlock()
		c.inflight.Wait()
	}()
	for _, pq := range c.qs {
		pq.mu.Lock()
		c.checkDrained(pq)
		pq.mu.Unlock()
	}
	for _, pq := range c.qs {
		c.fill(pq)
	}
	idle := time.NewTicker(min(max(c.o.IdleTimeout/4, time.Millisecond), time.Second))
	defer idle.Stop()
	c.lastRead.Store(time.Now().UnixNano())
	for {
		select {
		case <-c.done:
			return true
		case <-c.ctx.Done():
			return false
		case now := <-idle.C:
			if now.Sub(time.Unix(0, c.lastRead.Load())) > c.o.IdleTimeout {
				c.idled.Store(true)
				return false
			}
		}
	}
}

// fill issues pulls until pq's window is full or there is nothing to ask.
func (c *consumer) fill(pq *pullQueue) {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	if time.Now().Before(pq.pauseUntil) {
		return
	}
	for !pq.failed && !c.stopping() && len(pq.pending) < c.o.PullWindow {
		s, ok := c.nextSpan(pq)
		if !ok || !c.issue(pq, s) {
			return
		}
	}
}

// nextSpan picks what to pull next: the first hole, else the next span
// inside the known end, else (if more messages are wanted and no pull is
// waiting past the end already) a span past the end. pq.mu is held.
func (c *consumer) nextSpan(pq *pullQueue) (span, bool) {
	if c.filtering() && len(pq.pending) > 0 {
		return span{}, false
	}
	waiting := false // a pull past the known end is out
	for _, p := range pq.pending {
		if p.off >= pq.max {
			waiting = true
		}
	}
	if len(pq.holes) > 0 && (pq.holes[0].off < pq.max || !waiting) {
		s := pq.holes[0]
		pq.holes = pq.holes[1:]
		return s, true
	}
	if len(pq.holes) > 0 {
		return span{}, false // the first hole is past the end and already waited on
	}
	if pq.next < pq.max {
		s := span{pq.next, int(min(int64(c.o.PullBatch), pq.max-pq.next))}
		pq.next = s.end()
		return s, true
	}
	// Past the end only from exactly the end: beyond it the broker answers
	// PULL_OFFSET_MOVED instead of holding the pull.
	if !waiting && pq.next == pq.max && c.wantMore() {
		s := span{pq.next, c.o.PullBatch}
		pq.next = s.end()
		return s, true
	}
	return span{}, false
}

// issue sends one pull for s; pq.mu is held. When the broker cannot be
// reached the span goes back and a later fill is scheduled.
func (c *consumer) issue(pq *pullQueue, s span) bool {
	conn, err := c.cli.Conn(c.ctx, pq.q.Addr)
	if err != nil {
		c.codes.addErr(err)
		c.failedPull(pq, s)
		return false
	}
	req := c.pullRequest(pq, s)
	c.issuing.Lock()
	if c.issuing.closed {
		c.issuing.Unlock()
		req.Release()
		c.putBack(pq, s)
		return false
	}
	c.inflight.Add(1)
	c.issuing.Unlock()
	pq.pending = append(pq.pending, s)
	c.pulls.Add(1)
	start := time.Now()
	conn.InvokeAsync(c.ctx, req, func(resp *protocol.Command, err error) {
		defer c.inflight.Done()
		if err == nil && resp.ResponseCode() == protocol.Success {
			c.hist.Record(time.Since(start)) // held long polls would only measure the hold
		}
		c.answered(pq, s, start, resp, err)
		if !c.stopping() {
			c.fill(pq)
		}
	})
	return true
}

// pullRequest builds the PULL_MESSAGE of s from pq, held by the broker up to suspendMillis when
// there is nothing to read yet, in a recycled command.
func (c *consumer) pullRequest(pq *pullQueue, s span) *protocol.Command {
	req := c.pullReq.get()
	protocol.PullMessageRequestHeader{
		ConsumerGroup:        c.o.Group,
		Topic:                c.o.Topic,
		QueueID:              pq.q.QueueID,
		QueueOffset:          s.off,
		MaxMsgNums:           int32(s.n),
		SysFlag:              pullFlagSuspend | pullFlagSubscription,
		SuspendTimeoutMillis: suspendMillis,
		Subscription:         protocol.Some(c.subscription()),
		ExpressionType:       protocol.Some(body.ExpressionTag),
	}.Encode(&req.ExtFields)
	return req
}

func (c *consumer) subscription() string { return c.o.Subscription }

// filtering reports whether the broker may skip messages (a tag filter):
// then its answers do not map onto spans, so each queue is read one pull
// at a time, following nextBeginOffset.
func (c *consumer) filtering() bool { return c.o.Subscription != "*" }

// putBack returns (part of) a span to be pulled again; pq.mu is held.
func (c *consumer) putBack(pq *pullQueue, s span) {
	if s.n <= 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(pq.holes, s.off, func(h span, off int64) int { return cmp.Compare(h.off, off) })
	pq.holes = slices.Insert(pq.holes, i, s)
}

// retryLater pauses pq's pulls for a while, longer after each failure in
// a row; pq.mu is held.
func (c *consumer) retryLater(pq *pullQueue) {
	c.pause(pq, time.Duration(min(pq.errStreak+1, 20))*c.backoff)
}

// pause stops pq's pulls for d, then fills its window again; pq.mu is held.
func (c *consumer) pause(pq *pullQueue, d time.Duration) {
	if c.stopping() {
		return
	}
	pq.pauseUntil = time.Now().Add(d)
	time.AfterFunc(d, func() {
		if !c.stopping() {
			c.fill(pq)
		}
	})
}

// answered accounts for the answer to the pull of s, sent at sent.
func (c *consumer) answered(pq *pullQueue, s span, sent time.Time, resp *protocol.Command, err error) {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	if i := slices.Index(pq.pending, s); i >= 0 {
		pq.pending = slices.Delete(pq.pending, i, i+1)
	}
	if err != nil {
		if c.stopping() {
			c.putBack(pq, s) // unread: committable must not pass it
			return
		}
		c.codes.addErr(err)
		c.failedPull(pq, s)
		return
	}
	c.codes.add(resp.ResponseCode())
	nextBegin, maxOffset := pullPositions(resp)
	if maxOffset > pq.max {
		pq.max = maxOffset
	}
	switch resp.ResponseCode() {
	case protocol.Success:
		k := c.records(pq, s, resp.Body)
		if k == 0 || nextBegin <= s.off {
			c.failedPull(pq, s)
			return
		}
		pq.errStreak = 0
		c.advance(pq, s, nextBegin)
		c.checkDone()
	case protocol.PullNotFound:
		// Nothing at s.off yet. A held pull is asked again at once; one
		// answered at once (inside the end, or no long polling) after a pause.
		c.putBack(pq, s)
		if time.Since(sent) < minHold {
			c.pause(pq, c.backoff)
		}
	case protocol.PullOffsetMoved:
		// [s.off, nextBegin) is gone; keep reading after it.
		if nextBegin > s.off {
			c.putBack(pq, span{nextBegin, int(s.end() - nextBegin)})
			if nextBegin > s.end() {
				pq.next = max(pq.next, nextBegin)
			}
		} else {
			c.failedPull(pq, s)
		}
	case protocol.PullRetryImmediately:
		// Every message in the scanned range was filtered out.
		if c.filtering() && nextBegin > s.off {
			pq.errStreak = 0
			c.advance(pq, s, nextBegin)
			break
		}
		c.failedPull(pq, s)
	default:
		c.failedPull(pq, s)
	}
	c.checkDrained(pq)
}

// pullPositions reads a pull answer's nextBeginOffset and maxOffset. Error answers carry no
// header: a field that is missing or malformed reads as 0, which is never past a span's start
// nor past a queue's known end, so it moves nothing.
func pullPositions(resp *protocol.Command) (nextBegin, maxOffset int64) {
	var h protocol.PullMessageResponseHeader
	_ = h.Decode(resp.ExtFields) // the fields found are filled whatever is missing
	return h.NextBeginOffset, h.MaxOffset
}

// advance records that the broker read s up to nextBegin; pq.mu is held.
// Without a filter the rest of the span is a hole; with one, reading goes
// on at nextBegin (the only span out was s).
func (c *consumer) advance(pq *pullQueue, s span, nextBegin int64) {
	if c.filtering() {
		pq.next = nextBegin
		return
	}
	c.putBack(pq, span{nextBegin, int(s.end() - nextBegin)})
}

// checkDrained ends the run once every queue has been read up to its
// drain offset (consuming without a message count); pq.mu is held.
func (c *consumer) checkDrained(pq *pullQueue) {
	if pq.drainTo < 0 || pq.drained || pq.committableLocked() < pq.drainTo {
		return
	}
	pq.drained = true
	if c.drainedQueues.Add(1) == int64(len(c.qs)) {
		c.doneOnce.Do(func() { close(c.done) })
	}
}

// failedPull puts s back and backs off; too many failures in a row end
// the queue. pq.mu is held.
func (c *consumer) failedPull(pq *pullQueue, s span) {
	c.failedPulls.Add(1)
	pq.errStreak++
	if pq.errStreak >= errLimit {
		pq.failed = true
		c.codes.addName("error: queue " + pq.q.String() + " abandoned after repeated failures")
		if c.allFailed.Add(1) == int64(len(c.qs)) {
			c.cancel()
		}
		return
	}
	c.putBack(pq, s)
	c.retryLater(pq)
}

// records walks a pull body, checks each record belongs where it was asked
// for, and counts it. It returns the number of records.
func (c *consumer) records(pq *pullQueue, s span, body []byte) int {
	var seqs []uint64
	var at []msgPos
	var k int
	var bytes int64
	want := s.off // the offset the next record must have (at least, when filtering)
	it := message.NewIterator(body)
	for it.Next() {
		v := it.View()
		off := v.QueueOffset()
		inPlace := off == want || c.filtering() && off > want
		if v.QueueID() != pq.q.QueueID || !inPlace || string(v.Topic()) != c.o.Topic {
			c.badOrder.Add(1)
		}
		want = off + 1
		if c.o.CheckCRC && !v.CheckCRC() {
			c.badCRC.Add(1)
		}
		bytes += int64(len(v.Body()))
		k++
		key, _ := v.Property(message.PropertyUniqClientMessageID)
		if seq, ok := c.keys.seqOf(key); ok && (c.tr == nil || c.tr.plausible(seq)) {
			if c.tr != nil {
				seqs = append(seqs, seq)
				at = append(at, msgPos{q: v.QueueID(), off: v.QueueOffset(), phy: v.PhysicalOffset()})
			}
		} else {
			c.foreign.Add(1)
		}
	}
	if it.Err() != nil {
		c.codes.addName("error: malformed record in pull body")
	}
	if len(seqs) > 0 {
		c.tr.received(seqs, at)
	}
	c.msgs.Add(int64(k))
	c.bytes.Add(bytes)
	c.got.Add(int64(k))
	if k > 0 {
		c.lastRead.Store(time.Now().UnixNano())
	}
	return k
}

// committable is the offset before which pq has read everything.
func (pq *pullQueue) committable() int64 {
	pq.mu.Lock()
	defer pq.mu.Unlock()
	return pq.committableLocked()
}

func (pq *pullQueue) committableLocked() int64 {
	off := pq.next
	for _, s := range pq.pending {
		off = min(off, s.off)
	}
	for _, s := range pq.holes {
		off = min(off, s.off)
	}
	return off
}
