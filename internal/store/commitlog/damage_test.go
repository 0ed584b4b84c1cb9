package commitlog

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/vfs/vfstest"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// A record whose topic bytes were zeroed (a tear after the body) is cut,
// although its sizes still add up.
func TestRecoverRefusesDamagedTopic(t *testing.T) {
	dir := t.TempDir()
	offs, sizes, _ := writeLog(t, dir, 10)
	last := offs[9] + int64(sizes[9])
	patch(t, dir, last-3, []byte{0}) // "T": topic is followed by the 2-byte properties length
	c, err := Open(testOpts(dir), zaptest.NewLogger(t))
	require.NoError(t, err)
	defer c.Close()
	st, err := c.Recover(false, 0)
	require.NoError(t, err)
	require.Equal(t, offs[9], st.End)
	require.Contains(t, st.Stopped, "damaged topic")
}

// RecoverWith reports every valid record, and how many segments it read.
func TestRecoverWithReportsRecords(t *testing.T) {
	dir := t.TempDir()
	offs, _, end := writeLog(t, dir, 150) // three segments
	c, err := Open(testOpts(dir), zaptest.NewLogger(t))
	require.NoError(t, err)
	defer c.Close()
	var seen []int64
	st, err := c.RecoverWith(false, segSize+1, func(v message.View, off int64) {
		require.Equal(t, off, v.PhysicalOffset())
		seen = append(seen, off)
	})
	require.NoError(t, err)
	require.Equal(t, end, st.End)
	require.Equal(t, 2, st.Segments, "from the segment holding the checkpoint")
	var want []int64
	for _, o := range offs {
		if o >= segSize {
			want = append(want, o)
		}
	}
	require.Equal(t, want, seen)
}

// No space for the next segment: the put says so, nothing is stored, and the
// next put once there is space continues the log.
func TestAppendWhenNoSegmentCanBeCreated(t *testing.T) {
	fs := vfstest.New(t)
	o := testOpts(fs.Root())
	o.FS = fs
	c := open(t, o)
	var r Result
	for i := 0; ; i++ {
		r = c.Append(msg("T", 0, make([]byte, 1000), ""))
		require.Less(t, i, 100)
		if r.WroteOffset+int64(r.WroteBytes)+2*1100 > segSize {
			break
		}
	}
	full := fs.Fail(vfstest.OpFallocate, "", 0, syscall.ENOSPC)
	next := r.QueueOffset + 1
	for r.Status == PutOK {
		r = c.Append(msg("T", 0, make([]byte, 1000), ""))
		if r.Status == PutOK {
			next = r.QueueOffset + 1
		}
	}
	require.Equal(t, CreateMappedFileFailed, r.Status)
	require.ErrorIs(t, r.Err, syscall.ENOSPC)
	require.ErrorContains(t, r.Err, "no disk space for the next commit log segment")
	require.EqualValues(t, segSize, c.MaxOffset(), "the segment is closed by its BLANK")
	require.True(t, c.IsWritable())
	full()
	r = c.Append(msg("T", 0, nil, ""))
	require.Equal(t, PutOK, r.Status)
	require.EqualValues(t, segSize, r.WroteOffset)
	require.Equal(t, next, r.QueueOffset)
}
