package timer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
)

func openWheel(t *testing.T, fsys *vfstest.FS, slots int64) *Wheel {
	t.Helper()
	w, err := OpenWheel(fsys, fsys.Path("wheel"), slots, 1000)
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w
}

func TestWheelChainsRecordsPerSlot(t *testing.T) {
	w := openWheel(t, vfstest.New(t), 10)
	assert.Equal(t, empty(5000), w.Get(5000))
	assert.Equal(t, NoPos, w.Add(5000, 0))
	assert.Equal(t, int64(0), w.Add(5000, 64))
	assert.Equal(t, NoPos, w.Add(6000, 128))
	assert.Equal(t, Slot{TimeMs: 5000, First: 0, Last: 64, Num: 2}, w.Get(5000))
	// 15000 shares 5000's place: while 5000 holds it, 15000 reads empty; adding starts over.
	assert.Equal(t, empty(15000), w.Get(15000))
	assert.Equal(t, NoPos, w.Add(15000, 192))
	assert.Equal(t, Slot{TimeMs: 15000, First: 192, Last: 192, Num: 1}, w.Get(15000))
	assert.Equal(t, empty(5000), w.Get(5000))
}

func TestWheelReplayIsIdempotent(t *testing.T) {
	w := openWheel(t, vfstest.New(t), 10)
	w.Add(3000, 0)
	w.Add(3000, 64)
	assert.False(t, w.Replay(3000, 0))
	assert.False(t, w.Replay(3000, 64))
	assert.True(t, w.Replay(3000, 128))
	assert.Equal(t, Slot{TimeMs: 3000, First: 0, Last: 128, Num: 3}, w.Get(3000))
}

// Sync writes only the pages that changed; a reopen reads what was synced, not what changed
// after.
func TestWheelSyncWritesChangedPagesAndPersists(t *testing.T) {
	fsys := vfstest.New(t)
	w := openWheel(t, fsys, 1000) // 32 KB: 8 pages
	require.NoError(t, w.Sync())
	fsys.ResetTrace()
	w.Add(1000, 0)      // slot 1: page 0
	w.Add(500_000, 64)  // slot 500: page 3
	w.Add(501_000, 128) // slot 501: page 3
	require.NoError(t, w.Sync())
	assert.Equal(t, 2, fsys.Count(vfstest.OpWriteAt, "wheel"))
	assert.Equal(t, 1, fsys.Count(vfstest.OpSync, "wheel"))
	require.NoError(t, w.Sync())
	assert.Equal(t, 2, fsys.Count(vfstest.OpWriteAt, "wheel"), "nothing changed, nothing written")
	w.Add(2000, 192) // not synced
	require.NoError(t, w.Close())

	w2 := openWheel(t, fsys, 1000)
	assert.Equal(t, Slot{TimeMs: 500_000, First: 64, Last: 64, Num: 1}, w2.Get(500_000))
	assert.Equal(t, Slot{TimeMs: 1000, First: 0, Last: 0, Num: 1}, w2.Get(1000))
	assert.Equal(t, empty(2000), w2.Get(2000))
}

func TestWheelRefusesAnotherShape(t *testing.T) {
	fsys := vfstest.New(t)
	w := openWheel(t, fsys, 100)
	require.NoError(t, w.Close())
	_, err := OpenWheel(fsys, fsys.Path("wheel"), 200, 1000)
	assert.ErrorContains(t, err, "cannot change")
	_, err = OpenWheel(fsys, fsys.Path("wheel"), 100, 500)
	assert.ErrorContains(t, err, "100 slots of 1000 ms, configured 100 of 500 ms")
}

func TestWheelEachVisitsTheWindowInTimeOrder(t *testing.T) {
	w := openWheel(t, vfstest.New(t), 10)
	w.Add(12_000, 0)
	w.Add(9000, 64) // before the window
	w.Add(20_000, 128)
	w.Add(14_000, 192)
	var got []int64
	w.Each(10_000, func(s Slot) { got = append(got, s.TimeMs) })
	assert.Equal(t, []int64{12_000, 14_000}, got, "20000 took 10000's place; 9000 is 19000's")
}

func TestWheelPowerLossKeepsTheLastSync(t *testing.T) {
	fsys := vfstest.New(t)
	w := openWheel(t, fsys, 100)
	w.Add(1000, 0)
	require.NoError(t, w.Sync())
	w.Add(1000, 64)
	w.Add(2000, 128)
	require.NoError(t, w.Sync())
	w.Add(3000, 192)
	lost, err := fsys.PowerLoss(t.TempDir())
	require.NoError(t, err)
	w2, err := OpenWheel(lost, lost.Path("wheel"), 100, 1000)
	require.NoError(t, err)
	defer w2.Close()
	assert.Equal(t, Slot{TimeMs: 1000, First: 0, Last: 64, Num: 2}, w2.Get(1000))
	assert.Equal(t, int32(1), w2.Get(2000).Num)
	assert.Equal(t, empty(3000), w2.Get(3000))
}
