package store_test

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// A full disk when a ConsumeQueue file or block is allocated: the puts are
// acknowledged (the CommitLog segment is preallocated), the dispatcher stops
// at the first record it cannot index, neither skips nor loses it, the process
// does not fault, the checkpoint does not pass it; once there is room every
// entry is written at its queue offset, without a restart.
func TestConsumeQueueFullDisk(t *testing.T) {
	o, fs := storetest.OnFS(t)
	s := storetest.Open(t, o)
	for i := range 10 {
		mustPut(t, s, storetest.Msg("T", 0, body(i, 100), nil))
	}
	waitDispatched(t, s)
	full := fs.Fail(vfstest.OpFallocate, "consumequeue/", 0, syscall.ENOSPC)
	var acked []store.PutResult
	for i := range 400 { // T/0 runs past its first page; T/1 needs a new file
		acked = append(acked, mustPut(t, s, storetest.Msg("T", int32(i%2), body(i, 100), nil)))
	}
	require.Eventually(t, func() bool { return fs.Count(vfstest.OpFallocate, "consumequeue/T/1/") > 0 },
		5*time.Second, time.Millisecond)
	stuck := s.DispatchBehindBytes()
	time.Sleep(100 * time.Millisecond) // a few retries
	require.Positive(t, stuck)
	require.Equal(t, stuck, s.DispatchBehindBytes(), "no record skipped")
	require.True(t, s.IsWritable())
	require.EqualValues(t, 11, s.MaxOffsetInQueue("T", 0), "T/1's first record blocks the dispatch")
	require.Len(t, pullAll(t, s, "T", 0), 11)
	require.LessOrEqual(t, readCheckpoint(t, o.RootDir).DispatchedOffset, acked[1].WroteOffset,
		"the checkpoint does not pass the record without its entry")

	full()
	waitDispatched(t, s)
	got := map[int32]int{0: 10}
	for i, r := range acked {
		qid := int32(i % 2)
		require.EqualValues(t, got[qid], r.QueueOffset)
		got[qid]++
	}
	require.Len(t, pullAll(t, s, "T", 0), got[0])
	require.Len(t, pullAll(t, s, "T", 1), got[1])
	require.NoError(t, s.CheckConsistency())
	require.NoError(t, s.Close())
	s2 := storetest.Open(t, o)
	require.Len(t, pullAll(t, s2, "T", 1), got[1])
	require.NoError(t, s2.CheckConsistency())
}

// scaleOptions: 120 queues of 1000-entry files under a cap of 16 mapped
// ConsumeQueue files.
func scaleOptions(t *testing.T) (store.Options, *vfstest.FS) {
	o, fs := storetest.OnFS(t)
	o.MaxMappedConsumeQueueFiles = 16
	return o, fs
}

// fillQueues puts n messages into each of topics×queues queues and returns
// the acknowledged bodies by queue.
func fillQueues(t *testing.T, s *store.Store, topics, queues, n int) map[queueKey][][]byte {
	t.Helper()
	want := map[queueKey][][]byte{}
	for i := range n {
		for tp := range topics {
			for q := range queues {
				k := queueKey{fmt.Sprintf("T%03d", tp), int32(q)}
				b := []byte(fmt.Sprintf("%s/%d/%d", k.topic, k.qid, i))
				mustPut(t, s, storetest.Msg(k.topic, k.qid, b, nil))
				want[k] = append(want[k], b)
			}
		}
	}
	return want
}

// liveMappings is how many ConsumeQueue mappings are alive on fs.
func liveMappings(fs *vfstest.FS) int {
	return fs.Count(vfstest.OpMmap, "consumequeue/") - fs.Count(vfstest.OpMunmap, "consumequeue/")
}

