package ha

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// FuzzReportDecoder feeds a stream of reports in chunks cut where cuts says; after each chunk the
// decoder must give exactly the last whole 8-byte value the chunk completed (an error for a
// negative one), and nothing when the chunk completed none.
func FuzzReportDecoder(f *testing.F) {
	f.Add(AppendReport(AppendReport(nil, 1<<30), 1<<30+4096), []byte{3, 9})
	f.Add(AppendReport(nil, 0), []byte{})
	f.Add([]byte{0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0}, []byte{1, 1, 1})
	f.Fuzz(func(t *testing.T, stream, cuts []byte) {
		var d ReportDecoder
		pos := 0
		feed := func(n int) {
			before := pos / ReportSize
			off, ok, err := d.Feed(stream[pos : pos+n])
			pos += n
			whole := pos / ReportSize
			if whole == before {
				if ok || err != nil {
					t.Fatalf("no report completed, got %d %v %v", off, ok, err)
				}
				return
			}
			want := int64(binary.BigEndian.Uint64(stream[(whole-1)*ReportSize:]))
			switch {
			case want < 0 && (ok || err == nil):
				t.Fatalf("negative report %d accepted", want)
			case want >= 0 && (!ok || err != nil || off != want):
				t.Fatalf("got %d %v %v, want %d", off, ok, err, want)
			}
		}
		for _, c := range cuts {
			feed(min(int(c)%17, len(stream)-pos))
		}
		feed(len(stream) - pos)
	})
}

// FuzzReceiver applies an arbitrary byte stream, cut into frames of an arbitrary size, to an
// in-memory log. Whatever the stream holds, the receiver must not panic, and the log must hold
// nothing but whole, valid records (checked by an independent walk) that are a prefix of the
// stream's payload; a stream of valid records must arrive whole.
func FuzzReceiver(f *testing.F) {
	const seg = 1 << 16
	valid := records(f, seg, 30, 200)
	f.Add(valid, uint16(7), false)
	f.Add(append(bytes.Clone(valid), blank(seg-len(valid))...), uint16(100), false)
	f.Add(valid[:1000], uint16(4096), false)
	f.Add(append(frame(seg, valid[:50]), frame(seg+60, valid[50:100])...), uint16(0), true)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 7}, uint16(0), true)
	f.Fuzz(func(t *testing.T, payload []byte, cut uint16, raw bool) {
		stream := payload
		if !raw { // payload is CommitLog bytes from the segment start, framed here
			stream = frames(seg, payload, int(cut%8192)+1)
		}
		log := &memLog{segment: seg}
		rc := newReceiver(log, make([]byte, 64), 1<<17)
		_ = drain(rc, bytes.NewReader(stream))
		if err := walkRecords(log.start, seg, log.data); err != nil {
			t.Fatalf("the log holds damage: %v", err)
		}
		if raw {
			return
		}
		if !bytes.HasPrefix(payload, log.data) {
			t.Fatalf("the log (%d bytes) is not a prefix of the payload", len(log.data))
		}
		if walkRecords(seg, seg, payload) == nil && !bytes.Equal(payload, log.data) {
			t.Fatalf("a valid payload of %d bytes arrived as %d", len(payload), len(log.data))
		}
	})
}

// walkRecords checks that data, CommitLog bytes from off on, is whole records and BLANK markers
// filling their segments, written independently of the receiver.
func walkRecords(off, seg int64, data []byte) error {
	for len(data) > 0 {
		size, magic, ok := message.Peek(data)
		left := seg - off%seg
		switch {
		case !ok:
			return fmt.Errorf("%d: %d bytes, no header", off, len(data))
		case magic == message.MagicBlank:
			if int64(size) != left {
				return fmt.Errorf("%d: BLANK of %d with %d left", off, size, left)
			}
			if int64(len(data)) < left {
				return nil // the filler is still arriving
			}
		default:
			v, err := message.Parse(data)
			if err != nil || !v.CheckCRC() || v.PhysicalOffset() != off || int64(size)+message.BlankMinLen > left {
				return fmt.Errorf("%d: bad record (%v)", off, err)
			}
		}
		off += int64(size)
		data = data[size:]
	}
	return nil
}
