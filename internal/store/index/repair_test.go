package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"
)

// tornIndex builds 40 records with keys k<i> and u<i> (80 entries) in one
// file, closes it and returns its path.
func tornIndex(t *testing.T, dir string) (Options, string) {
	t.Helper()
	opts := testOptions()
	opts.IndexNum, opts.HashSlotNum = 100, 7
	s := openService(t, dir, opts)
	for i := int64(1); i <= 40; i++ {
		build(t, s, rec(i*100, fmt.Sprintf("k%d", i), fmt.Sprintf("u%d", i)))
	}
	require.Equal(t, 1, s.FileCount())
	path := s.files[0].Path()
	require.NoError(t, s.Close())
	opts.CleanShutdown, opts.CheckpointTimestamp = false, ts0 // the file is newer than the checkpoint
	return opts, path
}

func patchFile(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteAt(b, off)
	require.NoError(t, err)
}

// An index file torn by a crash: an entry page never written (zeros), slots and
// header from later. The entries before the hole are kept with rebuilt slots,
// the last record before it is dropped, and re-indexing from there restores
// everything without duplicates.
func TestRepairTornIndexFile(t *testing.T) {
	dir := t.TempDir()
	opts, path := tornIndex(t, dir)
	l := Layout{HashSlotNum: opts.HashSlotNum, IndexNum: opts.IndexNum}
	// Entry 51 (record 2600's first key) never reached the disk.
	patchFile(t, path, int64(l.EntryOffset(51)), make([]byte, EntrySize))

	s := openService(t, dir, opts)
	require.True(t, s.LostOnLoad())
	require.Equal(t, 1, s.FileCount())
	// Entries 1..50 are records 100..2500; 2500's entries go too.
	require.Equal(t, int64(2400), s.EndPhyOffset())
	for i := int64(1); i <= 24; i++ {
		require.Equal(t, []int64{i * 100}, query(s, fmt.Sprintf("k%d", i)), "k%d", i)
		require.Equal(t, []int64{i * 100}, query(s, fmt.Sprintf("u%d", i)))
	}
	for i := int64(25); i <= 40; i++ {
		require.Empty(t, query(s, fmt.Sprintf("k%d", i)), "k%d", i)
	}
	// The store re-dispatches from the newest indexed record on.
	for i := int64(24); i <= 40; i++ {
		build(t, s, rec(i*100, fmt.Sprintf("k%d", i), fmt.Sprintf("u%d", i)))
	}
	for i := int64(1); i <= 40; i++ {
		require.Equal(t, []int64{i * 100}, query(s, fmt.Sprintf("k%d", i)), "k%d", i)
	}
	h := s.files[0].Header()
	require.EqualValues(t, 81, h.IndexCount)
	require.Equal(t, ts0+4000, h.EndTimestamp)
}

// A header never written back after the first put (begin values from
// creation): the begin time is read from the commitlog, or the file goes.
func TestRepairStaleHeader(t *testing.T) {
	for _, withTime := range []bool{true, false} {
		t.Run(fmt.Sprintf("recordTime=%v", withTime), func(t *testing.T) {
			dir := t.TempDir()
			opts, path := tornIndex(t, dir)
			patchFile(t, path, 0, make([]byte, HeaderSize))
			if withTime {
				opts.RecordTime = func(phy int64) int64 { return ts0 + phy }
			}
			s, err := Open(dir, opts, zaptest.NewLogger(t))
			require.NoError(t, err)
			defer s.Close()
			require.True(t, s.LostOnLoad())
			if !withTime {
				require.Zero(t, s.FileCount())
				require.Zero(t, s.EndPhyOffset())
				return
			}
			require.Equal(t, int64(3900), s.EndPhyOffset())
			require.Equal(t, []int64{1000}, s.Query("T", "k10", 10, ts0, ts0+5000).PhyOffsets, "entry times are right")
		})
	}
}

// A torn file that is not the newest makes the newer ones go: their entries
// follow a hole.
func TestRepairDropsFilesAfterATornOne(t *testing.T) {
	dir := t.TempDir()
	opts := testOptions()
	opts.IndexNum = 5 // 4 entries per file
	s := openService(t, dir, opts)
	for i := int64(1); i <= 6; i++ {
		build(t, s, rec(i*100, fmt.Sprintf("k%d", i), ""))
	}
	require.Equal(t, 2, s.FileCount())
	first := s.files[0].Path()
	require.NoError(t, s.Close())
	patchFile(t, first, int64(Layout{HashSlotNum: opts.HashSlotNum, IndexNum: opts.IndexNum}.EntryOffset(4)), make([]byte, EntrySize))
	opts.CleanShutdown = false
	s2 := openService(t, dir, opts)
	require.Equal(t, 1, s2.FileCount())
	require.Equal(t, int64(300), s2.EndPhyOffset())
	require.Equal(t, []int64{300}, query(s2, "k3"))
	require.Empty(t, query(s2, "k5"))
	_, err := os.Stat(filepath.Join(dir, filepath.Base(first)))
	require.NoError(t, err)
}
