package remoting

import (
	"bufio"
	"errors"
	"io"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// frameGrowFrom is the most a connection's reader allocates for a frame before its bytes arrive.
// A frame that declares more grows its buffer, doubling, as its bytes come in: a peer announcing a
// 16 MiB frame and sending 8 bytes costs this much (plus the connection's read buffer), not
// 16 MiB, and at any time a frame's buffer is at most twice what has arrived of it. Frames up to
// this size (nearly every request) are read into one buffer, as before.
const frameGrowFrom = 16 << 10

// readFrame reads the next frame's payload from br into a buffer from bufs. The frame is checked
// (protocol.PeekFrameLength) before anything is allocated; then the buffer grows with what
// arrives. On error nothing is returned and the buffers used are recycled.
func readFrame(br *bufio.Reader, maxFrame int, bufs *buffers) (*frameBuf, error) {
	n, err := protocol.PeekFrameLength(br, maxFrame)
	if err != nil {
		return nil, err
	}
	_, _ = br.Discard(4)
	fb := bufs.getFrame(min(n, frameGrowFrom))
	got := 0
	for {
		m, err := io.ReadFull(br, fb.b[got:])
		got += m
		if err != nil {
			bufs.putFrame(fb)
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the length field was read: the frame is cut short
			}
			return nil, err
		}
		if got == n {
			return fb, nil
		}
		next := bufs.getFrame(min(2*len(fb.b), n))
		copy(next.b, fb.b[:got])
		bufs.putFrame(fb)
		fb = next
	}
}
