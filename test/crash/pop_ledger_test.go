package crash

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// popLedger records a POP crash run: the sends the broker acknowledged, and per key every
// delivery, every ack a consumer got SUCCESS for and every ack that got no answer at all (the
// broker was killed while it was in flight), in the order they happened.
type popLedger struct {
	mu         sync.Mutex
	sends      map[string]bool
	events     map[string][]popEvent
	acks       map[string]bool
	deliveries atomic.Int64
}

// popEvent is a delivery or an ack of one key.
type popEvent struct {
	ack    bool
	timely bool // an ack answered popTimelyMargin before the message would become visible again
	// unanswered: an ack sent that got no answer; the broker may or may not have applied it.
	unanswered bool
	m          popped
	at         time.Time // when the delivery arrived, or the ack was answered (or failed)
}

func newPopLedger() *popLedger {
	return &popLedger{sends: map[string]bool{}, events: map[string][]popEvent{}, acks: map[string]bool{}}
}

func (l *popLedger) sent(key string) {
	l.mu.Lock()
	l.sends[key] = true
	l.mu.Unlock()
}

func (l *popLedger) delivered(m popped) {
	l.deliveries.Add(1)
	l.mu.Lock()
	l.events[m.key] = append(l.events[m.key], popEvent{m: m, at: time.Now()})
	l.mu.Unlock()
}

func (l *popLedger) acked(m popped, at time.Time) {
	l.mu.Lock()
	l.events[m.key] = append(l.events[m.key], popEvent{ack: true, timely: at.Add(popTimelyMargin).Before(m.visibleAgain), m: m, at: at})
	l.acks[m.key] = true
	l.mu.Unlock()
}

// ackUnanswered records an ack of m that got no answer (the connection broke: a kill).
func (l *popLedger) ackUnanswered(m popped) {
	l.mu.Lock()
	l.events[m.key] = append(l.events[m.key], popEvent{ack: true, unanswered: true, m: m, at: time.Now()})
	l.mu.Unlock()
}

// settledUnanswered reports whether key's last event is an ack that got no answer: the broker
// may have applied it (then the message never comes back) or not (then it comes back and is
// delivered again, which makes a new last event). REQUIRES l.mu.
func (l *popLedger) settledUnanswered(key string) bool {
	evs := l.events[key]
	return len(evs) > 0 && evs[len(evs)-1].unanswered
}

func (l *popLedger) sendAcks() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.sends)
}

func (l *popLedger) ackCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acks)
}

// unconsumed counts acknowledged sends no consumer has acknowledged yet, leaving out those whose
// last delivery's ack got no answer.
func (l *popLedger) unconsumed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for k := range l.sends {
		if !l.acks[k] && !l.settledUnanswered(k) {
			n++
		}
	}
	return n
}

// popReport is what a run came to.
type popReport struct {
	sent, deliveries                         int
	lost, ackedRedelivered, ackUnanswered    int
	unackedBack, lateBack, reviveDups        int
	duplicateBack                            int
	lostKeys, redeliveredKeys                []string
	flagged                                  []string // the keys of redeliveredKeys
	dupKeys                                  []string // keys with a revive duplicate
	twiceKeys                                []string // keys delivered more than once
	detail                                   string
	keysDelivered, keysTwice, retryDelivered int
}

// report classifies every delivery that came after another of its key:
//   - after a timely ack of the same stored record, or with a higher reconsumeTimes than a
//     timely-acknowledged delivery: ackedRedelivered (must not happen), unless ev (what the
//     broker stored, nil before it is read) shows the latter descends from a revive duplicate's
//     other copy: duplicateBack (below);
//   - after a timely ack but of another stored copy with no higher reconsumeTimes: a revive
//     duplicate (a kill between storing a retry copy and recording the revive);
//   - after only late acks: lateBack; after no ack at all: unackedBack (expected).
//
// A revive duplicate is two copies of one attempt in the retry topic, each its own delivery:
// acknowledging one settles nothing of the other, which comes back with one more reconsume when
// it is not acknowledged in time (left unacknowledged, or popped by a pop whose answer a kill
// lost). Such a delivery is duplicateBack when the retry topic holds a copy of the previous
// reconsume that no consumer acknowledged in time and the revive log shows no timely-acknowledged
// message of the key revived.
func (l *popLedger) report(ev *popEvidence) popReport {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := popReport{sent: len(l.sends), deliveries: int(l.deliveries.Load())}
	for k := range l.sends {
		switch {
		case l.acks[k]:
		case l.settledUnanswered(k):
			r.ackUnanswered++
		default:
			r.lost++
			r.lostKeys = appendSome(r.lostKeys, k)
		}
	}
	for k, evs := range l.events {
		l.classify(k, evs, ev, &r)
	}
	sort.Strings(r.lostKeys)
	sort.Strings(r.redeliveredKeys)
	r.detail = fmt.Sprintf("%d keys delivered (%d more than once, %d deliveries from the retry topic), %d sends acknowledged, "+
		"%d keys acknowledged by a consumer", r.keysDelivered, r.keysTwice, r.retryDelivered, len(l.sends), len(l.acks))
	return r
}

func (l *popLedger) classify(key string, evs []popEvent, ev *popEvidence, r *popReport) {
	r.keysDelivered++
	timely := map[string]bool{}
	var timelyAcks []popped
	maxTimely := int32(-1)
	seen, anyAck := 0, false
	for _, e := range evs {
		if e.unanswered {
			continue
		}
		if e.ack {
			anyAck = true
			if e.timely {
				timely[e.m.record()] = true
				timelyAcks = append(timelyAcks, e.m)
				maxTimely = max(maxTimely, e.m.reconsume)
			}
			continue
		}
		seen++
		if e.m.reconsume > 0 {
			r.retryDelivered++
		}
		if seen == 1 {
			continue
		}
		if seen == 2 {
			r.keysTwice++
			r.twiceKeys = appendSome(r.twiceKeys, key)
		}
		switch {
		case !timely[e.m.record()] && maxTimely >= 0 && e.m.reconsume > maxTimely &&
			ev.duplicateDescendant(key, e.m.reconsume, timely, timelyAcks):
			r.duplicateBack++
		case timely[e.m.record()] || (maxTimely >= 0 && e.m.reconsume > maxTimely):
			r.ackedRedelivered++
			r.redeliveredKeys = appendSome(r.redeliveredKeys, fmt.Sprintf("%s(%s rc=%d)", key, e.m.record(), e.m.reconsume))
			if !slices.Contains(r.flagged, key) {
				r.flagged = appendSome(r.flagged, key)
			}
		case maxTimely >= 0:
			r.reviveDups++
			r.dupKeys = appendSome(r.dupKeys, key)
		case anyAck:
			r.lateBack++
		default:
			r.unackedBack++
		}
	}
}

// history returns a copy of key's events in the order they happened.
func (l *popLedger) history(key string) []popEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events[key])
}

// appendSome keeps the first 20 examples.
func appendSome(s []string, v string) []string {
	if len(s) < 20 {
		return append(s, v)
	}
	return s
}
