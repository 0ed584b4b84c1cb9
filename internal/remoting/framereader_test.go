package remoting

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// rawFrame is a frame of payload n bytes: header length 0, then a counting pattern.
func rawFrame(n int) []byte {
	b := make([]byte, 4+n)
	binary.BigEndian.PutUint32(b, uint32(n))
	for i := 8; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	return b
}

func TestReadFrameGrowsToTheDeclaredLength(t *testing.T) {
	for _, n := range []int{4, 100, frameGrowFrom - 1, frameGrowFrom, frameGrowFrom + 1, 3*frameGrowFrom + 5, 1<<20 + 3, 5 << 20} {
		want := rawFrame(n)
		for name, r := range map[string]io.Reader{
			"whole":   bytes.NewReader(want),
			"bytes":   iotest.OneByteReader(bytes.NewReader(want)),
			"halves":  iotest.HalfReader(bytes.NewReader(want)),
			"chunked": &chunkReader{b: want, n: 1000},
		} {
			if name == "bytes" && n > 1<<16 {
				continue // slow, and no different from chunked
			}
			bufs := new(buffers)
			fb, err := readFrame(bufio.NewReaderSize(r, 4096), 0, bufs)
			require.NoError(t, err, "%d bytes, %s", n, name)
			require.Equal(t, want[4:], fb.b, "%d bytes, %s", n, name)
		}
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.b)
	r.b = r.b[k:]
	return k, nil
}

// TestAnnouncedFrameCostsWhatArrived: a peer that announces 16 MiB and sends 8 bytes makes the
// reader allocate one growth step, not the declared length; the buffer is recycled on the error.
func TestAnnouncedFrameCostsWhatArrived(t *testing.T) {
	b := rawFrame(protocol.MaxFrameSize - 4)[:12] // length + header word + 4 bytes
	bufs := new(buffers)
	var recycled []int
	bufs.recycled = func(b []byte) { recycled = append(recycled, cap(b)) }
	_, err := readFrame(bufio.NewReader(bytes.NewReader(b)), 0, bufs)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, []int{frameGrowFrom}, recycled, "one buffer of the first growth step, recycled")
}

// TestReadFrameBuffersStayWithinTwiceWhatArrived: while a big frame arrives, no buffer larger than
// twice the bytes received so far is taken.
func TestReadFrameBuffersStayWithinTwiceWhatArrived(t *testing.T) {
	n := 4<<20 + 17
	want := rawFrame(n)
	r := &countingReader{r: &chunkReader{b: want, n: 3000}}
	bufs := new(buffers)
	bufs.recycled = func(b []byte) {
		require.LessOrEqual(t, cap(b), max(frameGrowFrom, 2*int(r.n)), "buffer of %d bytes after %d read", cap(b), r.n)
	}
	fb, err := readFrame(bufio.NewReaderSize(r, 4096), 0, bufs)
	require.NoError(t, err)
	require.Equal(t, want[4:], fb.b)
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n += int64(k)
	return k, err
}

func TestReadFrameRefusesBrokenFramesBeforeAllocating(t *testing.T) {
	for name, tc := range map[string]struct {
		b    []byte
		want error
	}{
		"too large": {b: binary.BigEndian.AppendUint32(nil, 64<<20), want: protocol.ErrFrameTooLarge},
		"too short": {b: binary.BigEndian.AppendUint32(nil, 2), want: protocol.ErrFrameTooShort},
		"header":    {b: append(binary.BigEndian.AppendUint32(nil, 100), 0, 0, 1, 0), want: protocol.ErrHeaderTooLong},
		"cut":       {b: []byte{0, 0}, want: io.ErrUnexpectedEOF},
		"empty":     {b: nil, want: io.EOF},
	} {
		bufs := new(buffers)
		bufs.recycled = func([]byte) { t.Errorf("%s: a buffer was taken", name) }
		_, err := readFrame(bufio.NewReader(bytes.NewReader(tc.b)), 0, bufs)
		require.True(t, errors.Is(err, tc.want), "%s: %v", name, err)
	}
}

// FuzzReadFrame: whatever arrives, readFrame returns exactly the declared payload or an error,
// and never panics.
func FuzzReadFrame(f *testing.F) {
	f.Add(rawFrame(10), 7)
	f.Add(rawFrame(frameGrowFrom+3), 100)
	f.Add(rawFrame(3 * frameGrowFrom)[:frameGrowFrom], 1000)
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 0}, 1)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, 3)
	f.Fuzz(func(t *testing.T, b []byte, chunk int) {
		chunk = max(1, chunk%4096)
		bufs := new(buffers)
		fb, err := readFrame(bufio.NewReaderSize(&chunkReader{b: b, n: chunk}, 16), 1<<20, bufs)
		if err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(b))
		require.Equal(t, b[4:4+n], fb.b)
	})
}
