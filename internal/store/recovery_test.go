package store_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

type queueKey struct {
	topic string
	qid   int32
}

// fill puts messages round-robin over 3 topics × 4 queues, plus enough small
// ones in one queue to cross ConsumeQueue files; it returns the bodies per queue.
func fill(t *testing.T, s *store.Store, n int) map[queueKey][][]byte {
	t.Helper()
	want := map[queueKey][][]byte{}
	for i := range n {
		k := queueKey{fmt.Sprintf("Topic%d", i%3), int32(i % 4)}
		b := body(i, 200+i%700)
		r := mustPut(t, s, storetest.Msg(k.topic, k.qid, b, map[string]string{"KEYS": fmt.Sprintf("key-%d", i)}))
		require.EqualValues(t, len(want[k]), r.QueueOffset)
		want[k] = append(want[k], b)
	}
	for i := range 2500 {
		k := queueKey{"Many", 0}
		b := body(i, 1)
		mustPut(t, s, storetest.Msg(k.topic, k.qid, b, nil))
		want[k] = append(want[k], b)
	}
	return want
}

func requireQueues(t *testing.T, s *store.Store, want map[queueKey][][]byte) {
	t.Helper()
	for k, bodies := range want {
		require.EqualValues(t, len(bodies), s.MaxOffsetInQueue(k.topic, k.qid), "%v", k)
		got := pullAll(t, s, k.topic, k.qid)
		require.Len(t, got, len(bodies), "%v", k)
		for i, m := range got {
			require.Equal(t, bodies[i], m.Body, "%v offset %d", k, i)
		}
	}
}

// appendOne puts one more message in every queue and checks it gets the next offset.
func appendOne(t *testing.T, s *store.Store, want map[queueKey][][]byte) {
	t.Helper()
	for k, bodies := range want {
		r := mustPut(t, s, storetest.Msg(k.topic, k.qid, []byte("after restart"), nil))
		require.EqualValues(t, len(bodies), r.QueueOffset, "%v", k)
		want[k] = append(want[k], []byte("after restart"))
	}
}

func TestCleanRestartKeepsEverything(t *testing.T) {
	for _, ft := range []store.FlushType{store.AsyncFlush, store.SyncFlush} {
		t.Run(ft.String(), func(t *testing.T) {
			dir := t.TempDir()
			o := storetest.Options(dir)
			o.FlushType = ft
			o.Preallocate = true
			s, err := store.Open(o, zaptest.NewLogger(t), nil)
			require.NoError(t, err)
			s.Start()
			_, err = os.Stat(filepath.Join(dir, "abort"))
			require.NoError(t, err, "abort file while open")
			want := fill(t, s, 600)
			end := s.CommitLogMaxOffset()
			require.NoError(t, s.Close())
			require.NoError(t, s.Close(), "idempotent")
			_, err = os.Stat(filepath.Join(dir, "abort"))
			require.ErrorIs(t, err, os.ErrNotExist, "abort removed on clean close")

			cp, err := os.ReadFile(filepath.Join(dir, "checkpoint"))
			require.NoError(t, err)
			require.Len(t, cp, store.CheckpointSize)
			c, err := store.DecodeCheckpoint(cp)
			require.NoError(t, err)
			require.True(t, c.HasOffsets)
			require.Equal(t, end, c.FlushedOffset)
			require.Equal(t, end, c.DispatchedOffset)
			require.Positive(t, c.PhysicMsgTimestamp)
			require.Positive(t, c.LogicsMsgTimestamp)

			s = storetest.Open(t, o)
			require.Equal(t, end, s.CommitLogMaxOffset())
			requireQueues(t, s, want)
			appendOne(t, s, want)
			waitDispatched(t, s)
			requireQueues(t, s, want)
		})
	}
}

func TestCrashKeepsEverythingAcknowledgedUnderSyncFlush(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	o := storetest.Options(dir)
	o.FlushType = store.SyncFlush
	o.FlushConsumeQueueThoroughInterval = time.Hour // the checkpoint stays at the start
	s := storetest.Open(t, o)
	want := fill(t, s, 400)
	flushed := s.CommitLogFlushedOffset()
	require.Equal(t, s.CommitLogMaxOffset(), flushed, "every acknowledged put is flushed")

	// kill -9 now: copy the directory as it is and drop whatever was not synced.
	storetest.CopyDir(t, dir, crashed)
	storetest.LoseCommitLogAfter(t, filepath.Join(crashed, "commitlog"), storetest.SegmentSize, flushed)
	// The ConsumeQueues were never flushed past the start either.
	require.NoError(t, os.RemoveAll(filepath.Join(crashed, "consumequeue")))

	s2 := storetest.Open(t, storetest.Options(crashed))
	require.Equal(t, flushed, s2.CommitLogMaxOffset())
	requireQueues(t, s2, want)
	appendOne(t, s2, want)
	waitDispatched(t, s2)
	requireQueues(t, s2, want)
	q := s2.QueryMessage("Topic1", "key-7", 4, 0, time.Now().UnixMilli()+1000)
	require.Len(t, q.Records, 1, "the index is rebuilt too")
	q.Release()
}

