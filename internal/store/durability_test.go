package store_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func readCheckpoint(t *testing.T, dir string) store.Checkpoint {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
	require.NoError(t, err)
	c, err := store.DecodeCheckpoint(b)
	require.NoError(t, err)
	require.True(t, c.HasOffsets)
	return c
}

// The checkpoint's dispatched offset advances with the frequent ConsumeQueue
// flushes, not only with the thorough one.
func TestCheckpointAdvancesBetweenThoroughFlushes(t *testing.T) {
	dir := t.TempDir()
	o := storetest.Options(dir)
	o.FlushConsumeQueueThoroughInterval = time.Hour
	o.FlushConsumeQueueLeastPages = 1
	s := storetest.Open(t, o)
	first := readCheckpoint(t, dir).DispatchedOffset
	for i := range 3000 {
		mustPut(t, s, storetest.Msg("T", int32(i%2), body(i, 50), nil))
	}
	require.Eventually(t, func() bool {
		return readCheckpoint(t, dir).DispatchedOffset > first+s.CommitLogMaxOffset()/2
	}, 5*time.Second, time.Millisecond)
	// Once the dispatcher is idle the checkpoint catches up with it.
	require.Eventually(t, func() bool {
		c := readCheckpoint(t, dir)
		return c.DispatchedOffset == s.CommitLogMaxOffset() && c.FlushedOffset == s.CommitLogMaxOffset()
	}, 5*time.Second, time.Millisecond)
}

// After a crash with many segments, recovery reads only from the segments the
// checkpoint names, and logs every segment it reads. With keys, the IndexFile
// written after the checkpoint is repaired rather than rebuilt from far back.
func TestCrashRecoveryReadsFromTheCheckpointedSegmentOnly(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keys=%v", keyed), func(t *testing.T) { crashRecoveryScope(t, keyed) })
	}
}

func crashRecoveryScope(t *testing.T, keyed bool) {
	dir, crashed := t.TempDir(), t.TempDir()
	o := storetest.Options(dir)
	o.CommitLogSegmentSize = 4096
	o.FlushConsumeQueueThoroughInterval = time.Hour
	s := storetest.Open(t, o)
	props := func(i int) map[string]string {
		if !keyed {
			return nil
		}
		return map[string]string{"KEYS": fmt.Sprintf("k%d", i)}
	}
	for i := range 4000 {
		mustPut(t, s, storetest.Msg("T", int32(i%3), body(i, 20), props(i)))
	}
	end := s.CommitLogMaxOffset()
	total := int(end/4096) + 1
	require.Greater(t, total, 100)
	waitDispatched(t, s)
	require.Eventually(t, func() bool {
		c := readCheckpoint(t, dir)
		return c.DispatchedOffset == end && c.FlushedOffset == end
	}, 5*time.Second, time.Millisecond)
	cpBytes, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
	require.NoError(t, err)
	// Some more that the checkpoint does not cover: the crash comes before the
	// next checkpoint.
	for i := range 30 {
		mustPut(t, s, storetest.Msg("T", 0, body(i, 20), props(4000+i)))
	}
	waitDispatched(t, s)
	storetest.CopyDir(t, dir, crashed)
	require.NoError(t, os.WriteFile(filepath.Join(crashed, "checkpoint"), cpBytes, 0o644))
	cp := readCheckpoint(t, crashed)
	end = s.CommitLogMaxOffset()

	core, logs := observer.New(zapcore.InfoLevel)
	o.RootDir, o.CommitLogDir = crashed, ""
	s2, err := store.Open(o, zap.New(core), nil)
	require.NoError(t, err)
	s2.Start()
	t.Cleanup(func() { _ = s2.Close() })
	rs := s2.Recovery()
	require.Less(t, cp.DispatchedOffset, end)
	require.False(t, rs.Clean)
	require.Equal(t, end, rs.End)
	segmentsFrom := func(off int64) int { return int((end-1)/4096-off/4096) + 1 }
	require.Equal(t, cp.FlushedOffset-cp.FlushedOffset%4096, rs.ScanFrom, "scan starts at the checkpointed segment")
	require.Equal(t, segmentsFrom(cp.FlushedOffset), rs.SegmentsScanned)
	require.Equal(t, cp.DispatchedOffset, rs.DispatchFrom)
	require.Equal(t, segmentsFrom(cp.DispatchedOffset), rs.SegmentsDispatched)
	require.LessOrEqual(t, rs.SegmentsScanned+rs.SegmentsDispatched, 6, "of %d segments", total)
	require.Equal(t, rs.SegmentsScanned, logs.FilterMessage("recovering commit log segment").Len())
	require.Equal(t, rs.SegmentsDispatched, logs.FilterMessage("re-dispatching commit log segment").Len())
	require.EqualValues(t, 4000/3+1+30, s2.MaxOffsetInQueue("T", 0))
	require.NoError(t, s2.CheckConsistency())
	if keyed {
		require.Equal(t, 1, logs.FilterMessageSnippet("repaired an index file").Len())
		until := time.Now().Add(time.Hour).UnixMilli()
		for _, k := range []string{"k0", "k3999", "k4000", "k4029"} {
			q := s2.QueryMessage("T", k, 4, 0, until)
			require.Len(t, q.Records, 1, k)
			q.Release()
		}
	}
}

