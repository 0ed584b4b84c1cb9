package ha

import (
	"testing"
	"time"
)

func TestByteRateIsTheLastCompleteSecond(t *testing.T) {
	var r byteRate
	t0 := time.Unix(1_700_000_000, 0)
	r.add(100, t0)
	r.add(50, t0.Add(900*time.Millisecond))
	if got := r.perSecond(t0.Add(999 * time.Millisecond)); got != 0 {
		t.Fatalf("within the first second: %d, want 0", got)
	}
	if got := r.perSecond(t0.Add(1500 * time.Millisecond)); got != 150 {
		t.Fatalf("the second after: %d, want 150", got)
	}
	r.add(7, t0.Add(1600*time.Millisecond))
	if got := r.perSecond(t0.Add(2 * time.Second)); got != 7 {
		t.Fatalf("two seconds on: %d, want 7", got)
	}
	if got := r.perSecond(t0.Add(4 * time.Second)); got != 0 {
		t.Fatalf("after an idle second: %d, want 0", got)
	}
}