func TestCrashLosesOnlyUnflushedTail(t *testing.T) {
	o, fs := storetest.OnFS(t)
	var frozen atomic.Bool
	gate := make(chan struct{})
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Path: storetest.CommitLogSyncs, Before: func(vfstest.Op) {
		if frozen.Load() {
			<-gate
		}
	}})
	s := storetest.Open(t, o)
	t.Cleanup(func() { close(gate) }) // runs before the store's Close
	var first []store.PutResult
	for i := range 150 {
		first = append(first, mustPut(t, s, storetest.Msg("T", 0, body(i, 900), nil)))
	}
	require.Eventually(t, func() bool { return s.CommitLogFlushedOffset() == s.CommitLogMaxOffset() }, 5*time.Second, time.Millisecond)
	frozen.Store(true)
	flushed := s.CommitLogFlushedOffset()
	for i := range 30 {
		mustPut(t, s, storetest.Msg("T", 0, body(1000+i, 900), nil))
	}
	waitDispatched(t, s)
	require.EqualValues(t, 180, s.MaxOffsetInQueue("T", 0), "ASYNC_FLUSH serves unflushed records")

	// A power loss now: what was not synced is lost, in the CommitLog and
	// everywhere else.
	o2, _ := storetest.AfterPowerLoss(t, fs, o)
	s2 := storetest.Open(t, o2)
	require.Equal(t, flushed, s2.CommitLogMaxOffset())
	require.EqualValues(t, 150, s2.MaxOffsetInQueue("T", 0), "entries pointing past the recovered end are cut")
	got := pullAll(t, s2, "T", 0)
	require.Len(t, got, 150)
	for i, m := range got {
		require.Equal(t, first[i].WroteOffset, m.PhysicalOffset)
	}
	r := mustPut(t, s2, storetest.Msg("T", 0, nil, nil))
	require.EqualValues(t, 150, r.QueueOffset)
	require.Equal(t, flushed, r.WroteOffset)
}

func TestCrashTornLastRecord(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	s := storetest.Open(t, storetest.Options(dir))
	var last store.PutResult
	for i := range 20 {
		last = mustPut(t, s, storetest.Msg("T", 1, body(i, 3000), nil))
	}
	waitDispatched(t, s)
	storetest.CopyDir(t, dir, crashed)
	seg := storetest.SegmentPath(filepath.Join(crashed, "commitlog"), storetest.SegmentSize, last.WroteOffset)
	// The last record's second half never reached the disk.
	end := last.WroteOffset + int64(last.WroteBytes)
	storetest.Zero(t, seg, (end-1500)%storetest.SegmentSize, 1500)

	s2 := storetest.Open(t, storetest.Options(crashed))
	require.Equal(t, last.WroteOffset, s2.CommitLogMaxOffset())
	require.EqualValues(t, 19, s2.MaxOffsetInQueue("T", 1))
	require.Len(t, pullAll(t, s2, "T", 1), 19)
}

func TestCrashEmptiesQueue(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	s := storetest.Open(t, storetest.Options(dir))
	mustPut(t, s, storetest.Msg("T", 0, []byte("lost"), nil))
	waitDispatched(t, s)
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(dir, "consumequeue", "T", "0"))
		return err == nil
	}, 5*time.Second, time.Millisecond)
	storetest.CopyDir(t, dir, crashed)
	storetest.LoseCommitLogAfter(t, filepath.Join(crashed, "commitlog"), storetest.SegmentSize, 0)
	s2 := storetest.Open(t, storetest.Options(crashed))
	r := s2.GetMessage("g", "T", 0, 0, 32, nil)
	require.Equal(t, store.NoMessageInQueue, r.Status, r.Status.String())
	r.Release()
	r = s2.GetMessage("g", "T", 0, 3, 32, nil)
	require.Equal(t, store.NoMessageInQueue, r.Status)
	require.Zero(t, r.NextBeginOffset)
	r.Release()
	require.Zero(t, mustPut(t, s2, storetest.Msg("T", 0, nil, nil)).QueueOffset)
}

func TestSyncFlushServesOnlyDurableRecords(t *testing.T) {
	o, fs := storetest.OnFS(t)
	o.FlushType = store.SyncFlush
	gate := make(chan struct{})
	var blocked atomic.Bool
	blocked.Store(true)
	fs.Inject(vfstest.Rule{Kind: vfstest.OpMsync, Path: storetest.CommitLogSyncs, Before: func(vfstest.Op) {
		if blocked.Load() {
			<-gate
		}
	}})
	s := storetest.Open(t, o)
	var once sync.Once
	release := func() { once.Do(func() { blocked.Store(false); close(gate) }) }
	t.Cleanup(release)
	r := s.PutMessage(storetest.Msg("T", 0, []byte("x"), map[string]string{"WAIT": "false"}))
	require.Equal(t, store.PutOK, r.Status)
	require.Less(t, s.CommitLogFlushedOffset(), s.CommitLogMaxOffset())
	time.Sleep(20 * time.Millisecond) // give a wrong dispatcher the chance to run ahead
	g := s.GetMessage("g", "T", 0, 0, 32, nil)
	require.Equal(t, store.NoMatchedLogicQueue, g.Status, "not durable, not visible")
	g.Release()
	release()
	require.Eventually(t, func() bool { return s.MaxOffsetInQueue("T", 0) == 1 }, 5*time.Second, time.Millisecond)
}

