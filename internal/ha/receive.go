package ha

import (
	"errors"
	"fmt"
	"io"
)

// ErrOffsetMismatch reports a frame that does not continue the slave's log: the master sent data
// for another offset than the slave's end. The slave drops the connection (Java does the same)
// and reconnects, reporting its end again.
var ErrOffsetMismatch = errors.New("ha: the master's offset does not continue the slave's commit log")

// receiver reads master frames from a stream and appends their bodies to a slave's log.
type receiver struct {
	log SlaveLog
	buf []byte // body chunks are read into it, then appended
	// deadline, when set, is called before every read (the housekeeping timeout).
	deadline func() error
}

// next reads one frame and appends its body at the offset it names, in chunks of len(buf). A
// non-empty slave log must end exactly at the frame's offset (an empty one accepts the first
// frame's offset, which the log then requires to be a segment start).
func (rc *receiver) next(r io.Reader) (Header, error) {
	var hb [HeaderSize]byte
	if err := rc.readFull(r, hb[:]); err != nil {
		return Header{}, err
	}
	h, err := DecodeHeader(hb[:])
	if err != nil {
		return h, err
	}
	if end := rc.log.CommitLogMaxOffset(); end != 0 && end != h.MasterPhyOffset {
		return h, fmt.Errorf("%w: the master sent offset %d, the slave's log ends at %d", ErrOffsetMismatch, h.MasterPhyOffset, end)
	}
	off, rest := h.MasterPhyOffset, int64(h.BodySize)
	for rest > 0 {
		chunk := rc.buf[:min(rest, int64(len(rc.buf)))]
		if err := rc.readFull(r, chunk); err != nil {
			return h, fmt.Errorf("ha: frame at %d cut short: %w", h.MasterPhyOffset, err)
		}
		if err := rc.log.AppendCommitLog(off, chunk); err != nil {
			return h, err
		}
		off += int64(len(chunk))
		rest -= int64(len(chunk))
	}
	return h, nil
}

func (rc *receiver) readFull(r io.Reader, b []byte) error {
	if rc.deadline != nil {
		if err := rc.deadline(); err != nil {
			return err
		}
	}
	_, err := io.ReadFull(r, b)
	return err
}
