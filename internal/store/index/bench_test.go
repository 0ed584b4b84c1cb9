package index

import (
	"fmt"
	"testing"
)

// benchRequests are records with a 32-hex-digit UNIQ_KEY and one KEYS element shared by 1000
// records each, cycled by the benchmarks.
func benchRequests(n int) []Request {
	reqs := make([]Request, n)
	for i := range reqs {
		reqs[i] = Request{
			Topic:   "BenchmarkTopic",
			Keys:    fmt.Sprintf("order-%d", i%(n/1000+1)),
			UniqKey: fmt.Sprintf("7F0000010A2B18B4AAC2%012X", i),
		}
	}
	return reqs
}

func openBench(b *testing.B, l Layout) *Service {
	b.Helper()
	s, err := Open(b.TempDir(), Options{HashSlotNum: l.HashSlotNum, IndexNum: l.IndexNum, CleanShutdown: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkBuildIndex indexes one record (UNIQ_KEY + one key) per op into a default-size file.
func BenchmarkBuildIndex(b *testing.B) {
	reqs := benchRequests(1 << 16)
	s := openBench(b, DefaultLayout())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := reqs[i&(len(reqs)-1)]
		r.PhyOffset = int64(i) * 200
		r.StoreTimestamp = ts0 + int64(i)/100
		if err := s.BuildIndex(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQuery looks up keys among 200,000 indexed records.
func BenchmarkQuery(b *testing.B) {
	const records = 200_000
	reqs := benchRequests(records)
	s := openBench(b, Layout{HashSlotNum: 500_000, IndexNum: 2_000_000})
	for i := range reqs {
		reqs[i].PhyOffset = int64(i) * 200
		reqs[i].StoreTimestamp = ts0 + int64(i)
		if err := s.BuildIndex(reqs[i]); err != nil {
			b.Fatal(err)
		}
	}
	end := ts0 + records
	b.Run("uniq", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r := reqs[(i*7919)%records]
			if got := s.Query(r.Topic, r.UniqKey, 32, ts0, end); len(got.PhyOffsets) != 1 {
				b.Fatalf("%s: %v", r.UniqKey, got.PhyOffsets)
			}
		}
	})
	b.Run("key-32-of-200", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r := reqs[(i*7919)%records]
			if got := s.Query(r.Topic, r.Keys, 32, ts0, end); len(got.PhyOffsets) != 32 {
				b.Fatalf("%s: %d results", r.Keys, len(got.PhyOffsets))
			}
		}
	})
	b.Run("miss", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if got := s.Query("BenchmarkTopic", "no-such-key", 32, ts0, end); len(got.PhyOffsets) != 0 {
				b.Fatal(got.PhyOffsets)
			}
		}
	})
}

func BenchmarkTopicKeyHash(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = TopicKeyHash("BenchmarkTopic", "7F0000010A2B18B4AAC2000000001234")
	}
}
