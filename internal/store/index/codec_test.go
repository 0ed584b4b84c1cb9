package index

import (
	"encoding/hex"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHeaderGolden(t *testing.T) {
	h := Header{
		BeginTimestamp: 0x0102030405060708,
		EndTimestamp:   0x1112131415161718,
		BeginPhyOffset: 0x2122232425262728,
		EndPhyOffset:   0x3132333435363738,
		HashSlotCount:  0x41424344,
		IndexCount:     -2, // stored as is; sanitising is the reader's job
	}
	var b [HeaderSize]byte
	EncodeHeader(&b, h)
	want := "0102030405060708" + "1112131415161718" + "2122232425262728" + "3132333435363738" + "41424344" + "fffffffe"
	require.Equal(t, want, hex.EncodeToString(b[:]))
	require.Equal(t, h, DecodeHeader(&b))

	got, err := ParseHeader(append(b[:], 0xAA))
	require.NoError(t, err)
	require.Equal(t, h, got)
	_, err = ParseHeader(b[:HeaderSize-1])
	require.Error(t, err)
}

func TestEntryGolden(t *testing.T) {
	e := Entry{KeyHash: 0x0A0B0C0D, PhyOffset: 0x0102030405060708, TimeDiff: 7, PrevIndex: 3}
	var b [EntrySize]byte
	EncodeEntry(&b, e)
	require.Equal(t, "0a0b0c0d"+"0102030405060708"+"00000007"+"00000003", hex.EncodeToString(b[:]))
	require.Equal(t, e, DecodeEntry(&b))

	neg := Entry{KeyHash: -1, PhyOffset: -1, TimeDiff: math.MinInt32, PrevIndex: math.MaxInt32}
	EncodeEntry(&b, neg)
	require.Equal(t, "ffffffff"+"ffffffffffffffff"+"80000000"+"7fffffff", hex.EncodeToString(b[:]))
	require.Equal(t, neg, DecodeEntry(&b))
}

func TestSlotGolden(t *testing.T) {
	var b [SlotSize]byte
	EncodeSlot(&b, 0x01020304)
	require.Equal(t, "01020304", hex.EncodeToString(b[:]))
	require.Equal(t, int32(0x01020304), DecodeSlot(&b))
}

func TestDefaultLayout(t *testing.T) {
	l := DefaultLayout()
	require.NoError(t, l.Validate())
	require.Equal(t, int64(420_000_040), l.FileSize())
	require.Equal(t, 40+(12345%5_000_000)*4, l.SlotOffset(12345))
	require.Equal(t, 40+4*5_000_000, l.EntryOffset(0))
	require.Equal(t, 40+4*5_000_000+20*19_999_999, l.EntryOffset(19_999_999))
	require.Equal(t, 40+(5_000_001%5_000_000)*4, l.SlotOffset(5_000_001))
}

func TestLayoutValidate(t *testing.T) {
	for _, l := range []Layout{{0, 10}, {10, 1}, {-1, 10}, {math.MaxInt32, 200_000_000}} {
		require.ErrorIs(t, l.Validate(), ErrBadLayout, "%+v", l)
	}
	require.NoError(t, Layout{1, 2}.Validate())
	// A corrupt negative hash still lands on a slot inside the table.
	l := Layout{HashSlotNum: 7, IndexNum: 2}
	for _, h := range []int32{-1, math.MinInt32, -7, 6, 0} {
		require.GreaterOrEqual(t, l.SlotIndex(h), 0)
		require.Less(t, l.SlotIndex(h), 7)
	}
}

func TestTimeDiff(t *testing.T) {
	const begin = 1_700_000_000_000
	cases := []struct {
		begin, store int64
		want         int32
	}{
		{begin, begin, 0},
		{begin, begin + 999, 0},
		{begin, begin + 1000, 1},
		{begin, begin + 61_999, 61},
		{begin, begin - 5000, 0},              // earlier than the file: clamped to 0
		{0, begin, 0},                         // no begin time yet
		{-1, begin, 0},                        // ditto
		{1, math.MaxInt64 / 2, math.MaxInt32}, // clamped to MaxInt32
		{begin, begin + int64(math.MaxInt32)*1000, math.MaxInt32},
	}
	for _, c := range cases {
		require.Equal(t, c.want, TimeDiff(c.begin, c.store), "TimeDiff(%d, %d)", c.begin, c.store)
	}
	require.Equal(t, int64(begin+61_000), EntryTime(begin, 61))
}
