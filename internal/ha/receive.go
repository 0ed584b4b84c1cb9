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

// receiver reads master frames from a stream, checks the records they carry and appends them to a
// slave's log.
type receiver struct {
	log    SlaveLog
	buf    []byte // body chunks are read into it, then fed to the record stream
	stream *recordStream
	// deadline, when set, is called before every read (the housekeeping timeout).
	deadline func() error
}

// newReceiver returns a receiver continuing log's end, reading bodies in chunks of len(buf).
func newReceiver(log SlaveLog, buf []byte, maxRecord int) *receiver {
	return &receiver{log: log, buf: buf,
		stream: newRecordStream(log.CommitLogMaxOffset(), log.CommitLogSegmentSize(), maxRecord)}
}

// next reads one frame and feeds its body to the record stream. The frame must continue the
// stream exactly (the log's end plus a record still incomplete); an empty log accepts the first
// frame's offset when it is a segment start.
func (rc *receiver) next(r io.Reader) (Header, error) {
	var hb [HeaderSize]byte
	if err := rc.readFull(r, hb[:]); err != nil {
		return Header{}, err
	}
	h, err := DecodeHeader(hb[:])
	if err != nil {
		return h, err
	}
	if err := rc.checkOffset(h); err != nil {
		return h, err
	}
	for rest := int64(h.BodySize); rest > 0; {
		chunk := rc.buf[:min(rest, int64(len(rc.buf)))]
		if err := rc.readFull(r, chunk); err != nil {
			return h, fmt.Errorf("ha: frame at %d cut short: %w", h.MasterPhyOffset, err)
		}
		if err := rc.stream.feed(chunk, rc.log.AppendCommitLog); err != nil {
			return h, err
		}
		rest -= int64(len(chunk))
	}
	return h, nil
}

// checkOffset accepts a frame that continues the stream, or the first frame of an empty log.
func (rc *receiver) checkOffset(h Header) error {
	s := rc.stream
	if s.next() == h.MasterPhyOffset {
		return nil
	}
	if s.pos == 0 && len(s.pending) == 0 && rc.log.CommitLogMaxOffset() == 0 {
		if h.MasterPhyOffset%s.segSize != 0 {
			return fmt.Errorf("%w: the master starts an empty slave at %d, not a segment start", ErrOffsetMismatch, h.MasterPhyOffset)
		}
		s.pos = h.MasterPhyOffset
		return nil
	}
	return fmt.Errorf("%w: the master sent offset %d, the slave's log continues at %d", ErrOffsetMismatch, h.MasterPhyOffset, s.next())
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
