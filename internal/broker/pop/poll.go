package pop

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// Long polling of POP_MESSAGE and NOTIFICATION (Java PopLongPollingService): a request that
// finds nothing is held until a message is dispatched to a topic it reads, or its poll time
// (counted from its born time) is over. A dispatched message wakes one held request of each
// group reading the topic, which runs again and, finding nothing (a filtered message), is held
// again. Holds are bounded per group, topic and queue, per connection and in all; none is held
// longer than maxWait whatever its poll time; a closed connection's holds are dropped.

// holdOutcome is what holding a request came to.
type holdOutcome int

const (
	holdNo   holdOutcome = iota // not held: no poll time, or it is over
	holdOK                      // held; its callback runs later
	holdFull                    // not held: the broker holds too many (POLLING_FULL)
)

// pollKey is Java's polling key: topic, group and queue id (-1: every queue).
type pollKey struct {
	topic, group string
	queueID      int32
}

// hold is one held request.
type hold struct {
	key      pollKey
	topics   []string // the topics whose messages wake it: its topic, and for a pop its retry topic
	pop      bool     // a POP_MESSAGE (POLLING_INFO counts only these)
	connID   uint64
	deadline int64
	run      func(final bool) // runs the request again; final: its time is up
	timer    *time.Timer
	done     atomic.Bool
}

// pollLimits bound what polls holds: per key (popPollingSize), per connection
// (longPollingMaxHeldPerConnection), in all (maxPopPollingSize), and how long (ms) one request
// is held (longPollingMaxSuspendMillis).
type pollLimits struct {
	perKey, perConn, total int
	maxWait                int64
}

// polls holds the requests.
type polls struct {
	pollLimits
	g *lifecycle.Group

	count   atomic.Int64
	mu      sync.Mutex
	closed  bool
	byKey   map[pollKey][]*hold
	byTopic map[string]map[string][]*hold // topic → group → holds, oldest first
	byConn  map[uint64]map[*hold]struct{} // connection → its holds (connection 0 is not counted)
}

func newPolls(l pollLimits, g *lifecycle.Group) *polls {
	return &polls{pollLimits: l, g: g, byKey: map[pollKey][]*hold{},
		byTopic: map[string]map[string][]*hold{}, byConn: map[uint64]map[*hold]struct{}{}}
}

// holdPop holds a POP that found nothing.
func (p *polls) holdPop(r *Request, now int64, wake func(Result, error), repop func(*Request, func(Result, error), bool)) holdOutcome {
	if r.PollTime <= 0 || wake == nil {
		return holdNo
	}
	topics := []string{r.Topic}
	if !r.Order {
		topics = append(topics, RetryTopic(r.Group, r.Topic))
	}
	h := &hold{key: pollKey{r.Topic, r.Group, r.QueueID}, topics: topics, pop: true, connID: r.ConnID,
		deadline: r.BornTime + r.PollTime, run: func(final bool) { repop(r, wake, final) }}
	return p.add(h, now)
}

// add holds h until a message or its deadline (at most maxWait from now).
func (p *polls) add(h *hold, now int64) holdOutcome {
	if now >= h.deadline {
		return holdNo
	}
	h.deadline = min(h.deadline, now+p.maxWait)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return holdNo
	}
	if p.fullLocked(h) {
		return holdFull
	}
	p.byKey[h.key] = append(p.byKey[h.key], h)
	if h.connID != 0 {
		own := p.byConn[h.connID]
		if own == nil {
			own = map[*hold]struct{}{}
			p.byConn[h.connID] = own
		}
		own[h] = struct{}{}
	}
	for _, t := range h.topics {
		groups := p.byTopic[t]
		if groups == nil {
			groups = map[string][]*hold{}
			p.byTopic[t] = groups
		}
		groups[h.key.group] = append(groups[h.key.group], h)
	}
	p.count.Add(1)
	h.timer = time.AfterFunc(time.Duration(h.deadline-now)*time.Millisecond, func() { p.expire(h) })
	return holdOK
}

