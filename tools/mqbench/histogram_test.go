package mqbench

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBucketsAreContiguousAndContainTheirValues(t *testing.T) {
	// Walk every bucket: each starts where the previous one ended.
	next := uint64(0)
	for i := range histBuckets {
		low, width := bucketRange(i)
		require.Equal(t, next, low, "bucket %d", i)
		require.Equal(t, i, bucketOf(low), "low end of bucket %d", i)
		require.Equal(t, i, bucketOf(low+width-1), "high end of bucket %d", i)
		next = low + width
	}
	assert.Equal(t, uint64(0), next, "the last bucket ends at 2^64 (wraps to 0)")
	assert.Equal(t, histBuckets-1, bucketOf(math.MaxUint64))
}

func TestBucketRelativeWidth(t *testing.T) {
	for i := 1 << histSubBits; i < histBuckets; i++ {
		low, width := bucketRange(i)
		require.LessOrEqual(t, float64(width)/float64(low), 1.0/histHalf, "bucket %d", i)
	}
}

func TestQuantilesOfUniformValues(t *testing.T) {
	var h Histogram
	// 1..100000 µs, each once.
	for v := 1; v <= 100000; v++ {
		h.Record(time.Duration(v) * time.Microsecond)
	}
	require.Equal(t, uint64(100000), h.Count())
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		want := q * 100000 * float64(time.Microsecond)
		got := float64(h.Quantile(q))
		assert.InEpsilon(t, want, got, 1.0/histHalf+1e-9, "q=%v", q)
		assert.GreaterOrEqual(t, got, want, "q=%v: quantiles report a bucket's high end", q)
	}
	assert.Equal(t, 100000*time.Microsecond, h.Max())
	assert.Equal(t, time.Microsecond, h.Min())
	assert.Equal(t, h.Max(), h.Quantile(1))
	assert.Equal(t, h.Min(), h.Quantile(0))
	assert.InDelta(t, float64(50000500*time.Nanosecond), float64(h.Mean()), 1)
}

func TestQuantileMatchesSortedSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	vals := make([]time.Duration, 50000)
	for i := range vals {
		// Log-normal-ish latencies between ~1 µs and ~1 s.
		vals[i] = time.Duration(math.Exp(r.Float64()*14+7)) * time.Nanosecond
		h.Record(vals[i])
	}
	slices.Sort(vals)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999} {
		exact := vals[int(math.Ceil(q*float64(len(vals))))-1]
		got := h.Quantile(q)
		assert.GreaterOrEqual(t, got, exact, "q=%v", q)
		assert.InEpsilon(t, float64(exact), float64(got), 1.0/histHalf+1e-9, "q=%v", q)
	}
}

func TestSmallValuesAreExact(t *testing.T) {
	var h Histogram
	for _, v := range []time.Duration{0, 1, 2, 3, 255} {
		h.Record(v)
	}
	h.Record(-5) // clamps to 0
	assert.Equal(t, time.Duration(0), h.Quantile(0.2))
	assert.Equal(t, time.Duration(0), h.Quantile(2.0/6))
	assert.Equal(t, time.Duration(1), h.Quantile(0.5))
	assert.Equal(t, time.Duration(255), h.Quantile(1))
	assert.Equal(t, time.Duration(0), h.Min())
}

func TestEmptyHistogram(t *testing.T) {
	var h Histogram
	assert.Zero(t, h.Quantile(0.99))
	assert.Zero(t, h.Mean())
	assert.Zero(t, h.Min())
	assert.Zero(t, h.Max())
	assert.Equal(t, LatencySummary{}, h.Summary())
}

func TestMergeAndConcurrentRecord(t *testing.T) {
	var a, b Histogram
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10000 {
				h := &a
				if g%2 == 1 {
					h = &b
				}
				h.Record(time.Duration(g*10000+i+1) * time.Microsecond)
			}
		})
	}
	wg.Wait()
	var all Histogram
	all.Merge(&a)
	all.Merge(&b)
	assert.Equal(t, uint64(80000), all.Count())
	assert.Equal(t, time.Microsecond, all.Min())
	assert.Equal(t, 80000*time.Microsecond, all.Max())
	assert.InEpsilon(t, float64(40000*time.Microsecond), float64(all.Quantile(0.5)), 1.0/histHalf+1e-9)

	var empty Histogram
	all.Merge(&empty)
	assert.Equal(t, time.Microsecond, all.Min(), "merging an empty histogram keeps the minimum")
}

func TestSummaryInMicroseconds(t *testing.T) {
	var h Histogram
	h.Record(2 * time.Millisecond)
	s := h.Summary()
	assert.Equal(t, uint64(1), s.Count)
	assert.InDelta(t, 2000, s.P50Us, 2000.0/histHalf)
	assert.Equal(t, 2000.0, s.MaxUs)
}

func BenchmarkHistogramRecord(b *testing.B) {
	var h Histogram
	d := 1234567 * time.Nanosecond
	for b.Loop() {
		h.Record(d)
	}
}
