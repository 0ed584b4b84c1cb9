package commitlog

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// flush syncs the written data (only if at least least pages are dirty, 0 =
// all). A poisoned log is never synced again. A failure poisons the log.
func (c *CommitLog) flush(least int) (int64, error) {
	if err := c.Err(); err != nil {
		return c.q.FlushedWhere(), err
	}
	if c.mu.w.viaFile {
		c.mu.Lock()
		err := c.drainLocked()
		c.mu.Unlock()
		if err != nil {
			return c.q.FlushedWhere(), err
		}
	}
	before := c.q.FlushedWhere()
	target, ts := c.q.MaxOffset(), int64(0)
	if last := c.q.Last(); last != nil {
		ts = last.LastStoreTimestamp.Load()
	}
	begin := time.Now()
	where, err := c.q.Flush(least)
	if c.opts.OnFlush != nil && (where != before || err != nil) {
		c.opts.OnFlush(time.Since(begin), err)
	}
	if err != nil {
		c.poisonWith(err)
		return where, err
	}
	if where >= target && ts > 0 {
		c.flushedTS.Store(ts)
	}
	if where > before && c.opts.FlushType == SyncFlush {
		c.signalReadable()
	}
	return where, nil
}

// loop is the start/stop plumbing shared by both flushers: the goroutine is
// owned by a lifecycle.Group.
type loop struct {
	kick chan struct{}
	g    lifecycle.Group

	mu      sync.Mutex
	running bool // REQUIRES mu
	stopped bool // REQUIRES mu
}

func newLoop() loop { return loop{kick: make(chan struct{}, 1)} }

func (l *loop) startWith(run func(stop <-chan struct{})) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running || l.stopped {
		return
	}
	l.running = l.g.Go(run)
}

// stop marks the loop stopped (no waiter registers after it) and waits for
// the goroutine.
func (l *loop) stop() {
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
	l.g.Stop()
}

func (l *loop) wakeup() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// asyncFlush is ASYNC_FLUSH: a periodic flush of at least FlushLeastPages, and
// of everything every FlushThoroughInterval. Puts only wake it.
type asyncFlush struct {
	c *CommitLog
	loop
}

func newAsyncFlush(c *CommitLog) *asyncFlush { return &asyncFlush{c: c, loop: newLoop()} }

func (a *asyncFlush) start() { a.startWith(a.run) }
func (a *asyncFlush) close() { a.stop() }

func (a *asyncFlush) wait(int64, bool) PutStatus {
	a.wakeup()
	return PutOK
}

func (a *asyncFlush) waitAsync(int64, Completion) (PutStatus, bool) {
	a.wakeup()
	return PutOK, false
}

func (a *asyncFlush) run(stop <-chan struct{}) {
	t := time.NewTicker(a.c.opts.FlushInterval)
	defer t.Stop()
	lastThorough := time.Now()
	for {
		select {
		case <-stop:
			return // Close flushes everything
		case <-t.C:
		case <-a.kick:
		}
		least := a.c.opts.FlushLeastPages
		if time.Since(lastThorough) >= a.c.opts.FlushThoroughInterval {
			least, lastThorough = 0, time.Now()
		}
		_, _ = a.c.flush(least) // an error poisons the log and is logged there
	}
}

// groupCommit is SYNC_FLUSH: puts register the end offset they need durable;
// one goroutine takes every registered waiter, syncs all written data once and
// completes them together. It syncs again at once while waiters are left (no
// pause between syncs): a put waits for at most the sync in progress and its own.
type groupCommit struct {
	c *CommitLog
	loop
	pool  sync.Pool // *waiter that blocks (ch)
	apool sync.Pool // *waiter with a Completion (done)

	wmu     sync.Mutex
	waiters []*waiter
}

// waiter is one put waiting for durability: a blocked put (ch) or a Completion
// (done). Whoever finishes with it last (the put or the flusher for a blocked
// put; the flusher or the timer for a Completion) returns it to its pool.
type waiter struct {
	end   int64
	ch    chan PutStatus
	done  Completion
	state atomic.Int32 // waiting, completed or abandoned
	timer *time.Timer  // ch: a plain timer; done: runs expire
}

const (
	waiting int32 = iota
	completed
	abandoned
)

func newGroupCommit(c *CommitLog) *groupCommit { return &groupCommit{c: c, loop: newLoop()} }

func (g *groupCommit) start() { g.startWith(g.run) }
func (g *groupCommit) close() { g.stop() }

func (g *groupCommit) wait(end int64, wait bool) PutStatus {
	if !wait {
		g.wakeup()
		return PutOK
	}
	if g.c.q.FlushedWhere() >= end {
		return PutOK
	}
	w := g.getWaiter(end)
	if !g.register(w) {
		g.putWaiter(w)
		return g.flushNow(end)
	}
	select {
	case st := <-w.ch:
		g.putWaiter(w)
		return st
	case <-w.timer.C:
		if w.state.CompareAndSwap(waiting, abandoned) {
			return FlushDiskTimeout // the flusher recycles w
		}
		st := <-w.ch
		g.putWaiter(w)
		return st
	}
}