// Many queues under a small cap of mapped files: every queue stays readable
// and writable, the mappings stay under the cap, a clean stop syncs the queues
// with one syncfs, and a restart (clean, or from a copy taken live, as after
// kill -9) rewrites no ConsumeQueue file.
func TestManyQueuesUnderTheMappedFileCap(t *testing.T) {
	o, fs := scaleOptions(t)
	s := storetest.Open(t, o)
	want := fillQueues(t, s, 30, 4, 3)
	waitDispatched(t, s)
	require.LessOrEqual(t, liveMappings(fs), 16+2)
	requireQueues(t, s, want)
	require.LessOrEqual(t, liveMappings(fs), 16+2)
	appendOne(t, s, want)

	crashed := t.TempDir()
	waitDispatched(t, s)
	storetest.CopyDir(t, o.RootDir, crashed)
	require.NoError(t, s.Close())

	for name, root := range map[string]string{"clean": o.RootDir, "kill -9": crashed} {
		t.Run(name, func(t *testing.T) {
			fs2 := vfstest.NewAt(root)
			fs2.SetDiskUsage(storetest.NoDiskPressure)
			o2 := o
			o2.RootDir, o2.CommitLogDir, o2.FS = root, "", fs2
			s2, err := store.Open(o2, zap.NewNop(), nil)
			require.NoError(t, err)
			defer s2.Close()
			require.Equal(t, name == "clean", s2.Recovery().Clean)
			for _, kind := range []string{vfstest.OpCreate, vfstest.OpWrite, vfstest.OpWriteAt, vfstest.OpTruncate,
				vfstest.OpFallocate, vfstest.OpPunchHole, vfstest.OpZeroRange, vfstest.OpSync} {
				require.Zero(t, fs2.Count(kind, "consumequeue/"), "%s of a queue file at open", kind)
			}
			require.LessOrEqual(t, liveMappings(fs2), 16+2)
			s2.Start()
			requireQueues(t, s2, want)
			require.NoError(t, s2.CheckConsistency())
		})
	}
}

// A stop after puts to many queues syncs them all with one syncfs, none
// with an msync of its own.
func TestCloseSyncsManyQueuesOnce(t *testing.T) {
	o, fs := scaleOptions(t)
	s, err := store.Open(o, zap.NewNop(), nil) // not started: the Close flushes everything
	require.NoError(t, err)
	for i := range 120 {
		mustPut(t, s, storetest.Msg(fmt.Sprintf("T%03d", i/4), int32(i%4), []byte("m"), nil))
	}
	fs.ResetTrace()
	require.NoError(t, s.Close())
	require.Equal(t, 1, fs.Count(vfstest.OpSyncFS, ""))
	require.Zero(t, fs.Count(vfstest.OpMsync, "consumequeue/"))
	require.Equal(t, 120, fs.Count(vfstest.OpMmap, "consumequeue/"))
	require.LessOrEqual(t, liveMappings(fs), 0, "all unmapped at the end")
}

// New queue files and directories are synced only by a syncfs: a power loss
// before one loses them, and recovery rebuilds them from the CommitLog; one
// after it keeps them.
func TestPowerLossBeforeNewQueuesAreSynced(t *testing.T) {
	o, fs := scaleOptions(t)
	o.FlushType = store.SyncFlush
	o.FlushIntervalConsumeQueue = time.Hour // no ConsumeQueue flush while the test runs
	o.FlushConsumeQueueThoroughInterval = time.Hour
	s := storetest.Open(t, o)
	want := fillQueues(t, s, 10, 4, 2)
	waitDispatched(t, s)
	require.Zero(t, fs.Count(vfstest.OpSyncFS, ""))

	o2, fs2 := storetest.AfterPowerLoss(t, fs, o)
	_, err := fs2.Stat(filepath.Join(o2.RootDir, "consumequeue", "T000"))
	require.Error(t, err, "the unsynced queue directories are gone")
	s2 := storetest.Open(t, o2)
	requireQueues(t, s2, want)
	require.NoError(t, s2.CheckConsistency())
	require.NoError(t, s2.Close())

	require.NoError(t, s.Close()) // syncs everything with a syncfs
	o3, _ := storetest.AfterPowerLoss(t, fs, o)
	s3 := storetest.Open(t, o3)
	require.True(t, s3.Recovery().Clean)
	requireQueues(t, s3, want)
}

// The cap and how the queues live under it are metrics.
func TestMappedFileMetrics(t *testing.T) {
	o, _ := scaleOptions(t)
	reg := prometheus.NewRegistry()
	s, err := store.Open(o, zap.NewNop(), reg)
	require.NoError(t, err)
	s.Start()
	defer s.Close()
	fillQueues(t, s, 10, 4, 1)
	waitDispatched(t, s)
	got := map[string]float64{}
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			got[mf.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	require.EqualValues(t, 16, got["rocketgo_store_consumequeue_mapped_files_max"])
	require.LessOrEqual(t, got["rocketgo_store_consumequeue_mapped_files"], float64(16+2))
	require.Positive(t, got["rocketgo_store_consumequeue_mapped_files"])
	require.Positive(t, got["rocketgo_store_consumequeue_closed_total"], "40 queues under a cap of 16")
}
