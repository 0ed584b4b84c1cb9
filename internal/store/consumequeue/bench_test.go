package consumequeue

import "testing"

// BenchmarkConsumeQueueRead reads runs of 32 entries, as a pull does.
func BenchmarkConsumeQueueRead(b *testing.B) {
	cq, err := Open(b.TempDir(), "Bench", 0, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer cq.Close()
	const n = 100_000
	for i := int64(0); i < n; i++ {
		if err := cq.Put(i, entry(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var sum int64
	for i := range b.N {
		off := int64(i*32) % (n - 32)
		es, ok := cq.Entries(off)
		if !ok {
			b.Fatal("no entries")
		}
		for j := range 32 {
			sum += es.At(j).Offset
		}
		es.Release()
	}
	if sum == 0 {
		b.Fatal("nothing read")
	}
}

// BenchmarkConsumeQueuePut appends entries, as the dispatcher does.
func BenchmarkConsumeQueuePut(b *testing.B) {
	cq, err := Open(b.TempDir(), "Bench", 0, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer cq.Close()
	b.ReportAllocs()
	for i := range int64(b.N) {
		if err := cq.Put(i, entry(i)); err != nil {
			b.Fatal(err)
		}
	}
}