// Under SYNC_FLUSH a pull never returns a record the CommitLog has not synced,
// even while syncs are held back and puts pile up behind them.
func TestSyncFlushPullsNeverPassTheFlushedOffset(t *testing.T) {
	o, fs := storetest.OnFS(t)
	o.FlushType = store.SyncFlush
	tokens := make(chan struct{})
	var entered atomic.Int64 // syncs that reached the seam
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Path: storetest.CommitLogSyncs, Before: func(vfstest.Op) {
		entered.Add(1)
		<-tokens // closed at the end: every sync passes
	}})
	s := storetest.Open(t, o)
	var stop atomic.Bool
	var wg sync.WaitGroup
	t.Cleanup(func() {
		stop.Store(true)
		close(tokens)
		wg.Wait()
	})
	for p := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			props := map[string]string{}
			if p == 3 {
				props["WAIT"] = "false" // written without waiting: never blocks
			}
			for i := 0; !stop.Load(); i++ {
				r := s.PutMessage(storetest.Msg("T", int32(p%2), body(i, 100), props))
				if r.Status != store.PutOK && !stop.Load() {
					t.Errorf("put: %v %s", r.Status, r.Remark)
					return
				}
				if p == 3 {
					time.Sleep(100 * time.Microsecond)
				}
			}
		}()
	}
	sent := int64(0)
	for round := range 40 {
		// Syncs are held: wait until the flusher waits at the seam again (so
		// the offset of its last sync is published) with writes past it.
		require.Eventually(t, func() bool {
			return entered.Load() > sent && s.CommitLogMaxOffset() > s.CommitLogFlushedOffset()
		}, 5*time.Second, 100*time.Microsecond)
		frozen := s.CommitLogFlushedOffset()
		time.Sleep(time.Millisecond) // a wrong dispatcher would run ahead now
		for qid := range int32(2) {
			for _, m := range pullAll(t, s, "T", qid) {
				require.LessOrEqual(t, m.PhysicalOffset+int64(m.StoreSize), frozen, "round %d", round)
			}
		}
		require.Equal(t, frozen, s.CommitLogFlushedOffset(), "syncs are held")
		target := s.CommitLogMaxOffset()
		for s.CommitLogFlushedOffset() < target {
			tokens <- struct{}{}
			sent++
		}
	}
}

