package timer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func sampleCheckpoint() Checkpoint {
	return Checkpoint{PrecisionMs: 1000, Slots: 172800, ReadMs: 1_700_000_000_000, ReadDone: 3, DedupFrom: 1 << 33,
		QueueOffset: 99, LogEnd: 64 * 99, StoreMs: 1_699_999_999_123, StateVersion: 0, VersionTimestamp: 1_700_000_000_456,
		VersionCounter: 7, Flags: FromSlave, Pending: map[string]int64{"TopicA": 5, "TopicB": 0, "%RETRY%g": 2}}
}

func TestCheckpointRoundTrip(t *testing.T) {
	c := sampleCheckpoint()
	got, err := DecodeCheckpoint(c.Encode())
	require.NoError(t, err)
	assert.Equal(t, c, got)
	empty := Checkpoint{}
	got, err = DecodeCheckpoint(empty.Encode())
	require.NoError(t, err)
	assert.Empty(t, got.Pending)
}

func TestCheckpointDecodeRefusesDamage(t *testing.T) {
	c := sampleCheckpoint()
	b := c.Encode()
	for i := range b {
		bad := append([]byte(nil), b...)
		bad[i] ^= 1
		_, err := DecodeCheckpoint(bad)
		assert.ErrorIs(t, err, errBadCheckpoint, "byte %d", i)
	}
	for n := range len(b) {
		_, err := DecodeCheckpoint(b[:n])
		assert.ErrorIs(t, err, errBadCheckpoint, "cut at %d", n)
	}
}

func TestCheckpointSaveLoad(t *testing.T) {
	fsys := vfstest.New(t)
	path := fsys.Path("config", "timercheck")
	_, found, err := LoadCheckpoint(fsys, path)
	require.NoError(t, err)
	assert.False(t, found)
	require.NoError(t, vfs.MkdirAll(fsys, fsys.Path("config")))
	c := sampleCheckpoint()
	require.NoError(t, SaveCheckpoint(fsys, path, &c))
	got, found, err := LoadCheckpoint(fsys, path)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, c, got)
	require.NoError(t, vfs.WriteFile(fsys, path, []byte("garbage")))
	_, _, err = LoadCheckpoint(fsys, path)
	assert.ErrorContains(t, err, "damaged")
}

func FuzzDecodeCheckpoint(f *testing.F) {
	c := sampleCheckpoint()
	f.Add(c.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCheckpoint(b)
		if err != nil {
			return
		}
		again, err := DecodeCheckpoint(c.Encode())
		require.NoError(t, err)
		assert.Equal(t, c, again)
	})
}
