package mqbench

import (
	"testing"
	"time"
)

// FuzzPullBody feeds arbitrary pull bodies to the consumer's record walk:
// it must count what it can parse and never panic.
func FuzzPullBody(f *testing.F) {
	keys := testKeys()
	for _, b := range [][]byte{nil, {0, 0, 0, 91}, make([]byte, 200)} {
		f.Add(b)
	}
	f.Add(pullAnswer(f, 0, 2, 0, 3, 3, 3).Body) // three real records
	f.Fuzz(func(t *testing.T, body []byte) {
		o := &Options{Mode: ModeConsume, CheckCRC: true}
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		c := newConsumer(o, keys, &tracker{})
		pq := &pullQueue{q: newQueueRef("b", "x", 2), drainTo: -1}
		k := c.records(pq, span{0, 32}, body)
		if k < 0 || int64(k) != c.msgs.Load() || k*91 > len(body) {
			t.Fatalf("%d records from %d bytes", k, len(body))
		}
	})
}

// FuzzParseProcStat: any /proc stat text gives a duration or an error.
func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("4242 (my (broker) x) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 50 0 0 20 0 12 0 100 0 0\n"))
	f.Add([]byte("1 () S"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := parseProcStat(b, 100)
		if err == nil && d%(10*time.Millisecond) != 0 {
			t.Fatalf("%v is not a whole number of 100 Hz ticks", d)
		}
	})
}

// FuzzSeqOf: keys round-trip, and nothing else maps to a key.
func FuzzSeqOf(f *testing.F) {
	ks := testKeys()
	f.Add([]byte(ks.appendKey(nil, 12345)))
	f.Add([]byte("7F0000010C6F18B4AAC2A3B1D0C40000"))
	f.Fuzz(func(t *testing.T, key []byte) {
		seq, ok := ks.seqOf(key)
		if ok && string(ks.appendKey(nil, seq)) != string(key) {
			t.Fatalf("%q maps to %d, whose key is %q", key, seq, ks.appendKey(nil, seq))
		}
	})
}
