package index

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Values of Java's String.hashCode, worked out by hand from 31·h + c over UTF-16 code units
// (the long ones with an independent implementation of that formula).
func TestJavaStringHash(t *testing.T) {
	cases := []struct {
		s    string
		want int32
	}{
		{"", 0},
		{"a", 97},
		{"ab", 97*31 + 98},
		{"Aa", 2112},
		{"BB", 2112},     // the classic collision with "Aa"
		{"é", 233},       // U+00E9, two UTF-8 bytes, one code unit
		{"中", 20013},     // U+4E2D
		{"中文", 646394},   // 20013·31 + 25991
		{"😀", 1772899},   // U+1F600 = surrogates D83D DE00: 55357·31 + 56832
		{"\xff", 0xFFFD}, // invalid UTF-8 reads as U+FFFD
		{"hello", 99162322},
		{"polygenelubricants", -2147483648},
		{"TopicTest#ORDER-1", -1111209712},
		{"订单#😀x", -541945115},
		{"TopicA#7C4F3A5E000018B4AAC20A8A2D7B0000", -1678757876},
	}
	for _, c := range cases {
		require.Equal(t, c.want, JavaStringHash(c.s), "%q", c.s)
	}
}

func TestKeyHash(t *testing.T) {
	require.Equal(t, int32(97), KeyHash("a"))
	require.Equal(t, int32(1111209712), KeyHash("TopicTest#ORDER-1")) // abs of a negative hash
	require.Equal(t, int32(541945115), KeyHash("订单#😀x"))              // non-ASCII, negative
	require.Equal(t, int32(0), KeyHash("polygenelubricants"))         // Integer.MIN_VALUE → 0
	require.Equal(t, KeyHash("TopicTest#ORDER-1"), TopicKeyHash("TopicTest", "ORDER-1"))
	require.Equal(t, KeyHash("订单#😀x"), TopicKeyHash("订单", "😀x"))
	require.Equal(t, KeyHash("#"), TopicKeyHash("", ""))
}

func TestTopicKeyHashDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() { _ = TopicKeyHash("TopicTest", "订单-42") })
	require.Zero(t, allocs)
}