// fullLocked reports whether holding h would pass a bound: in all, of its key (Java's test,
// which lets a key reach popPollingSize + 1) or of its connection. REQUIRES: p.mu held.
func (p *polls) fullLocked(h *hold) bool {
	return int(p.count.Load()) >= p.total || len(p.byKey[h.key]) > p.perKey ||
		(h.connID != 0 && len(p.byConn[h.connID]) >= p.perConn)
}

// notify wakes, for each group holding requests that read topic (queue q or every queue), the
// oldest held POP and the oldest held NOTIFICATION.
func (p *polls) notify(topic string, q int32) {
	if p.count.Load() == 0 {
		return
	}
	var woken []*hold
	p.mu.Lock()
	for _, hs := range p.byTopic[topic] {
		var pop, note bool
		for _, h := range hs {
			if (h.pop && pop) || (!h.pop && note) || !(h.key.queueID < 0 || h.key.queueID == q || h.key.topic != topic) {
				continue
			}
			woken = append(woken, h)
			pop, note = pop || h.pop, note || !h.pop
			if pop && note {
				break
			}
		}
	}
	for _, h := range woken {
		p.removeLocked(h)
	}
	p.mu.Unlock()
	for _, h := range woken {
		p.fire(h, false)
	}
}

func (p *polls) expire(h *hold) {
	p.mu.Lock()
	ok := p.removeLocked(h)
	p.mu.Unlock()
	if ok {
		p.fire(h, true)
	}
}

// removeLocked takes h out of the indexes; false when it is not there. REQUIRES: p.mu held.
func (p *polls) removeLocked(h *hold) bool {
	list, ok := remove(p.byKey[h.key], h)
	if !ok {
		return false
	}
	setOrDelete(p.byKey, h.key, list)
	if own := p.byConn[h.connID]; own != nil {
		delete(own, h)
		if len(own) == 0 {
			delete(p.byConn, h.connID)
		}
	}
	for _, t := range h.topics {
		groups := p.byTopic[t]
		rest, _ := remove(groups[h.key.group], h)
		setOrDelete(groups, h.key.group, rest)
		if len(groups) == 0 {
			delete(p.byTopic, t)
		}
	}
	p.count.Add(-1)
	return true
}

func remove(list []*hold, h *hold) ([]*hold, bool) {
	for i, x := range list {
		if x == h {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1], true
		}
	}
	return list, false
}

func setOrDelete[K comparable](m map[K][]*hold, k K, list []*hold) {
	if len(list) == 0 {
		delete(m, k)
	} else {
		m[k] = list
	}
}

// fire runs a removed hold once, on a goroutine of the service's group (in line once the group
// stops).
func (p *polls) fire(h *hold, final bool) {
	if !h.done.CompareAndSwap(false, true) {
		return
	}
	if h.timer != nil {
		h.timer.Stop()
	}
	if !p.g.Go(func(<-chan struct{}) { p.runRecovered(h, final) }) {
		p.runRecovered(h, true)
	}
}

// runRecovered runs a hold again, outside the request that held it: a panic there (the POP path,
// or the adapter's answer) is passed to the group's OnPanic instead of ending the broker.
func (p *polls) runRecovered(h *hold, final bool) {
	defer func() {
		if v := recover(); v != nil && p.g.OnPanic != nil {
			p.g.OnPanic(v, debug.Stack())
		}
	}()
	h.run(final)
}

// dropConn forgets the holds of a closed connection: there is no one to answer.
func (p *polls) dropConn(connID uint64) {
	if connID == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for h := range p.byConn[connID] {
		if p.removeLocked(h) && h.done.CompareAndSwap(false, true) {
			h.timer.Stop()
		}
	}
}

// heldBy is the number of requests of a connection held (tests).
func (p *polls) heldBy(connID uint64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byConn[connID])
}

// closeAll answers every hold as timed out and holds no more.
func (p *polls) closeAll() {
	p.mu.Lock()
	p.closed = true
	var all []*hold
	for _, list := range p.byKey {
		all = append(all, list...)
	}
	for _, h := range all {
		p.removeLocked(h)
	}
	p.mu.Unlock()
	for _, h := range all {
		p.fire(h, true)
	}
}

// pops is the number of held POP requests of a key.
func (p *polls) pops(k pollKey) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, h := range p.byKey[k] {
		if h.pop {
			n++
		}
	}
	return n
}
