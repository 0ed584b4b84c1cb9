package store_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// rec is one record of a corruption base store.
type rec struct {
	key    queueKey
	qoff   int64
	off    int64
	size   int32
	body   []byte
	keys   string // KEYS property ("" for none)
	zeroes int    // trailing zero bytes of the encoded record
}

func (r rec) end() int64 { return r.off + int64(r.size) }

// base is a cleanly closed store and what it holds.
type base struct {
	dir  string
	recs []rec
	end  int64
}

// baseSpec says what a base store holds: n records, the i-th going to
// queue(i) with body(i) and, when keyed, a KEYS property.
type baseSpec struct {
	n     int
	queue func(i int) queueKey
	body  func(i int) []byte
	keyed func(i int) bool
}

// buildBase writes a store per spec with the index on, closes it cleanly and
// reads back every record's encoded bytes.
func buildBase(t *testing.T, spec baseSpec) base {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(storetest.Options(dir), zap.NewNop(), nil)
	require.NoError(t, err)
	s.Start()
	b := base{dir: dir}
	for i := range spec.n {
		k := spec.queue(i)
		var props map[string]string
		r := rec{key: k, body: spec.body(i)}
		if spec.keyed(i) {
			r.keys = fmt.Sprintf("key-%d", i)
			props = map[string]string{"KEYS": r.keys}
		}
		res := mustPut(t, s, storetest.Msg(k.topic, k.qid, r.body, props))
		r.qoff, r.off, r.size = res.QueueOffset, res.WroteOffset, res.WroteBytes
		b.recs = append(b.recs, r)
	}
	b.end = s.CommitLogMaxOffset()
	require.NoError(t, s.Close())
	for i := range b.recs {
		raw := readAt(t, segPath(dir, b.recs[i].off), b.recs[i].off%storetest.SegmentSize, int64(b.recs[i].size))
		b.recs[i].zeroes = len(raw) - len(bytes.TrimRight(raw, "\x00"))
	}
	return b
}

func segPath(dir string, off int64) string {
	return storetest.SegmentPath(filepath.Join(dir, "commitlog"), storetest.SegmentSize, off)
}

func readAt(t *testing.T, path string, off, n int64) []byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	b := make([]byte, n)
	_, err = f.ReadAt(b, off)
	require.NoError(t, err)
	return b
}

// corruption is one row of the table: how to damage a copy of the base, and
// which records must survive recovery (always a prefix of the log here).
type corruption struct {
	corrupt  func(t *testing.T, dir string, b base)
	survives func(r rec, b base) bool
}

func all(rec, base) bool { return true }

// before keeps the records that end at or before the cut.
func before(cut func(b base) int64) func(rec, base) bool {
	return func(r rec, b base) bool { return r.end() <= cut(b) }
}

// midRecord is the offset halfway through record i from the end (1 = last).
func midRecord(b base, i int) int64 {
	r := b.recs[len(b.recs)-i]
	return r.off + int64(r.size)/2
}

// mainSpec spreads ~2.5 segments (the last three are what a clean recovery
// reads) over three queues: "Many" has more entries than one ConsumeQueue file
// holds; the records of "A" carry a key.
var mainSpec = baseSpec{
	n: 1400,
	queue: func(i int) queueKey {
		switch i % 8 {
		case 1:
			return queueKey{"A", 0}
		case 5:
			return queueKey{"B", 1}
		}
		return queueKey{"Many", 0}
	},
	body: func(i int) []byte {
		if i%4 == 1 {
			return body(i, 50)
		}
		return body(i, 8)
	},
	keyed: func(i int) bool { return i%8 == 1 },
}

