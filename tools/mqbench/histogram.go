package mqbench

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// Histogram records durations in log-linear buckets, in the manner of an
// HdrHistogram: values below 2^histSubBits nanoseconds get a bucket each;
// above that every power of two is split into 2^(histSubBits-1) equal
// buckets, so a bucket's width is at most 1/2^(histSubBits-1) (0.8 %) of the
// values in it. Record is safe for concurrent use and does not allocate.
type Histogram struct {
	counts [histBuckets]atomic.Uint64
	total  atomic.Uint64
	sum    atomic.Uint64 // nanoseconds; wraps after ~584 years of latency
	min    atomic.Uint64 // stored as value+1 so that 0 means "none yet"
	max    atomic.Uint64
}

const (
	histSubBits = 8
	histHalf    = 1 << (histSubBits - 1)
	// histBuckets covers every uint64: the top power of two has shift
	// 64-histSubBits and ends at index (shift+2)*histHalf.
	histBuckets = (64 - histSubBits + 2) * histHalf
)

// bucketOf returns the bucket index of v.
func bucketOf(v uint64) int {
	if v < 1<<histSubBits {
		return int(v)
	}
	shift := bits.Len64(v) - histSubBits
	return shift*histHalf + int(v>>uint(shift))
}

// bucketRange returns the smallest value of bucket i and its width.
func bucketRange(i int) (low, width uint64) {
	if i < 1<<histSubBits {
		return uint64(i), 1
	}
	shift := i/histHalf - 1
	mantissa := uint64(i - shift*histHalf)
	return mantissa << uint(shift), 1 << uint(shift)
}

// Record adds one duration; negative durations count as 0.
func (h *Histogram) Record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[bucketOf(v)].Add(1)
	h.total.Add(1)
	h.sum.Add(v)
	for {
		m := h.min.Load()
		if m != 0 && m-1 <= v || h.min.CompareAndSwap(m, v+1) {
			break
		}
	}
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			break
		}
	}
}

// Merge adds every value recorded in o to h. o should not be recorded into
// at the same time.
func (h *Histogram) Merge(o *Histogram) {
	for i := range o.counts {
		if c := o.counts[i].Load(); c != 0 {
			h.counts[i].Add(c)
		}
	}
	h.total.Add(o.total.Load())
	h.sum.Add(o.sum.Load())
	if m := o.min.Load(); m != 0 {
		v := m - 1
		for {
			cur := h.min.Load()
			if cur != 0 && cur-1 <= v || h.min.CompareAndSwap(cur, m) {
				break
			}
		}
	}
	if v := o.max.Load(); v != 0 {
		for {
			cur := h.max.Load()
			if v <= cur || h.max.CompareAndSwap(cur, v) {
				break
			}
		}
	}
}

// Count is the number of values recorded.
func (h *Histogram) Count() uint64 { return h.total.Load() }

// Max is the largest value recorded, exactly.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max.Load()) }

// Min is the smallest value recorded, exactly; 0 when empty.
func (h *Histogram) Min() time.Duration {
	if m := h.min.Load(); m != 0 {
		return time.Duration(m - 1)
	}
	return 0
}

// Mean is the average of the values recorded; 0 when empty.
func (h *Histogram) Mean() time.Duration {
	n := h.total.Load()
	if n == 0 {
		return 0
	}
	return time.Duration(h.sum.Load() / n)
}

// Quantile returns the value below or at which a fraction q (0..1) of the
// recorded values lie: the highest value of the bucket holding the
// ceil(q*count)-th value, clamped to [Min, Max]. Quantile(0) is Min; it
// is 0 when empty.
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.total.Load()
	if n == 0 {
		return 0
	}
	if q <= 0 {
		return h.Min()
	}
	q = min(q, 1)
	rank := uint64(math.Ceil(q * float64(n)))
	rank = max(rank, 1)
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			low, width := bucketRange(i)
			v := low + width - 1
			return min(max(time.Duration(v), h.Min()), h.Max())
		}
	}
	return h.Max()
}

// LatencySummary is a histogram's figures in microseconds.
type LatencySummary struct {
	Count  uint64  `json:"count"`
	MeanUs float64 `json:"mean_us"`
	P50Us  float64 `json:"p50_us"`
	P90Us  float64 `json:"p90_us"`
	P99Us  float64 `json:"p99_us"`
	P999Us float64 `json:"p999_us"`
	MaxUs  float64 `json:"max_us"`
}

// Summary returns the usual quantiles of h.
func (h *Histogram) Summary() LatencySummary {
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	return LatencySummary{
		Count:  h.Count(),
		MeanUs: us(h.Mean()),
		P50Us:  us(h.Quantile(0.50)),
		P90Us:  us(h.Quantile(0.90)),
		P99Us:  us(h.Quantile(0.99)),
		P999Us: us(h.Quantile(0.999)),
		MaxUs:  us(h.Max()),
	}
}