// Power loss under SYNC_FLUSH: what a power loss leaves of the live store
// while producers run (vfstest: only what was synced, in the CommitLog, the
// ConsumeQueues, the index, the checkpoint and the directories), with garbage
// in place of everything in the CommitLog past what was synced, recovers every
// acknowledged message.
func TestPowerLossKeepsEveryAcknowledgedMessage(t *testing.T) {
	o, fs := storetest.OnFS(t)
	o.FlushType = store.SyncFlush
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Path: storetest.CommitLogSyncs, Before: func(vfstest.Op) {
		time.Sleep(200 * time.Microsecond) // a slow disk: writes pile up unsynced
	}})
	s := storetest.Open(t, o)
	type ack struct {
		qid  int32
		qoff int64
		body []byte
	}
	var mu sync.Mutex
	var acked []ack
	var stop atomic.Bool
	var wg sync.WaitGroup
	for p := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				b := []byte(fmt.Sprintf("p%d-%d", p, i))
				r := s.PutMessage(storetest.Msg("T", int32(p%2), b, nil))
				if r.Status != store.PutOK {
					t.Errorf("put: %v %s", r.Status, r.Remark)
					return
				}
				mu.Lock()
				acked = append(acked, ack{int32(p % 2), r.QueueOffset, b})
				mu.Unlock()
			}
		}()
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for round := range 3 {
		require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) > 300*(round+1) },
			10*time.Second, time.Millisecond)
		mu.Lock()
		before := append([]ack(nil), acked...)
		mu.Unlock()
		synced := s.CommitLogFlushedOffset() // every ack above returned after this was reached
		o2, _ := storetest.AfterPowerLoss(t, fs, o)
		storetest.GarbleCommitLogAfter(t, filepath.Join(o2.RootDir, "commitlog"), storetest.SegmentSize, synced, rng)

		s2, err := store.Open(o2, zap.NewNop(), nil)
		require.NoError(t, err)
		s2.Start()
		require.False(t, s2.Recovery().Clean)
		require.Equal(t, synced, s2.CommitLogMaxOffset(), "cut where the garbage starts")
		got := map[int32][]*message.MessageExt{0: pullAll(t, s2, "T", 0), 1: pullAll(t, s2, "T", 1)}
		for _, a := range before {
			require.Less(t, a.qoff, int64(len(got[a.qid])), "acknowledged %s lost", a.body)
			require.Equal(t, a.body, got[a.qid][a.qoff].Body)
		}
		require.NoError(t, s2.CheckConsistency())
		require.NoError(t, s2.Close())
	}
	stop.Store(true)
	wg.Wait()
}

// Under ASYNC_FLUSH a failed background sync turns the store read-only too.
func TestFailedAsyncFlushMakesStoreReadOnly(t *testing.T) {
	o, fs := storetest.OnFS(t)
	dir := o.RootDir
	s, err := store.Open(o, zap.NewNop(), nil)
	require.NoError(t, err)
	s.Start()
	mustPut(t, s, storetest.Msg("T", 0, []byte("durable"), nil))
	require.Eventually(t, func() bool { return s.CommitLogFlushedOffset() == s.CommitLogMaxOffset() }, 5*time.Second, time.Millisecond)
	flushed := s.CommitLogFlushedOffset()
	fs.Fail(vfstest.OpMsync, storetest.CommitLogSyncs, 0, syscall.EIO)
	mustPut(t, s, storetest.Msg("T", 0, []byte("acknowledged, never durable"), nil))
	require.Eventually(t, func() bool { return !s.IsWritable() }, 5*time.Second, time.Millisecond)
	r := s.PutMessage(storetest.Msg("T", 0, nil, nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.Contains(t, r.Remark, "read-only")
	require.Contains(t, r.Remark, syscall.EIO.Error())
	require.Equal(t, flushed, s.CommitLogFlushedOffset(), "a failed sync never advances the flushed offset")
	require.Error(t, s.Close())
	_, err = os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err, "the next start recovers abnormally")
}
