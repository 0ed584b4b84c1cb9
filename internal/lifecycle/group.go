// Package lifecycle starts a component's long-running goroutines and stops them together.
//
// Every goroutine that outlives the call that started it is started through a Group, which owns
// it: Go refuses once Stop has begun, so nothing starts behind a shutdown, and Stop returns only
// after every goroutine the group started has returned.
//
//	var g lifecycle.Group
//	g.Go(func(stop <-chan struct{}) {
//		for {
//			select {
//			case <-stop:
//				return
//			case <-tick.C:
//				work()
//			}
//		}
//	})
//	...
//	g.Stop() // closes stop, waits for the loop
package lifecycle

import (
	"runtime/debug"
	"sync"
)

// Group owns a set of goroutines. The zero value is ready to use. A Group must not be copied after
// first use.
type Group struct {
	// OnPanic, when set before the first Go, is called with the recovered value and the stack of a
	// goroutine that panicked; the goroutine then ends as if it had returned. When nil a panic
	// crashes the process, as it would without the group.
	OnPanic func(v any, stack []byte)

	mu       sync.Mutex
	stopc    chan struct{} // closed when Stop begins; REQUIRES mu to create
	stopping bool          // REQUIRES mu
	wg       sync.WaitGroup
	once     sync.Once
	donec    chan struct{} // closed when Stop has waited for every goroutine
}

// Go runs f in a new goroutine owned by g and reports true, or reports false without running f
// once Stop has begun. f receives a channel that is closed when Stop begins; it should return soon
// after.
func (g *Group) Go(f func(stop <-chan struct{})) bool {
	g.mu.Lock()
	if g.stopping {
		g.mu.Unlock()
		return false
	}
	stop := g.stopChanLocked()
	g.wg.Add(1)
	g.mu.Unlock()
	go g.run(f, stop)
	return true
}

func (g *Group) run(f func(stop <-chan struct{}), stop <-chan struct{}) {
	defer g.wg.Done()
	if g.OnPanic != nil {
		defer func() {
			if v := recover(); v != nil {
				g.OnPanic(v, debug.Stack())
			}
		}()
	}
	f(stop)
}

// Stopping returns the channel that is closed when Stop begins.
func (g *Group) Stopping() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopChanLocked()
}

// Stopped reports whether Stop has begun.
func (g *Group) Stopped() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopping
}

// stopChanLocked returns the stop channel, creating it on first use.
// REQUIRES: g.mu.
func (g *Group) stopChanLocked() chan struct{} {
	if g.stopc == nil {
		g.stopc = make(chan struct{})
	}
	return g.stopc
}

// Stop closes the stop channel, refuses further Go calls and waits until every goroutine started
// through g has returned. It may be called more than once and from several goroutines; every call
// waits. It must not be called from a goroutine the group owns (it would wait for itself).
func (g *Group) Stop() {
	g.once.Do(func() {
		g.mu.Lock()
		g.stopping = true
		close(g.stopChanLocked())
		g.donec = make(chan struct{})
		g.mu.Unlock()
		g.wg.Wait()
		close(g.donec)
	})
	g.mu.Lock()
	donec := g.donec
	g.mu.Unlock()
	<-donec
}
