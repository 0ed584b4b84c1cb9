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
	s.Hold(&Request{Topic: "T", QueueID: 1, Offset: 5, Deadline: time.Now().Add(time.Hour), Wake: w.wake,
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
	s.Hold(&Request{Topic: "T", Offset: 0, Deadline: time.Now().Add(20 * time.Millisecond), Wake: w.wake})
	require.True(t, w.wait(t))
	require.Equal(t, 0, s.Held())
}

func TestHoldSeesMessageThatRacedIt(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour, MaxOffset: func(string, int32) int64 { return 3 }}, nil)
	s.Start()
	defer s.Close()
	w := newWoken()
	s.Hold(&Request{Topic: "T", Offset: 2, Deadline: time.Now().Add(time.Hour), Wake: w.wake})
	require.False(t, w.wait(t))
}

func TestPeriodicCheckWakesGrownQueue(t *testing.T) {
	var max atomic.Int64
	s := New(Options{CheckInterval: 10 * time.Millisecond, MaxOffset: func(string, int32) int64 { return max.Load() }}, nil)
	s.Start()
	defer s.Close()
	w := newWoken()
	s.Hold(&Request{Topic: "T", Offset: 0, Deadline: time.Now().Add(time.Hour), Wake: w.wake})
	w.none(t)
	max.Store(1)
	require.False(t, w.wait(t))
}

func TestCloseWakesEveryHeldPullOnce(t *testing.T) {
	s := New(Options{CheckInterval: time.Hour}, nil)
	s.Start()
	var calls atomic.Int32
	for i := 0; i < 10; i++ {
		s.Hold(&Request{Topic: "T", QueueID: int32(i % 3), Deadline: time.Now().Add(time.Hour),
			Wake: func(timedOut bool) { require.True(t, timedOut); calls.Add(1) }})
	}
	s.Close()
	require.Equal(t, int32(10), calls.Load())
	// Holding after close answers at once.
	s.Hold(&Request{Topic: "T", Deadline: time.Now().Add(time.Hour), Wake: func(bool) { calls.Add(1) }})
	require.Equal(t, int32(11), calls.Load())
}

func BenchmarkNotifyNothingHeld(b *testing.B) {
	s := New(Options{}, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Notify("TopicTest", 3, int64(i), 0, nil)
	}
}