func corruptionTable() map[string]corruption {
	lastSeg := func(b base) int64 { return b.end - b.end%storetest.SegmentSize }
	return map[string]corruption{
		"intact": {func(*testing.T, string, base) {}, all},
		"zero-filled tail": {
			func(t *testing.T, dir string, b base) {
				cut := midRecord(b, 20)
				storetest.Zero(t, segPath(dir, cut), cut%storetest.SegmentSize, storetest.SegmentSize-cut%storetest.SegmentSize)
			},
			before(func(b base) int64 { return midRecord(b, 20) }),
		},
		"flipped bit in a body (CRC)": {
			func(t *testing.T, dir string, b base) {
				r := b.recs[len(b.recs)-30]
				at := r.off + 88 + int64(len(r.body))/2 // the body starts at 88 (IPv4 hosts)
				storetest.WriteAt(t, segPath(dir, at), at%storetest.SegmentSize,
					[]byte{readAt(t, segPath(dir, at), at%storetest.SegmentSize, 1)[0] ^ 0x10})
			},
			func(r rec, b base) bool { return r.off < b.recs[len(b.recs)-30].off },
		},
		"bad magic in the middle of the last segment": {
			func(t *testing.T, dir string, b base) {
				r := b.recs[len(b.recs)-60]
				require.Greater(t, r.off, lastSeg(b))
				storetest.WriteAt(t, segPath(dir, r.off), r.off%storetest.SegmentSize+4, []byte{0xDE, 0xAD, 0xBE, 0xEF})
			},
			func(r rec, b base) bool { return r.off < b.recs[len(b.recs)-60].off },
		},
		"ConsumeQueue longer than the CommitLog": {
			func(t *testing.T, dir string, b base) {
				n := countQueue(b, queueKey{"A", 0})
				path := filepath.Join(dir, "consumequeue", "A", "0", mmapfile.FileName(0))
				extra := make([]byte, 5*20)
				for i := range 5 {
					binary.BigEndian.PutUint64(extra[i*20:], uint64(b.end+int64(i)*150))
					binary.BigEndian.PutUint32(extra[i*20+8:], 150)
				}
				storetest.WriteAt(t, path, int64(n)*20, extra)
			},
			all,
		},
		"missing newest ConsumeQueue file": {
			func(t *testing.T, dir string, b base) {
				require.Greater(t, countQueue(b, queueKey{"Many", 0}), storetest.EntriesPerFile)
				path := filepath.Join(dir, "consumequeue", "Many", "0", mmapfile.FileName(storetest.EntriesPerFile*20))
				require.NoError(t, os.Remove(path))
			},
			all,
		},
		"missing ConsumeQueue directory of one queue": {
			func(t *testing.T, dir string, _ base) {
				require.NoError(t, os.RemoveAll(filepath.Join(dir, "consumequeue", "B", "1")))
			},
			all,
		},
		"garbage checkpoint": {
			func(t *testing.T, dir string, _ base) {
				junk := make([]byte, store.CheckpointSize)
				rng := rand.New(rand.NewPCG(1, 2))
				for i := range junk {
					junk[i] = byte(rng.IntN(256))
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, "checkpoint"), junk, 0o644))
			},
			all,
		},
		"short checkpoint": {
			func(t *testing.T, dir string, _ base) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "checkpoint"), []byte("garbage"), 0o644))
			},
			all,
		},
		"missing checkpoint": {
			func(t *testing.T, dir string, _ base) {
				require.NoError(t, os.Remove(filepath.Join(dir, "checkpoint")))
			},
			all,
		},
	}
}

func countQueue(b base, k queueKey) int {
	n := 0
	for _, r := range b.recs {
		if r.key == k {
			n++
		}
	}
	return n
}

// TestRecoveryCorruptionTable damages copies of a cleanly closed store in
// named ways and recovers each both ways: after a clean stop (no abort file)
// and after a crash (abort file present).
func TestRecoveryCorruptionTable(t *testing.T) {
	b := buildBase(t, mainSpec)
	require.Greater(t, b.end, 2*int64(storetest.SegmentSize))
	require.LessOrEqual(t, b.end, 3*int64(storetest.SegmentSize))
	for name, c := range corruptionTable() {
		for _, crashed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/crashed=%v", name, crashed), func(t *testing.T) {
				t.Parallel()
				runCorruption(t, b, crashed, c)
			})
		}
	}
}