func (g *groupCommit) waitAsync(end int64, done Completion) (PutStatus, bool) {
	if g.c.q.FlushedWhere() >= end {
		return PutOK, false
	}
	w := g.getAsyncWaiter(end, done)
	if g.register(w) {
		return PutOK, true
	}
	if !w.state.CompareAndSwap(waiting, completed) {
		return PutOK, true // the timer fired first and told done
	}
	if w.timer.Stop() {
		w.done = nil
		g.apool.Put(w)
	}
	return g.flushNow(end), false
}

// register queues w for the next sync and wakes the flusher; false when the
// group commit goroutine is not running (w is not queued).
func (g *groupCommit) register(w *waiter) bool {
	g.loop.mu.Lock()
	running := g.running && !g.stopped
	if running {
		g.wmu.Lock()
		g.waiters = append(g.waiters, w)
		g.wmu.Unlock()
	}
	g.loop.mu.Unlock()
	if running {
		g.wakeup()
	}
	return running
}

// flushNow serves a put when the group commit goroutine is not running.
func (g *groupCommit) flushNow(end int64) PutStatus {
	where, err := g.c.flush(0)
	switch {
	case err != nil:
		return ServiceNotAvailable
	case where >= end:
		return PutOK
	default:
		return FlushDiskTimeout
	}
}

func (g *groupCommit) getWaiter(end int64) *waiter {
	w, _ := g.pool.Get().(*waiter)
	if w == nil {
		w = &waiter{ch: make(chan PutStatus, 1), timer: time.NewTimer(g.c.opts.SyncFlushTimeout)}
	} else {
		w.timer.Reset(g.c.opts.SyncFlushTimeout)
	}
	w.end = end
	w.state.Store(waiting)
	return w
}

func (g *groupCommit) putWaiter(w *waiter) {
	w.timer.Stop()
	g.pool.Put(w)
}

// getAsyncWaiter returns a waiter for done whose timer reports FlushDiskTimeout
// if no sync covers end within SyncFlushTimeout.
func (g *groupCommit) getAsyncWaiter(end int64, done Completion) *waiter {
	w, _ := g.apool.Get().(*waiter)
	if w == nil {
		w = &waiter{}
		w.timer = time.AfterFunc(time.Hour, func() { w.expire() })
	}
	w.end, w.done = end, done
	w.state.Store(waiting)
	w.timer.Reset(g.c.opts.SyncFlushTimeout)
	return w
}

// expire is an async waiter's timer: unless a sync won the race, done learns of
// the timeout and the flusher recycles w when its sync ends.
func (w *waiter) expire() {
	if w.state.CompareAndSwap(waiting, abandoned) {
		w.done.FlushDone(FlushDiskTimeout)
	}
}

func (g *groupCommit) complete(w *waiter, st PutStatus) {
	if w.done != nil {
		g.completeAsync(w, st)
		return
	}
	if w.state.CompareAndSwap(waiting, completed) {
		w.ch <- st
		return
	}
	g.putWaiter(w) // the put timed out and left it to us
}

// completeAsync tells an async waiter's Completion the outcome, unless its timer
// did already. w is recycled only when its timer can no longer run; otherwise
// it is left to the collector (a timeout, rare).
func (g *groupCommit) completeAsync(w *waiter, st PutStatus) {
	if !w.state.CompareAndSwap(waiting, completed) {
		return // expire told done of the timeout
	}
	stopped := w.timer.Stop()
	done := w.done
	w.done = nil
	done.FlushDone(st)
	if stopped {
		g.apool.Put(w)
	}
}

func (g *groupCommit) run(stop <-chan struct{}) {
	var batch []*waiter
	for {
		select {
		case <-stop:
			g.wmu.Lock()
			batch, g.waiters = g.waiters, nil
			g.wmu.Unlock()
			g.commit(batch)
			return
		case <-g.kick:
		}
		g.wmu.Lock()
		batch, g.waiters = g.waiters, batch[:0]
		g.wmu.Unlock()
		batch = g.commit(batch)
	}
}

// commit syncs everything written and completes the waiters; it returns the
// batch slice emptied for reuse.
func (g *groupCommit) commit(batch []*waiter) []*waiter {
	where, err := g.c.flush(0)
	for i, w := range batch {
		st := PutOK
		if err != nil {
			st = ServiceNotAvailable
		} else if where < w.end {
			// Cannot happen: a waiter registers after its write, and the flush
			// covered everything written when it began.
			st = FlushDiskTimeout
		}
		g.complete(w, st)
		batch[i] = nil
	}
	return batch[:0]
}
