package commitlog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/store/mmapfile"
)

// writeLog appends n records with 1000-byte bodies and no properties and closes
// the log; it returns every record's offset and size and the end.
func writeLog(t *testing.T, dir string, n int) (offs []int64, sizes []int32, end int64) {
	t.Helper()
	c, err := Open(testOpts(dir), zaptest.NewLogger(t))
	require.NoError(t, err)
	_, err = c.Recover(true, 0)
	require.NoError(t, err)
	for i := range n {
		body := make([]byte, 1000)
		body[0] = byte(i)
		r := c.Append(msg("T", 0, body, ""))
		require.Equal(t, PutOK, r.Status)
		offs = append(offs, r.WroteOffset)
		sizes = append(sizes, r.WroteBytes)
	}
	end = c.MaxOffset()
	require.NoError(t, c.Close())
	return offs, sizes, end
}

// patch overwrites the log at a global offset.
func patch(t *testing.T, dir string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, mmapfile.FileName(off-off%segSize)), os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteAt(b, off%segSize)
	require.NoError(t, err)
}

func TestRecoverCorruption(t *testing.T) {
	const n = 150 // about 2.3 segments
	const k = 70  // the record corrupted in the middle cases (second segment)
	for _, tc := range []struct {
		name     string
		checkCRC bool
		corrupt  func(t *testing.T, dir string, offs []int64, sizes []int32)
		endAt    int // index of the first lost record; n = nothing lost
		stopped  string
	}{
		{"intact", true, func(*testing.T, string, []int64, []int32) {}, n, "end of data"},
		{"torn last record", true, func(t *testing.T, dir string, offs []int64, sizes []int32) {
			last := offs[n-1] + int64(sizes[n-1])
			patch(t, dir, last-500, make([]byte, 500))
		}, n - 1, "record at"},
		{"bad magic", true, func(t *testing.T, dir string, offs []int64, _ []int32) {
			patch(t, dir, offs[k]+4, []byte{1, 2, 3, 4})
		}, k, "bad magic"},
		{"bad crc", true, func(t *testing.T, dir string, offs []int64, _ []int32) {
			patch(t, dir, offs[k]+200, []byte{0xFF})
		}, k, "body CRC mismatch"},
		{"bad crc unchecked", false, func(t *testing.T, dir string, offs []int64, _ []int32) {
			patch(t, dir, offs[k]+200, []byte{0xFF})
		}, n, "end of data"},
		{"zeroed tail", true, func(t *testing.T, dir string, offs []int64, _ []int32) {
			seg := offs[k] - offs[k]%segSize
			patch(t, dir, offs[k], make([]byte, seg+segSize-offs[k]))
		}, k, "end of data"},
		{"huge size", true, func(t *testing.T, dir string, offs []int64, _ []int32) {
			patch(t, dir, offs[k], []byte{0x7F, 0, 0, 0})
		}, k, "out of range"},
		{"stale record", true, func(t *testing.T, dir string, offs []int64, sizes []int32) {
			// A valid record copied from elsewhere (as a stale one left by an older
			// write would be) is refused by its physical offset field.
			rec := make([]byte, sizes[k+1])
			f, err := os.ReadFile(filepath.Join(dir, mmapfile.FileName(offs[k+1]-offs[k+1]%segSize)))
			require.NoError(t, err)
			copy(rec, f[offs[k+1]%segSize:])
			patch(t, dir, offs[k], rec)
		}, k, "stale data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			offs, sizes, end := writeLog(t, dir, n)
			tc.corrupt(t, dir, offs, sizes)
			o := testOpts(dir)
			o.CheckCRCOnRecover = tc.checkCRC
			c, err := Open(o, zaptest.NewLogger(t))
			require.NoError(t, err)
			defer c.Close()
			st, err := c.Recover(false, 0)
			require.NoError(t, err)
			want := end
			if tc.endAt < n {
				want = offs[tc.endAt]
			}
			require.Equal(t, want, st.End)
			require.Contains(t, st.Stopped, tc.stopped)
			require.Equal(t, tc.endAt, st.Records)
			require.Equal(t, want, c.MaxOffset())
			require.Equal(t, want, c.FlushedOffset())
			require.Equal(t, int(want/segSize)+1, c.Queue().Len(), "segments past the end are deleted")

			// The tail is zeroed, and the log continues exactly at the end.
			last := c.Queue().Last()
			rest := last.Bytes(last.Wrote(), last.Size()-last.Wrote())
			require.Equal(t, make([]byte, len(rest)), rest)
			c.Start()
			r := c.Append(msg("T", 0, []byte("after"), ""))
			require.Equal(t, PutOK, r.Status)
			require.Equal(t, want, r.WroteOffset)
			for i := range tc.endAt {
				m, err := c.Lookup(offs[i])
				require.NoError(t, err)
				require.Equal(t, byte(i), m.Body[0])
			}
		})
	}
}

func TestRecoverCleanScansLastSegments(t *testing.T) {
	dir := t.TempDir()
	offs, _, end := writeLog(t, dir, 300) // about 5 segments
	// Damage in the first segment goes unnoticed by a clean recovery, which only
	// reads the last three, but is found by an abnormal one from the start.
	patch(t, dir, offs[3]+4, []byte{9, 9, 9, 9})
	c, err := Open(testOpts(dir), zaptest.NewLogger(t))
	require.NoError(t, err)
	st, err := c.Recover(true, 0)
	require.NoError(t, err)
	require.Equal(t, end, st.End)
	files := c.Queue().Files()
	require.Equal(t, files[len(files)-3].Start(), st.From)
	require.NoError(t, c.Close())

	c, err = Open(testOpts(dir), zaptest.NewLogger(t))
	require.NoError(t, err)
	defer c.Close()
	// Abnormal recovery from a checkpoint inside the second segment starts there.
	st, err = c.Recover(false, segSize+100)
	require.NoError(t, err)
	require.EqualValues(t, segSize, st.From)
	require.Equal(t, end, st.End)
	st, err = c.Recover(false, 0)
	require.NoError(t, err)
	require.Equal(t, offs[3], st.End)
	require.Equal(t, 1, c.Queue().Len())
}

func TestRecoverEmpty(t *testing.T) {
	c, err := Open(testOpts(t.TempDir()), zaptest.NewLogger(t))
	require.NoError(t, err)
	defer c.Close()
	st, err := c.Recover(false, 12345)
	require.NoError(t, err)
	require.Zero(t, st.End)
	c.Start()
	r := c.Append(msg("T", 0, nil, ""))
	require.Zero(t, r.WroteOffset)
}