func TestFailedFlushPoisonsStore(t *testing.T) {
	o, fs := storetest.OnFS(t)
	dir := o.RootDir
	o.FlushType = store.SyncFlush
	s, err := store.Open(o, zaptest.NewLogger(t), nil)
	require.NoError(t, err)
	s.Start()
	ok := mustPut(t, s, storetest.Msg("T", 0, []byte("durable"), nil))
	fs.Fail(vfstest.OpMsync, storetest.CommitLogSyncs, 0, syscall.EIO)
	r := s.PutMessage(storetest.Msg("T", 0, []byte("not durable"), nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.Contains(t, r.Remark, syscall.EIO.Error())
	require.False(t, s.IsWritable())
	r = s.PutMessage(storetest.Msg("T", 0, []byte("refused"), nil))
	require.Equal(t, store.ServiceNotAvailable, r.Status)
	require.Contains(t, r.Remark, "read-only")
	require.Equal(t, ok.WroteOffset+int64(ok.WroteBytes), s.CommitLogFlushedOffset())
	require.Error(t, s.Close())
	_, err = os.Stat(filepath.Join(dir, "abort"))
	require.NoError(t, err, "a poisoned store keeps its abort file: the next start recovers abnormally")

	s2 := storetest.Open(t, storetest.Options(dir))
	require.True(t, s2.IsWritable())
	got := pullAll(t, s2, "T", 0)
	require.NotEmpty(t, got)
	require.Equal(t, "durable", string(got[0].Body))
}

func TestRebuildsDeletedConsumeQueues(t *testing.T) {
	dir := t.TempDir()
	o := storetest.Options(dir)
	s, err := store.Open(o, zaptest.NewLogger(t), nil)
	require.NoError(t, err)
	s.Start()
	want := fill(t, s, 200)
	require.NoError(t, s.Close())
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue")))
	s = storetest.Open(t, o)
	requireQueues(t, s, want)
}

func TestCheckpointCodec(t *testing.T) {
	c := store.Checkpoint{PhysicMsgTimestamp: 1, LogicsMsgTimestamp: 2, IndexMsgTimestamp: 3,
		HasOffsets: true, FlushedOffset: 4, DispatchedOffset: 5}
	b := c.Encode()
	require.Len(t, b, 4096)
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 1}, b[0:8])
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 2}, b[8:16])
	require.Equal(t, []byte{0, 0, 0, 0, 0, 0, 0, 3}, b[16:24])
	got, err := store.DecodeCheckpoint(b)
	require.NoError(t, err)
	require.Equal(t, c, got)
	b[75] ^= 1 // damage our offsets: Java's timestamps still read
	got, err = store.DecodeCheckpoint(b)
	require.NoError(t, err)
	require.False(t, got.HasOffsets)
	require.EqualValues(t, 3, got.IndexMsgTimestamp)
	require.Equal(t, int64(0), store.Checkpoint{PhysicMsgTimestamp: 10}.MinTimestamp())
}

// After a crash the index drops its files written after the checkpoint (as
// Java's does); re-dispatch must reach back far enough to rebuild them.
func TestCrashRebuildsDroppedIndexFiles(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	o := storetest.Options(dir)
	s := storetest.Open(t, o)
	for i := range 1000 {
		mustPut(t, s, storetest.Msg("T", 0, body(i, 10), map[string]string{"KEYS": fmt.Sprintf("early-%d", i)}))
	}
	waitDispatched(t, s)
	cpPath := filepath.Join(dir, "checkpoint")
	first, err := os.ReadFile(cpPath)
	require.NoError(t, err)
	require.Eventually(t, func() bool { // a checkpoint covering the early messages
		b, _ := os.ReadFile(cpPath)
		c, _ := store.DecodeCheckpoint(b)
		return !bytes.Equal(b, first) && c.DispatchedOffset == s.CommitLogMaxOffset()
	}, 5*time.Second, time.Millisecond)
	time.Sleep(5 * time.Millisecond) // later store times than the checkpoint's
	for i := range 10 {
		mustPut(t, s, storetest.Msg("T", 0, body(i, 10), map[string]string{"KEYS": fmt.Sprintf("late-%d", i)}))
	}
	waitDispatched(t, s)
	storetest.CopyDir(t, dir, crashed)

	s2 := storetest.Open(t, storetest.Options(crashed))
	for _, key := range []string{"early-3", "early-999", "late-5"} {
		q := s2.QueryMessage("T", key, 4, 0, time.Now().UnixMilli()+1000)
		require.Len(t, q.Records, 1, key)
		q.Release()
	}
}
