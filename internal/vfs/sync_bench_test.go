package vfs_test

import (
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
	f, err := vfs.CreateAllocated(vfs.Default, filepath.Join(b.TempDir(), "segment"), size)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	m, err := f.Map(size)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Unmap()
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