// TestRecoveryTornTailEveryByte cuts the newest segment at every byte of its
// last three records, as a torn write or a copy cut short leaves it: a record
// survives when only zero bytes of it were lost (its empty properties'
// length), and nothing after it does. (A tear confined to a record's
// properties is not detected: the format has no checksum over them; see
// docs/durability.md.)
func TestRecoveryTornTailEveryByte(t *testing.T) {
	b := buildBase(t, baseSpec{
		n:     9,
		queue: func(i int) queueKey { return queueKey{"T", int32(i % 2)} },
		body:  func(i int) []byte { return []byte{byte('a' + i)} },
		keyed: func(int) bool { return false },
	})
	from := b.recs[len(b.recs)-3].off
	for _, crashed := range []bool{false, true} {
		t.Run(fmt.Sprintf("crashed=%v", crashed), func(t *testing.T) {
			t.Parallel()
			for cut := from; cut < b.end; cut++ {
				c := corruption{
					corrupt: func(t *testing.T, dir string, _ base) {
						storetest.Truncate(t, segPath(dir, cut), cut%storetest.SegmentSize)
					},
					survives: func(r rec, _ base) bool { return r.end()-int64(r.zeroes) <= cut },
				}
				t.Run(fmt.Sprintf("cut=%d", cut), func(t *testing.T) {
					t.Parallel()
					runCorruption(t, b, crashed, c)
				})
			}
		})
	}
}

// runCorruption copies the base, damages it, recovers it and checks it.
func runCorruption(t *testing.T, b base, crashed bool, c corruption) {
	dir := t.TempDir()
	storetest.CopyDir(t, b.dir, dir)
	c.corrupt(t, dir, b)
	if crashed {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "abort"), nil, 0o644))
	}
	s, err := store.Open(storetest.Options(dir), zap.NewNop(), nil)
	require.NoError(t, err)
	s.Start()
	defer func() { require.NoError(t, s.Close()) }()
	require.Equal(t, !crashed, s.Recovery().Clean)
	checkSurvivors(t, s, b, func(r rec) bool { return c.survives(r, b) })
}

// checkSurvivors asserts that exactly the surviving records are in their
// queues (by queue offset, position and content), that no entry points past
// the log's end, that the index finds survivors only, and that new puts
// continue each queue and the log where the survivors end.
func checkSurvivors(t *testing.T, s *store.Store, b base, survives func(rec) bool) {
	t.Helper()
	want := map[queueKey][]rec{}
	end, lost := int64(0), []rec(nil)
	for _, r := range b.recs {
		if _, ok := want[r.key]; !ok {
			want[r.key] = nil // every queue of the base is checked
		}
		if survives(r) {
			want[r.key] = append(want[r.key], r)
			end = max(end, r.end())
		} else {
			lost = append(lost, r)
		}
	}
	require.Equal(t, end, s.CommitLogMaxOffset(), "recovered end")
	require.NoError(t, s.CheckConsistency())
	for k, rs := range want {
		got := pullAll(t, s, k.topic, k.qid)
		require.Len(t, got, len(rs), "%v", k)
		for i, m := range got {
			require.EqualValues(t, i, m.QueueOffset, "%v", k)
			require.Equal(t, rs[i].off, m.PhysicalOffset, "%v@%d", k, i)
			require.Equal(t, rs[i].body, m.Body, "%v@%d", k, i)
		}
	}
	requireIndexed(t, s, want, lost)
	first := true
	for k, rs := range want {
		r := mustPut(t, s, storetest.Msg(k.topic, k.qid, []byte("after recovery"), nil))
		require.EqualValues(t, len(rs), r.QueueOffset, "%v continues", k)
		if first {
			require.Equal(t, end, r.WroteOffset, "the log continues at the recovered end")
			first = false
		}
	}
	waitDispatched(t, s)
	require.NoError(t, s.CheckConsistency())
}

// requireIndexed checks that the last surviving keyed record of each queue is
// found by key and that no lost record is.
func requireIndexed(t *testing.T, s *store.Store, want map[queueKey][]rec, lost []rec) {
	t.Helper()
	until := time.Now().Add(time.Hour).UnixMilli()
	for k, rs := range want {
		for i := len(rs) - 1; i >= 0; i-- {
			if rs[i].keys == "" {
				continue
			}
			q := s.QueryMessage(k.topic, rs[i].keys, 4, 0, until)
			require.Len(t, q.Records, 1, "%v key %s", k, rs[i].keys)
			q.Release()
			break
		}
	}
	for _, r := range lost {
		if r.keys == "" {
			continue
		}
		q := s.QueryMessage(r.key.topic, r.keys, 4, 0, until)
		for _, raw := range q.Records {
			v, err := message.Parse(raw)
			require.NoError(t, err)
			require.NotEqual(t, r.body, v.Body(), "lost record %s found by key", r.keys)
		}
		q.Release()
	}
}
