package lifecycle

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestStopWaitsForEveryGoroutine(t *testing.T) {
	var g Group
	var done atomic.Int32
	for range 8 {
		if !g.Go(func(stop <-chan struct{}) {
			<-stop
			time.Sleep(time.Millisecond)
			done.Add(1)
		}) {
			t.Fatal("Go refused before Stop")
		}
	}
	g.Stop()
	if n := done.Load(); n != 8 {
		t.Fatalf("Stop returned with %d of 8 goroutines finished", n)
	}
}

func TestGoRefusedAfterStop(t *testing.T) {
	var g Group
	g.Stop()
	ran := false
	if g.Go(func(<-chan struct{}) { ran = true }) {
		t.Fatal("Go accepted after Stop")
	}
	if ran || !g.Stopped() {
		t.Fatalf("ran=%v stopped=%v", ran, g.Stopped())
	}
	select {
	case <-g.Stopping():
	default:
		t.Fatal("Stopping channel open after Stop")
	}
}

func TestChildStartedDuringStopIsRefusedOrAwaited(t *testing.T) {
	var g Group
	var children atomic.Int32
	var finished atomic.Int32
	g.Go(func(stop <-chan struct{}) {
		for {
			select {
			case <-stop:
				// A child started now is either refused or awaited by Stop.
				if g.Go(func(<-chan struct{}) { finished.Add(1) }) {
					children.Add(1)
				}
				return
			default:
				if g.Go(func(<-chan struct{}) { finished.Add(1) }) {
					children.Add(1)
				}
				time.Sleep(100 * time.Microsecond)
			}
		}
	})
	time.Sleep(5 * time.Millisecond)
	g.Stop()
	if children.Load() != finished.Load() {
		t.Fatalf("started %d children, %d finished before Stop returned", children.Load(), finished.Load())
	}
}

func TestConcurrentStopsAllWait(t *testing.T) {
	var g Group
	release := make(chan struct{})
	var finished atomic.Bool
	g.Go(func(<-chan struct{}) { <-release; finished.Store(true) })
	var wg sync.WaitGroup
	returned := make(chan bool, 3)
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); g.Stop(); returned <- finished.Load() }()
	}
	time.Sleep(2 * time.Millisecond)
	select {
	case <-returned:
		t.Fatal("a Stop returned while a goroutine still ran")
	default:
	}
	close(release)
	wg.Wait()
	close(returned)
	for ok := range returned {
		if !ok {
			t.Fatal("a Stop returned before the goroutine finished")
		}
	}
}

func TestOnPanicRecovers(t *testing.T) {
	var got atomic.Value
	g := Group{OnPanic: func(v any, stack []byte) {
		if len(stack) == 0 {
			t.Error("empty stack")
		}
		got.Store(v)
	}}
	g.Go(func(<-chan struct{}) { panic("boom") })
	g.Stop()
	if got.Load() != "boom" {
		t.Fatalf("OnPanic got %v", got.Load())
	}
}
