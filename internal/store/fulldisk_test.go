package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

// fillUntilRefused puts 1000-byte messages into T/0 until one is refused (at
// most max) and returns the acknowledged results and the refusal.
func fillUntilRefused(t *testing.T, s *store.Store, max int) ([]store.PutResult, store.PutResult) {
	t.Helper()
	var acked []store.PutResult
	for i := range max {
		r := s.PutMessage(storetest.Msg("T", 0, body(i, 1000), nil))
		if r.Status != store.PutOK {
			return acked, r
		}
		acked = append(acked, r)
	}
	t.Fatalf("no put refused after %d", max)
	return nil, store.PutResult{}
}

// requireAll checks that T/0 holds exactly the acknowledged puts, in order.
func requireAll(t *testing.T, s *store.Store, acked []store.PutResult) {
	t.Helper()
	waitDispatched(t, s)
	got := pullAll(t, s, "T", 0)
	require.Len(t, got, len(acked))
	for i, m := range got {
		require.Equal(t, acked[i].WroteOffset, m.PhysicalOffset, "%d", i)
	}
	require.NoError(t, s.CheckConsistency())
}

// A full disk when the next CommitLog segment is created: the put gets
// CREATE_MAPEDFILE_FAILED with a remark and stores nothing, the log stays
// consistent, and a later put succeeds once there is space, without restart.
func TestFullDiskAtSegmentCreation(t *testing.T) {
	for _, ft := range []store.FlushType{store.AsyncFlush, store.SyncFlush} {
		for _, prealloc := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/preallocate=%v", ft, prealloc), func(t *testing.T) {
				o, fs := storetest.OnFS(t)
				o.FlushType, o.Preallocate = ft, prealloc
				s := storetest.Open(t, o)
				mustPut(t, s, storetest.Msg("T", 0, body(0, 1000), nil))
				// The disk fills: fallocate of any new CommitLog segment
				// (in the put or in the preallocation goroutine) fails.
				full := fs.Fail(vfstest.OpFallocate, storetest.CommitLogSyncs, 0, syscall.ENOSPC)
				acked, r := fillUntilRefused(t, s, 500)
				acked = append([]store.PutResult{{WroteOffset: 0}}, acked...)
				require.Equal(t, store.CreateMappedFileFailed, r.Status)
				require.Contains(t, r.Remark, "no disk space for the next commit log segment")
				require.ErrorIs(t, r.Err, syscall.ENOSPC)
				require.Zero(t, s.CommitLogMaxOffset()%storetest.SegmentSize, "the last segment is closed by its BLANK")
				require.True(t, s.IsWritable(), "a full disk does not poison the store")
				again := s.PutMessage(storetest.Msg("T", 0, nil, nil))
				require.Equal(t, store.CreateMappedFileFailed, again.Status)
				requireAll(t, s, acked)

				full()
				ok := mustPut(t, s, storetest.Msg("T", 0, body(len(acked), 1000), nil))
				require.EqualValues(t, len(acked), ok.QueueOffset, "no queue offset was used by the refused puts")
				require.Equal(t, s.CommitLogMaxOffset()-int64(ok.WroteBytes), ok.WroteOffset)
				require.Zero(t, ok.WroteOffset%storetest.SegmentSize)
				acked = append(acked, ok)
				requireAll(t, s, acked)

				require.NoError(t, s.Close())
				s2 := storetest.Open(t, o)
				requireAll(t, s2, acked)
			})
		}
	}
}

// The same on a real full file system: a small tmpfs mounted by the test.
func TestFullDiskOnSmallTmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (TestFullDiskAtSegmentCreation covers the logic through a seam)")
	}
	t.Run("ENOSPC creating a segment", func(t *testing.T) {
		mnt, ballast := smallTmpfs(t)
		o := tmpfsOptions(mnt)
		o.DiskSpaceWarningLevelRatio = 100 // never refuse before the file system does
		s := storetest.Open(t, o)
		acked, r := fillUntilRefused(t, s, 2000)
		require.Equal(t, store.CreateMappedFileFailed, r.Status, r.Remark)
		require.ErrorIs(t, r.Err, syscall.ENOSPC)
		require.Contains(t, r.Remark, "no disk space")
		requireAll(t, s, acked)

		require.NoError(t, os.Remove(ballast))
		ok := mustPut(t, s, storetest.Msg("T", 0, body(len(acked), 1000), nil))
		require.EqualValues(t, len(acked), ok.QueueOffset)
		requireAll(t, s, append(acked, ok))
	})
	t.Run("over diskSpaceWarningLevelRatio", func(t *testing.T) {
		mnt, ballast := smallTmpfs(t)
		s := storetest.Open(t, tmpfsOptions(mnt))
		acked, r := fillUntilRefused(t, s, 2000)
		if r.Status == store.CreateMappedFileFailed { // the disk filled between two checks
			require.Eventually(t, func() bool { return !s.IsWritable() }, 5*time.Second, time.Millisecond)
			r = s.PutMessage(storetest.Msg("T", 0, nil, nil))
		}
		require.Equal(t, store.ServiceNotAvailable, r.Status, r.Remark)
		require.Contains(t, r.Remark, "over diskSpaceWarningLevelRatio 90%")
		requireAll(t, s, acked)

		require.NoError(t, os.Remove(ballast))
		require.Eventually(t, s.IsWritable, 5*time.Second, time.Millisecond, "writes resume by themselves")
		ok := mustPut(t, s, storetest.Msg("T", 0, body(len(acked), 1000), nil))
		require.EqualValues(t, len(acked), ok.QueueOffset)
		requireAll(t, s, append(acked, ok))
	})
}

// smallTmpfs mounts a 1 MiB tmpfs for the test, with a 256 KiB ballast file
// in it, and unmounts it at the end (after the store closes).
func smallTmpfs(t *testing.T) (mnt, ballast string) {
	t.Helper()
	mnt = t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	ballast = filepath.Join(mnt, "ballast")
	require.NoError(t, os.WriteFile(ballast, make([]byte, 256<<10), 0o644))
	return mnt, ballast
}

// tmpfsOptions measures the real disk, never deletes segments by itself and
// runs the disk check often.
func tmpfsOptions(mnt string) store.Options {
	o := storetest.Options(filepath.Join(mnt, "store"))
	o.FS = nil // the production FS: statfs of the tmpfs
	o.CleanFileForciblyEnable = false
	o.CleanResourceInterval = 5 * time.Millisecond
	return o
}
