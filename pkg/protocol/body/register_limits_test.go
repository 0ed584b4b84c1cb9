package body

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func manyTopics(n int) *RegisterBrokerBody {
	r := sampleRegisterBody()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("T%06d", i)
		r.TopicConfigSerializeWrapper.TopicConfigTable[name] = NewTopicConfig(name)
	}
	return r
}

func TestRegisterLimitsTopicCount(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		data, err := manyTopics(98).Encode(compressed) // 100 with the sample's two
		require.NoError(t, err)
		_, err = DecodeRegisterBrokerBodyLimited(data, compressed, RegisterLimits{MaxTopics: 100})
		require.NoError(t, err, "compressed=%v: at the limit", compressed)
		_, err = DecodeRegisterBrokerBodyLimited(data, compressed, RegisterLimits{MaxTopics: 99})
		require.ErrorIs(t, err, ErrRegisterTooManyTopics, "compressed=%v", compressed)
		require.ErrorContains(t, err, "100 topics, limit 99")
	}
}

func TestRegisterLimitsBodySize(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		data, err := manyTopics(50).Encode(compressed)
		require.NoError(t, err)
		_, err = DecodeRegisterBrokerBodyLimited(data, compressed, RegisterLimits{MaxBodyBytes: 1000})
		require.ErrorIs(t, err, ErrRegisterBodyTooLarge, "compressed=%v", compressed)
		_, err = DecodeRegisterBrokerBodyLimited(data, compressed, RegisterLimits{MaxBodyBytes: 1 << 20})
		require.NoError(t, err, "compressed=%v", compressed)
	}
}

// TestCompressedBombStopsAtTheLimit: 64 MiB of zeros compressed into a few KiB stop at the
// inflated limit, and decoding them allocates about the limit, not 64 MiB.
func TestCompressedBombStopsAtTheLimit(t *testing.T) {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	require.NoError(t, binary.Write(zw, binary.BigEndian, int32(16<<20-1)))
	zero := make([]byte, 1<<20)
	for i := 0; i < 64; i++ {
		_, _ = zw.Write(zero)
	}
	require.NoError(t, zw.Close())
	require.Less(t, buf.Len(), 128<<10)
	allocated := allocatedBy(func() {
		_, err := DecodeRegisterBrokerBodyLimited(buf.Bytes(), true, RegisterLimits{MaxBodyBytes: 1 << 20})
		require.ErrorIs(t, err, ErrRegisterBodyTooLarge)
	})
	require.Less(t, allocated, uint64(8<<20), "allocated %d bytes", allocated)
}

// TestDeclaredPartCostsWhatArrives: a part that declares 16 MiB and carries 10 bytes fails without
// allocating 16 MiB.
func TestDeclaredPartCostsWhatArrives(t *testing.T) {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	require.NoError(t, binary.Write(zw, binary.BigEndian, int32(16<<20)))
	_, _ = zw.Write([]byte("0123456789"))
	require.NoError(t, zw.Close())
	allocated := allocatedBy(func() {
		_, err := DecodeRegisterBrokerBody(buf.Bytes(), true)
		require.Error(t, err)
	})
	require.Less(t, allocated, uint64(4<<20), "allocated %d bytes", allocated)
}

func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// FuzzDecodeRegisterBodyLimited: within small limits, whatever the input, the decoder refuses or
// returns a body within them.
func FuzzDecodeRegisterBodyLimited(f *testing.F) {
	for _, compressed := range []bool{false, true} {
		seed, err := manyTopics(5).Encode(compressed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed, compressed, false)
	}
	f.Add([]byte{0, 0, 0, 2, '{', '}', 0, 0, 0, 9, 0, 0, 0, 20}, true, true)
	f.Fuzz(func(t *testing.T, in []byte, compressed, wrap bool) {
		if wrap {
			in = zlibBytes(in)
		}
		lim := RegisterLimits{MaxBodyBytes: 4096, MaxTopics: 6}
		r, err := DecodeRegisterBrokerBodyLimited(in, compressed, lim)
		if err != nil {
			return
		}
		if n := len(r.TopicConfigSerializeWrapper.TopicConfigTable); n > lim.MaxTopics {
			t.Fatalf("%d topics past the limit of %d", n, lim.MaxTopics)
		}
	})
}
