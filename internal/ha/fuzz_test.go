package ha

import (
	"bytes"
	"encoding/binary"
	"testing"
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

// FuzzReceiver applies an arbitrary byte stream as master frames to an in-memory log and compares
// the log with a reference reading of the stream: frames are applied while their headers are
// sane and their offsets continue the log; a body's whole read chunks are appended even when the
// stream ends inside it. The receiver must never panic.
func FuzzReceiver(f *testing.F) {
	body := bytes.Repeat([]byte("record"), 50)
	f.Add(append(frame(0, body), frame(int64(len(body)), body)...), int64(0))
	f.Add(append(frame(1<<16, body), frame(1<<16+int64(len(body)), nil)...), int64(1<<16))
	f.Add(frame(5, body), int64(0))
	f.Add(AppendHeader(nil, Header{MasterPhyOffset: 0, BodySize: 1 << 30}), int64(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 7}, int64(0))
	f.Fuzz(func(t *testing.T, stream []byte, segment int64) {
		if segment <= 0 || segment > 1<<40 {
			segment = 1 << 16
		}
		const chunk = 64
		log := &memLog{segment: segment}
		rc := receiver{log: log, buf: make([]byte, chunk)}
		r := bytes.NewReader(stream)
		for {
			if _, err := rc.next(r); err != nil {
				break
			}
		}
		wantStart, want := reference(stream, segment, chunk)
		if !bytes.Equal(want, log.data) {
			t.Fatalf("log holds %d bytes, the reference %d", len(log.data), len(want))
		}
		if len(want) > 0 && log.start != wantStart {
			t.Fatalf("log starts at %d, the reference at %d", log.start, wantStart)
		}
	})
}

// reference reads frames as the protocol says, independently of the receiver.
func reference(stream []byte, segment int64, chunk int) (int64, []byte) {
	var data []byte
	start, end := int64(0), int64(0) // end 0: empty log
	for len(stream) >= HeaderSize {
		off := int64(binary.BigEndian.Uint64(stream))
		size := int64(int32(binary.BigEndian.Uint32(stream[8:])))
		stream = stream[HeaderSize:]
		if off < 0 || size < 0 || off+size < off || (end != 0 && off != end) {
			break
		}
		if end == 0 && size > 0 && off%segment != 0 {
			break
		}
		avail := min(size, int64(len(stream)))
		whole := avail
		if avail < size {
			whole = avail - avail%int64(chunk)
		}
		if whole > 0 {
			if end == 0 {
				start = off
			}
			data = append(data, stream[:whole]...)
			end = off + whole
		}
		if avail < size {
			break
		}
		stream = stream[size:]
	}
	return start, data
}
