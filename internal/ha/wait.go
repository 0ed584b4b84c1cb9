package ha

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/store"
)

// waitList holds the SYNC_MASTER puts waiting for a slave's acknowledgement (Java
// GroupTransferService). Waiters are pooled with their timers, so a wait does not allocate.
type waitList struct {
	mu      sync.Mutex
	waiters []*waiter
	closed  bool
	pool    sync.Pool // *waiter
}

// waiter is one put waiting until an acknowledgement reaches end.
type waiter struct {
	end   int64
	ch    chan store.PutStatus // capacity 1; receives exactly one status
	timer *time.Timer
}

// wait blocks until acked reaches end (PutOK), or timeout passes or the list closes
// (FlushSlaveTimeout).
func (l *waitList) wait(end int64, timeout time.Duration, acked *atomic.Int64) store.PutStatus {
	l.mu.Lock()
	switch {
	case acked.Load() >= end:
		l.mu.Unlock()
		return store.PutOK
	case l.closed:
		l.mu.Unlock()
		return store.FlushSlaveTimeout
	}
	w := l.get(end, timeout)
	l.waiters = append(l.waiters, w)
	l.mu.Unlock()
	select {
	case st := <-w.ch:
		l.put(w)
		return st
	case <-w.timer.C:
	}
	l.mu.Lock()
	i := slices.Index(l.waiters, w)
	if i >= 0 {
		l.waiters = slices.Delete(l.waiters, i, i+1)
	}
	l.mu.Unlock()
	st := store.FlushSlaveTimeout
	if i < 0 {
		st = <-w.ch // completed while the timer fired
	}
	l.put(w)
	return st
}

// notify completes every waiter that acked covers.
func (l *waitList) notify(acked int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	keep := l.waiters[:0]
	for _, w := range l.waiters {
		if w.end <= acked {
			w.ch <- store.PutOK
		} else {
			keep = append(keep, w)
		}
	}
	clear(l.waiters[len(keep):])
	l.waiters = keep
}

// close answers every waiter FlushSlaveTimeout and makes later waits return it at once.
func (l *waitList) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for _, w := range l.waiters {
		w.ch <- store.FlushSlaveTimeout
	}
	clear(l.waiters)
	l.waiters = l.waiters[:0]
}

func (l *waitList) get(end int64, timeout time.Duration) *waiter {
	w, _ := l.pool.Get().(*waiter)
	if w == nil {
		w = &waiter{ch: make(chan store.PutStatus, 1), timer: time.NewTimer(timeout)}
	} else {
		w.timer.Reset(timeout)
	}
	w.end = end
	return w
}

func (l *waitList) put(w *waiter) {
	w.timer.Stop()
	l.pool.Put(w)
}
