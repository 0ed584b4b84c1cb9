package remoting

import (
	"context"
	"time"
)

// callTimeouts ends a connection's async calls before their response
// comes: when their context is done, through one context.AfterFunc per
// distinct context in use rather than one per call, and when their own
// deadline passes, through one timer armed for the earliest deadline. It is
// guarded by the connection's mutex.
type callTimeouts struct {
	watches map[<-chan struct{}]*ctxWatch // by the context's Done channel
	timer   *time.Timer
	timerAt time.Time // when timer fires; zero: not armed

	// Set once by the connection: fire fails the calls of a context that
	// is done; sweep fails the calls whose deadline passed and re-arms.
	fire  func(*ctxWatch)
	sweep func()
}

// ctxWatch is the AfterFunc of one context and the number of pending calls
// it ends.
type ctxWatch struct {
	done <-chan struct{}
	n    int
	stop func() bool
}

// watch registers one more call ended by ctx; fire runs (on its own
// goroutine) once ctx is done, unless every such call ended before.
func (t *callTimeouts) watch(ctx context.Context) *ctxWatch {
	done := ctx.Done()
	if w := t.watches[done]; w != nil {
		w.n++
		return w
	}
	if t.watches == nil {
		t.watches = make(map[<-chan struct{}]*ctxWatch)
	}
	w := &ctxWatch{done: done, n: 1}
	w.stop = context.AfterFunc(ctx, func() { t.fire(w) })
	t.watches[done] = w
	return w
}

// unwatch is told that a call of w ended; the last one stops w.
func (t *callTimeouts) unwatch(w *ctxWatch) {
	w.n--
	if w.n == 0 && t.watches[w.done] == w {
		delete(t.watches, w.done)
		w.stop()
	}
}

// forget drops w once it has fired.
func (t *callTimeouts) forget(w *ctxWatch) {
	if t.watches[w.done] == w {
		delete(t.watches, w.done)
	}
}

// armAt makes sure the timer runs sweep no later than at.
func (t *callTimeouts) armAt(at time.Time) {
	if !t.timerAt.IsZero() && !at.Before(t.timerAt) {
		return
	}
	t.timerAt = at
	if t.timer == nil {
		t.timer = time.AfterFunc(time.Until(at), t.sweep)
	} else {
		t.timer.Reset(time.Until(at))
	}
}

// fired is told that the timer ran; the sweep arms it again if needed.
func (t *callTimeouts) fired() { t.timerAt = time.Time{} }

// stopAll stops every watch and the timer: the connection has ended.
func (t *callTimeouts) stopAll() {
	for _, w := range t.watches {
		w.stop()
	}
	t.watches = nil
	if t.timer != nil {
		t.timer.Stop()
	}
	t.timerAt = time.Time{}
}
