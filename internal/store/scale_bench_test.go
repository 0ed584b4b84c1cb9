package store_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
)

// scaleQueues is how many queues the many-queue benchmarks use:
// SCALE_QUEUES, default 8,000 (scripts/scale.sh measures 80,000 end to end).
func scaleQueues() int {
	if n, err := strconv.Atoi(os.Getenv("SCALE_QUEUES")); err == nil && n > 0 {
		return n
	}
	return 8000
}

// manyQueueStore makes a store of n queues (8 per topic) with one message
// each, default file sizes, closed cleanly.
func manyQueueStore(b *testing.B, n int) store.Options {
	b.Helper()
	o := store.DefaultOptions(b.TempDir())
	o.CommitLogSegmentSize = 64 << 20
	o.MaxHashSlotNum, o.MaxIndexNum = 100_000, 400_000
	s, err := store.Open(o, zap.NewNop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		m := &store.Message{Topic: fmt.Sprintf("T%05d", i/8), QueueID: int32(i % 8), Body: []byte("m")}
		if r := s.PutMessage(m); r.Status != store.PutOK {
			b.Fatal(r.Remark)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return o
}

// BenchmarkOpenManyQueues is a clean Open and Close of a store of many
// queues with one message each (page cache warm).
func BenchmarkOpenManyQueues(b *testing.B) {
	o := manyQueueStore(b, scaleQueues())
	b.ResetTimer()
	for range b.N {
		s, err := store.Open(o, zap.NewNop(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(scaleQueues()), "µs/queue")
}
