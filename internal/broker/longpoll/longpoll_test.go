package longpoll

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type woken struct {
	ch chan bool
}

func newWoken() *woken { return &woken{ch: make(chan bool, 4)} }

func (w *woken) wake(timedOut bool) { w.ch <- timedOut }

func (w *woken) wait(t *testing.T) bool {
	t.Helper()
	select {
	case v := <-w.ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("held pull was not woken")
		return false
	}
}

func (w *woken) none(t *testing.T) {
	t.Helper()
	select {
	case <-w.ch:
		t.Fatal("woken unexpectedly")
	case <-time.After(50 * time.Millisecond):
	}
}

func TestNotifyWakesMatchingPull(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour}, nil)
	s.Start()
	defer s.Close()

	w := newWoken()
	_ = s.Hold(&Request{Topic: "T", QueueID: 1, Offset: 5, Deadline: time.Now().Add(time.Hour), Wake: w.wake,
		Match: func(tagsCode int64, _ []byte) bool { return tagsCode == 7 }})
	require.Equal(t, 1, s.Held())

	s.Notify("T", 0, 5, 7, nil) // another queue
	s.Notify("T", 1, 4, 7, nil) // an older offset
	s.Notify("T", 1, 5, 8, nil) // a tag the pull does not want
	w.none(t)
	s.Notify("T", 1, 5, 7, nil)
	require.False(t, w.wait(t))
	require.Equal(t, 0, s.Held())
}

func TestDeadlineWakesAsTimedOut(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour}, nil)
	s.Start()
	defer s.Close()
	w := newWoken()
	_ = s.Hold(&Request{Topic: "T", Offset: 0, Deadline: time.Now().Add(20 * time.Millisecond), Wake: w.wake})
	require.True(t, w.wait(t))
	require.Equal(t, 0, s.Held())
}

func TestHoldSeesMessageThatRacedIt(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour, MaxOffset: func(string, int32) int64 { return 3 }}, nil)
	s.Start()
	defer s.Close()
	w := newWoken()
	_ = s.Hold(&Request{Topic: "T", Offset: 2, Deadline: time.Now().Add(time.Hour), Wake: w.wake})
	require.False(t, w.wait(t))
}

func TestPeriodicCheckWakesGrownQueue(t *testing.T) {
	var max atomic.Int64
	s := New(Options{CheckInterval: 10 * time.Millisecond, MaxOffset: func(string, int32) int64 { return max.Load() }}, nil)
	s.Start()
	defer s.Close()
	w := newWoken()
	_ = s.Hold(&Request{Topic: "T", Offset: 0, Deadline: time.Now().Add(time.Hour), Wake: w.wake})
	w.none(t)
	max.Store(1)
	require.False(t, w.wait(t))
}

func TestCloseWakesEveryHeldPullOnce(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour}, nil)
	s.Start()
	var calls atomic.Int32
	for i := 0; i < 10; i++ {
		_ = s.Hold(&Request{Topic: "T", QueueID: int32(i % 3), Deadline: time.Now().Add(time.Hour),
			Wake: func(timedOut bool) { require.True(t, timedOut); calls.Add(1) }})
	}
	s.Close()
	require.Equal(t, int32(10), calls.Load())
	// Holding after close answers at once.
	_ = s.Hold(&Request{Topic: "T", Deadline: time.Now().Add(time.Hour), Wake: func(bool) { calls.Add(1) }})
	require.Equal(t, int32(11), calls.Load())
}

// TestLimits: beyond the total and per-connection limits a pull is not held (and never woken);
// pulls without an owner count only against the total.
func TestLimits(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour, MaxHeld: 5, MaxHeldPerOwner: 2}, nil)
	s.Start()
	defer s.Close()
	var woken atomic.Int32
	hold := func(owner uint64) error {
		return s.Hold(&Request{Topic: "T", Owner: owner, Deadline: time.Now().Add(time.Hour),
			Wake: func(bool) { woken.Add(1) }})
	}
	require.NoError(t, hold(1))
	require.NoError(t, hold(1))
	err := hold(1)
	require.ErrorIs(t, err, ErrTooManyHeld)
	require.ErrorContains(t, err, "2 pulls of this connection are held")
	require.NoError(t, hold(2))
	require.NoError(t, hold(0))
	require.NoError(t, hold(0))
	err = hold(3)
	require.ErrorIs(t, err, ErrTooManyHeld)
	require.ErrorContains(t, err, "5 pulls are held")
	require.Equal(t, 5, s.Held())
	require.Equal(t, 2, s.HeldBy(1))
	require.Zero(t, woken.Load())

	s.Notify("T", 0, 0, 0, nil)
	require.Eventually(t, func() bool { return woken.Load() == 5 }, 5*time.Second, time.Millisecond)
	require.Zero(t, s.Held())
	require.Zero(t, s.HeldBy(1), "woken pulls no longer count")
	require.NoError(t, hold(1))
}

// TestReleaseDropsAConnectionsPulls: a closed connection's pulls are dropped, never woken, and
// free their places; other connections' pulls on the same queues stay.
func TestReleaseDropsAConnectionsPulls(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour, MaxHeldPerOwner: 3}, nil)
	s.Start()
	defer s.Close()
	var dead, alive atomic.Int32
	for i := range 3 {
		require.NoError(t, s.Hold(&Request{Topic: "T", QueueID: int32(i % 2), Owner: 7, Deadline: time.Now().Add(20 * time.Millisecond),
			Wake: func(bool) { dead.Add(1) }}))
	}
	require.NoError(t, s.Hold(&Request{Topic: "T", QueueID: 1, Owner: 8, Deadline: time.Now().Add(time.Hour),
		Wake: func(bool) { alive.Add(1) }}))
	require.Equal(t, 3, s.Release(7))
	require.Equal(t, 1, s.Held())
	require.Zero(t, s.HeldBy(7))
	require.Zero(t, s.Release(7))
	s.Notify("T", 0, 9, 0, nil)
	s.Notify("T", 1, 9, 0, nil)
	require.Eventually(t, func() bool { return alive.Load() == 1 }, 5*time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond) // past the released pulls' deadline
	require.Zero(t, dead.Load(), "a released pull is never woken, by a message or its deadline")
	for range 3 {
		require.NoError(t, s.Hold(&Request{Topic: "T", Owner: 7, Deadline: time.Now().Add(time.Hour), Wake: func(bool) {}}))
	}
}

// TestWakePanicIsRecovered: a panicking wake is logged, the service goes on and still closes.
func TestWakePanicIsRecovered(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour}, nil)
	s.Start()
	w := newWoken()
	require.NoError(t, s.Hold(&Request{Topic: "T", Deadline: time.Now().Add(time.Hour), Wake: func(bool) { panic("boom") }}))
	require.NoError(t, s.Hold(&Request{Topic: "T", Deadline: time.Now().Add(time.Hour), Wake: w.wake}))
	s.Notify("T", 0, 0, 0, nil)
	require.False(t, w.wait(t))
	require.NoError(t, s.Hold(&Request{Topic: "T", Deadline: time.Now().Add(time.Hour), Wake: func(bool) { panic("at close") }}))
	s.Close()
	require.NoError(t, s.Hold(&Request{Topic: "T", Deadline: time.Now().Add(time.Hour), Wake: func(bool) { panic("after close") }}))
}

func BenchmarkNotifyNothingHeld(b *testing.B) {
	s := New(Options{}, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Notify("TopicTest", 3, int64(i), 0, nil)
	}
}
