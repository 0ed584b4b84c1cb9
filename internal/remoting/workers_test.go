package remoting

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

func idleWorkers(d *dispatcher) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.idle)
}

// TestWorkersAreReusedThenIdleOut: parked workers take later jobs, the
// most recently busy first, and exit once idle for a whole period.
func TestWorkersAreReusedThenIdleOut(t *testing.T) {
	var wg sync.WaitGroup
	d := newDispatcher(zap.NewNop(), 10, &wg)
	d.idleTimeout = 50 * time.Millisecond

	// Three callbacks that block until all three run: three workers.
	var started sync.WaitGroup
	started.Add(3)
	release := make(chan struct{})
	for i := 0; i < 3; i++ {
		d.callback(func(*protocol.Command, error) {
			started.Done()
			<-release
		}, nil, nil)
	}
	started.Wait()
	close(release)
	require.Eventually(t, func() bool { return idleWorkers(&d) == 3 }, 5*time.Second, time.Millisecond)

	// Sequential jobs reuse parked workers: none is started.
	d.mu.Lock()
	top := d.idle[2]
	d.mu.Unlock()
	for i := 0; i < 20; i++ {
		done := make(chan struct{})
		d.callback(func(*protocol.Command, error) { close(done) }, nil, nil)
		<-done
		require.Eventually(t, func() bool { return idleWorkers(&d) == 3 }, 5*time.Second, time.Millisecond)
	}
	d.mu.Lock()
	require.Same(t, top, d.idle[2], "the most recently busy worker takes the next job")
	d.mu.Unlock()

	// Unused, they exit.
	exited := make(chan struct{})
	go func() {
		wg.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d idle workers never exited", idleWorkers(&d))
	}
	require.Zero(t, idleWorkers(&d))
}

// TestCloseEndsParkedWorkers: close ends parked workers at once, and a
// callback after close runs on the caller's goroutine.
func TestCloseEndsParkedWorkers(t *testing.T) {
	var wg sync.WaitGroup
	d := newDispatcher(zap.NewNop(), 10, &wg)
	done := make(chan struct{})
	d.callback(func(*protocol.Command, error) { close(done) }, nil, nil)
	<-done
	require.Eventually(t, func() bool { return idleWorkers(&d) == 1 }, 5*time.Second, time.Millisecond)
	d.close()
	exited := make(chan struct{})
	go func() {
		wg.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(10 * time.Second): // the idle timeout is 30 s: only close ends it this soon
		t.Fatal("close left a parked worker")
	}
	ran := false
	d.callback(func(*protocol.Command, error) { ran = true }, nil, nil)
	require.True(t, ran)
}
