package vfs_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// BenchmarkDeviceSync measures the device under the store the way SYNC_FLUSH uses it, without
// the broker: append 1 KiB into a preallocated, mapped file and sync the dirty range (msync
// MS_SYNC, as a CommitLog flush does), one sync per append. It reports the syncs' p50 and p99,
// the floor a single SYNC_FLUSH sender's latency is compared with (docs/benchmarks.md). Run it
// with TMPDIR on the store's file system.
func BenchmarkDeviceSync(b *testing.B) {
	const size = 256 << 20
	_, m := mappedSegment(b, size)
	data, rec := m.Bytes(), make([]byte, 1024)
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		pos := (i * len(rec)) % (size - len(rec))
		copy(data[pos:], rec)
		from := int64(pos) &^ (vfs.PageSize - 1)
		begin := time.Now()
		if err := m.Sync(from, int64(pos+len(rec))-from); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(begin))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkSegmentSync is BenchmarkDeviceSync a way into the segment, the two ways a CommitLog
// can write: 8 or 64 MiB written first (a sync per MiB), then 1 KiB appended and its dirty range synced
// (msync) per operation, the bytes stored to the mapping ("mapping", ASYNC_FLUSH's way) or written
// with pwrite ("pwrite", SYNC_FLUSH's). It reports the p50 and p99 of write+sync. On the
// project's ext4 machine the mapping's syncs took 1-3 ms there and pwrite's 0.1-0.3 ms
// (docs/benchmarks.md, "Writing the CommitLog with pwrite"). Run it with TMPDIR on the store's
// file system.
func BenchmarkSegmentSync(b *testing.B) {
	for _, mode := range []string{"mapping", "pwrite"} {
		for _, mib := range []int{8, 64} {
			b.Run(fmt.Sprintf("%s/%dMiB", mode, mib), func(b *testing.B) {
				benchSegmentSync(b, mode == "pwrite", mib<<20)
			})
		}
	}
}

// benchSegmentSync writes before bytes of a segment first, then measures 1 KiB write+sync.
func benchSegmentSync(b *testing.B, pwrite bool, before int) {
	const size = 256 << 20
	f, m := mappedSegment(b, size)
	data, rec := m.Bytes(), make([]byte, 1024)
	write := func(pos int) {
		if !pwrite {
			copy(data[pos:], rec)
		} else if _, err := f.WriteAt(rec, int64(pos)); err != nil {
			b.Fatal(err)
		}
	}
	pos := 0
	for ; pos < before; pos += len(rec) {
		write(pos)
		if (pos+len(rec))%(1<<20) == 0 {
			if err := m.Sync(int64(pos+len(rec)-(1<<20)), 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		if pos+len(rec) > size {
			b.Fatal("segment full: use a smaller -benchtime")
		}
		begin := time.Now()
		write(pos)
		from := int64(pos) &^ (vfs.PageSize - 1)
		if err := m.Sync(from, int64(pos+len(rec))-from); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(begin))
		pos += len(rec)
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

// mappedSegment creates a preallocated file of size bytes in the benchmark's temp dir and maps
// it; both are closed when the benchmark ends.
func mappedSegment(b *testing.B, size int64) (vfs.File, vfs.Mapping) {
	f, err := vfs.CreateAllocated(vfs.Default, filepath.Join(b.TempDir(), "segment"), size)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	m, err := f.Map(size)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Unmap() })
	return f, m
}
