package body

import (
	"encoding/binary"
	"testing"
)

func TestTimerCheckpointJavaLayout(t *testing.T) {
	c := TimerCheckpoint{LastReadTimeMs: 1, LastTimerLogFlushPos: 2, LastTimerQueueOffset: 3,
		MasterTimerQueueOffset: 4, StateVersion: 5, Timestamp: 6, Counter: 7}
	b := c.Encode()
	if len(b) != 56 {
		t.Fatalf("%d bytes, Java's is 56", len(b))
	}
	for i := range 7 {
		if v := binary.BigEndian.Uint64(b[i*8:]); v != uint64(i+1) {
			t.Fatalf("long %d is %d", i, v)
		}
	}
	got, err := DecodeTimerCheckpoint(b)
	if err != nil || got != c {
		t.Fatalf("decoded %+v, %v", got, err)
	}
}

func TestTimerCheckpointExtensionRoundTrip(t *testing.T) {
	c := TimerCheckpoint{LastReadTimeMs: 1_700_000_000_000, LastTimerLogFlushPos: 640, LastTimerQueueOffset: 10,
		MasterTimerQueueOffset: 10, Timestamp: 99, Counter: 3, Ext: true, ReadDone: 2, DedupFrom: 1 << 30,
		PrecisionMs: 500, Slots: 172860}
	got, err := DecodeTimerCheckpoint(c.Encode())
	if err != nil || got != c {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	// Java's decoder reads the first 56 bytes and ignores the rest; ours reads a Java body.
	java, err := DecodeTimerCheckpoint(c.Encode()[:56])
	if err != nil || java.Ext || java.Counter != 3 {
		t.Fatalf("decoded %+v, %v", java, err)
	}
	old, err := DecodeTimerCheckpoint(c.Encode()[:32])
	if err != nil || old.LastTimerQueueOffset != 10 || old.Counter != 0 {
		t.Fatalf("decoded %+v, %v", old, err)
	}
	for _, n := range []int{0, 8, 31, 33, 55} {
		if _, err := DecodeTimerCheckpoint(make([]byte, n)); err == nil {
			t.Fatalf("%d bytes decoded", n)
		}
	}
}

func TestTimerMetricsJSON(t *testing.T) {
	b, err := Marshal(TimerMetrics{DataVersion: DataVersion{Counter: 2, Timestamp: 5},
		TimingCount: map[string]TimerMetric{"T": {Count: 3, TimeStamp: 9}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dataVersion":{"counter":2,"timestamp":5},"timingCount":{"T":{"count":3,"timeStamp":9}}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back TimerMetrics
	if err := Unmarshal(b, &back); err != nil || back.TimingCount["T"].Count != 3 {
		t.Fatalf("%+v %v", back, err)
	}
}
