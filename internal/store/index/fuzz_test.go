package index

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

// seedFile is a sound tinyLayout file holding a few keys, as bytes.
func seedFile(t testing.TB) []byte {
	data := make([]byte, tinyLayout.FileSize())
	f, err := newInMemory(tinyLayout, data)
	require.NoError(t, err)
	for i, k := range []string{"T#a", "T#b", "T#a", "T#Aa", "T#BB"} {
		_, err := f.Put(k, int64(100*(i+1)), ts0+int64(i)*1500)
		require.NoError(t, err)
	}
	return data
}

// corruptSeeds are damaged variants of seedFile.
func corruptSeeds(t testing.TB) map[string][]byte {
	mutate := func(fn func(b []byte)) []byte {
		b := seedFile(t)
		fn(b)
		return b
	}
	entry := func(n int) int { return tinyLayout.EntryOffset(int32(n)) }
	return map[string][]byte{
		"sound":             seedFile(t),
		"count beyond file": mutate(func(b []byte) { binary.BigEndian.PutUint32(b[offIndexCount:], 1000) }),
		"negative count":    mutate(func(b []byte) { binary.BigEndian.PutUint32(b[offIndexCount:], 0x80000000) }),
		"slot out of range": mutate(func(b []byte) {
			for i := 0; i < tinyLayout.HashSlotNum; i++ {
				binary.BigEndian.PutUint32(b[HeaderSize+4*i:], 0x7fffffff)
			}
		}),
		"negative slots": mutate(func(b []byte) { copy(b[HeaderSize:], bytes.Repeat([]byte{0xff}, 16)) }),
		"prev cycle": mutate(func(b []byte) {
			binary.BigEndian.PutUint32(b[entry(2)+offEntryPrevIndex:], 3)
			binary.BigEndian.PutUint32(b[entry(3)+offEntryPrevIndex:], 2)
		}),
		"self loop":      mutate(func(b []byte) { binary.BigEndian.PutUint32(b[entry(3)+offEntryPrevIndex:], 3) }),
		"negative time":  mutate(func(b []byte) { binary.BigEndian.PutUint32(b[entry(3)+offEntryTimeDiff:], 0xffffffff) }),
		"negative hash":  mutate(func(b []byte) { binary.BigEndian.PutUint32(b[entry(3)+offEntryKeyHash:], 0x80000001) }),
		"all ones":       bytes.Repeat([]byte{0xff}, int(tinyLayout.FileSize())),
		"all zero":       make([]byte, tinyLayout.FileSize()),
		"header only":    seedFile(t)[:HeaderSize],
		"short":          seedFile(t)[:100],
		"empty":          nil,
		"one byte extra": append(seedFile(t), 0),
	}
}

// checkFile exercises every read and write path of a possibly corrupt file and checks what
// must hold whatever the bytes: answers are bounded and never beyond the header's end.
func checkFile(t *testing.T, f *IndexFile, key string, begin, end, phy int64) {
	check := func() {
		h := f.Header()
		require.GreaterOrEqual(t, h.IndexCount, int32(1))
		require.LessOrEqual(t, h.IndexCount, int32(f.layout.IndexNum))
		got := f.Select(key, 4, begin, end)
		require.LessOrEqual(t, len(got), 4)
		for _, p := range got {
			require.LessOrEqual(t, p, h.EndPhyOffset)
		}
	}
	check()
	for i := int64(0); i < 3; i++ {
		if _, err := f.Put(key, phy+i, begin+i*1000); err != nil {
			t.Fatal(err)
		}
		check()
	}
	if _, err := f.Truncate(phy); err != nil {
		t.Fatal(err)
	}
	check()
	for _, p := range f.Select(key, 100, -1<<62, 1<<62) {
		require.Less(t, p, phy, "an entry at or beyond the truncation point survived")
	}
}

// FuzzIndexFileBytes loads arbitrary bytes as an in-memory IndexFile.
func FuzzIndexFileBytes(f *testing.F) {
	for _, b := range corruptSeeds(f) {
		f.Add(b, "T#a", ts0, ts0+10_000, int64(300))
	}
	f.Fuzz(func(t *testing.T, data []byte, key string, begin, end, phy int64) {
		b := make([]byte, tinyLayout.FileSize())
		copy(b, data)
		idx, err := newInMemory(tinyLayout, b)
		require.NoError(t, err)
		checkFile(t, idx, key, begin, end, phy)
	})
}

// FuzzOpenCorruptFile writes arbitrary bytes as an index file and opens, queries, builds,
// truncates the service on it. Open may refuse the file; nothing may panic. (Run it with
// TMPDIR on a tmpfs: every input creates files.)
func FuzzOpenCorruptFile(f *testing.F) {
	for _, b := range corruptSeeds(f) {
		f.Add(b, "a", int64(250))
	}
	f.Fuzz(func(t *testing.T, data []byte, key string, phy int64) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "20240102030405006"), data, 0o644))
		opts := Options{HashSlotNum: tinyLayout.HashSlotNum, IndexNum: tinyLayout.IndexNum, CleanShutdown: true, Now: testClock()}
		s, err := Open(dir, opts, nil)
		if err != nil {
			require.ErrorIs(t, err, ErrSizeMismatch)
			return
		}
		defer s.Close()
		s.Query("T", key, 8, 0, 1<<62)
		_ = s.BuildIndex(Request{Topic: "T", Keys: key + " x", UniqKey: "u", PhyOffset: phy, StoreTimestamp: ts0})
		s.Query("T", key, 8, ts0, ts0)
		require.NoError(t, s.Truncate(phy))
		for _, p := range s.Query("T", key, 64, -1<<62, 1<<62).PhyOffsets {
			require.Less(t, p, phy)
		}
	})
}

// FuzzCodecRoundTrip: decoding then encoding gives the same bytes.
func FuzzCodecRoundTrip(f *testing.F) {
	f.Add(seedFile(f)[:HeaderSize])
	f.Add(bytes.Repeat([]byte{0xff}, 40))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if len(b) < HeaderSize {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		var out [HeaderSize]byte
		EncodeHeader(&out, h)
		require.Equal(t, b[:HeaderSize], out[:])
		var e [EntrySize]byte
		copy(e[:], b)
		var eout [EntrySize]byte
		EncodeEntry(&eout, DecodeEntry(&e))
		require.Equal(t, e, eout)
	})
}

// FuzzJavaStringHash compares the allocation-free hash with the formula applied to the UTF-16
// encoding of the decoded string.
func FuzzJavaStringHash(f *testing.F) {
	for _, s := range []string{"", "a", "Aa", "中文", "😀", "\xff\xfe", "订单#😀x", "\xed\xa0\x80"} {
		f.Add(s, "k")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var want int32
		for _, c := range utf16.Encode([]rune(a + b)) {
			want = 31*want + int32(c)
		}
		require.Equal(t, want, JavaStringHash(a+b))
		require.Equal(t, positiveHash(want), KeyHash(a+b))
		require.GreaterOrEqual(t, KeyHash(a+b), int32(0))
		require.Equal(t, KeyHash(a+"#"+b), TopicKeyHash(a, b))
	})
}
