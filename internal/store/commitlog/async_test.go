package commitlog

import (
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// doneChan is a Completion that hands the outcome to the test.
type doneChan chan PutStatus

func (d doneChan) FlushDone(st PutStatus) { d <- st }

func awaitDone(t *testing.T, d doneChan) PutStatus {
	t.Helper()
	select {
	case st := <-d:
		return st
	case <-time.After(5 * time.Second):
		t.Fatal("no FlushDone")
		return 0
	}
}

// A pending append is completed by the sync that covers it, never before it is durable; the
// appends that waited during a sync share the next one.
func TestAppendAsyncGroupCommit(t *testing.T) {
	fs := vfstest.New(t)
	o := testOpts(fs.Root())
	o.FlushType, o.FS = SyncFlush, fs
	var syncs atomic.Int32
	gate := make(chan struct{})
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Before: func(vfstest.Op) {
		if syncs.Add(1) == 1 {
			<-gate
		}
	}})
	c := open(t, o)

	first := make(doneChan, 1)
	r, pending := c.AppendAsync(msg("T", 0, []byte("first"), ""), first)
	require.True(t, pending)
	require.Equal(t, PutOK, r.Status)
	require.Eventually(t, func() bool { return syncs.Load() == 1 }, 5*time.Second, time.Millisecond)
	more := make([]doneChan, 10)
	ends := make([]int64, 10)
	for i := range more {
		more[i] = make(doneChan, 1)
		r, pending := c.AppendAsync(msg("T", 0, []byte("more"), ""), more[i])
		require.True(t, pending, "the sync in progress does not cover a later append")
		ends[i] = r.WroteOffset + int64(r.WroteBytes)
	}
	select {
	case <-first:
		t.Fatal("completed before its sync returned")
	case <-time.After(20 * time.Millisecond):
	}
	close(gate)
	require.Equal(t, PutOK, awaitDone(t, first))
	for i, d := range more {
		require.Equal(t, PutOK, awaitDone(t, d))
		require.GreaterOrEqual(t, c.FlushedOffset(), ends[i])
	}
	require.EqualValues(t, 2, syncs.Load(), "the ten pending appends share one sync")

	// Once durable, nothing is pending; WAIT=false and ASYNC puts are never pending.
	r, pending = c.AppendAsync(msg("T", 0, []byte("nowait"), "WAIT\x01false\x02"), make(doneChan, 1))
	require.False(t, pending)
	require.Equal(t, PutOK, r.Status)
}

// A sync that does not return within SyncFlushTimeout reports FlushDiskTimeout once; a failed
// sync reports ServiceNotAvailable and Settle explains it.
func TestAppendAsyncTimeoutAndFailure(t *testing.T) {
	fs := vfstest.New(t)
	o := testOpts(fs.Root())
	o.FlushType, o.FS = SyncFlush, fs
	o.SyncFlushTimeout = 30 * time.Millisecond
	gate := make(chan struct{})
	var calls atomic.Int32
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Before: func(vfstest.Op) {
		if calls.Add(1) == 1 {
			<-gate
		}
	}, Err: syscall.EIO})
	c := open(t, o)

	slow := make(doneChan, 2)
	r, pending := c.AppendAsync(msg("T", 0, []byte("slow"), ""), slow)
	require.True(t, pending)
	require.Equal(t, FlushDiskTimeout, awaitDone(t, slow))
	c.Settle(&r, FlushDiskTimeout)
	require.ErrorContains(t, r.Err, "not durable within")
	close(gate) // the stuck sync fails now: the timed-out waiter hears nothing more
	require.Eventually(t, func() bool { return !c.IsWritable() }, 5*time.Second, time.Millisecond)
	select {
	case st := <-slow:
		t.Fatalf("a second outcome: %v", st)
	case <-time.After(20 * time.Millisecond):
	}
	r, pending = c.AppendAsync(msg("T", 0, nil, ""), make(doneChan, 1))
	require.False(t, pending)
	require.Equal(t, ServiceNotAvailable, r.Status)
}

// After Close a pending append cannot be left behind: it is refused.
func TestAppendAsyncAfterClose(t *testing.T) {
	o := testOpts(t.TempDir())
	o.FlushType = SyncFlush
	c := open(t, o)
	require.NoError(t, c.Close())
	r, pending := c.AppendAsync(msg("T", 0, nil, ""), make(doneChan, 1))
	require.False(t, pending)
	require.ErrorIs(t, r.Err, ErrClosed)
}

// A pending append allocates nothing (waiters are pooled, their timers reused).
func TestAppendAsyncDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	o := testOpts(t.TempDir())
	o.FlushType = SyncFlush
	c := open(t, o)
	m := msg("T", 0, make([]byte, 100), "")
	d := make(doneChan, 1)
	put := func() {
		if _, pending := c.AppendAsync(m, d); pending {
			if st := <-d; st != PutOK {
				t.Fatal(st)
			}
		}
	}
	for range 10 {
		put()
	}
	require.Less(t, testing.AllocsPerRun(200, put), 1.0)
}
