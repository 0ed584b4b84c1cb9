package remoting

import (
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// Requests and callbacks run on workers: goroutines that outlive one job,
// so that the stacks they grew are reused. Parked workers form a stack and
// the most recently busy one takes the next job: a small warm set does the
// work while the others idle out.

// workerIdleTimeout is how long, at least, a worker waits for another job
// before it exits (at most twice as long).
const workerIdleTimeout = 30 * time.Second

// worker is one parked or busy worker goroutine.
type worker struct {
	jobs chan job // capacity 1; closed by the dispatcher's close
}

// hand gives j to the most recently parked worker, or starts a new one.
// With refuseIfClosing, once the owner is closing no worker is started and
// hand returns false (a caller not counted in wg must not start one).
func (d *dispatcher) hand(j job, refuseIfClosing bool) bool {
	d.mu.Lock()
	if n := len(d.idle); n > 0 {
		w := d.idle[n-1]
		d.idle[n-1] = nil
		d.idle = d.idle[:n-1]
		d.mu.Unlock()
		w.jobs <- j
		return true
	}
	if d.closing && refuseIfClosing {
		d.mu.Unlock()
		return false
	}
	d.wg.Add(1)
	d.mu.Unlock()
	go d.work(&worker{jobs: make(chan job, 1)}, j)
	return true
}

// work runs j and the jobs handed to w later, until w has been parked for
// a whole idle timeout or the owner closes.
func (d *dispatcher) work(w *worker, j job) {
	defer d.wg.Done()
	idle := time.NewTimer(d.idleTimeout)
	defer idle.Stop()
	for {
		d.run(j)
		j = job{}
		busy := true // ran a job since the timer last fired
		if !d.park(w) {
			return
		}
	wait:
		for {
			select {
			case next, ok := <-w.jobs:
				if !ok {
					return
				}
				j = next
				break wait
			case <-idle.C:
				idle.Reset(d.idleTimeout)
				if busy {
					busy = false
					continue
				}
				if d.unpark(w) {
					return
				}
				// Someone took w off the stack: a job is on its way.
				next, ok := <-w.jobs
				if !ok {
					return
				}
				j = next
				break wait
			}
		}
	}
}

// run runs one job.
func (d *dispatcher) run(j job) {
	if j.cb != nil {
		d.runCallback(j.cb, j.resp, j.err)
		return
	}
	d.serve(j.c, j.h, j.req, j.buf)
}

// runCallback runs an async call's callback; a panic is logged, not a crash.
func (d *dispatcher) runCallback(cb func(*protocol.Command, error), resp *protocol.Command, err error) {
	defer func() {
		if r := recover(); r != nil {
			d.lg.Error("callback panicked", zap.Any("panic", r), zap.Stack("stack"))
		}
	}()
	cb(resp, err)
}

// park puts w on the idle stack; false if the owner is closing.
func (d *dispatcher) park(w *worker) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing {
		return false
	}
	d.idle = append(d.idle, w)
	return true
}

// unpark takes w off the idle stack so that it can exit; false if a job
// is being handed to it (or the owner closed it).
func (d *dispatcher) unpark(w *worker) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, x := range d.idle {
		if x == w {
			// The longest idle are at the bottom: this copy is short.
			copy(d.idle[i:], d.idle[i+1:])
			d.idle[len(d.idle)-1] = nil
			d.idle = d.idle[:len(d.idle)-1]
			return true
		}
	}
	return false
}
