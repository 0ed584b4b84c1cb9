package ha

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func TestHeaderLayout(t *testing.T) {
	h := Header{MasterPhyOffset: 0x0102030405060708, BodySize: 0x0A0B0C0D}
	b := AppendHeader(nil, h)
	require.Equal(t, []byte{1, 2, 3, 4, 5, 6, 7, 8, 0x0A, 0x0B, 0x0C, 0x0D}, b, "int64 offset then int32 size, big-endian")
	var fixed [HeaderSize]byte
	PutHeader(fixed[:], h)
	require.Equal(t, b, fixed[:])
	got, err := DecodeHeader(b)
	require.NoError(t, err)
	require.Equal(t, h, got)
	require.False(t, got.Heartbeat())
	require.Equal(t, h.MasterPhyOffset+int64(h.BodySize), got.End())

	hb, err := DecodeHeader(AppendHeader(nil, Header{MasterPhyOffset: 1 << 30}))
	require.NoError(t, err)
	require.True(t, hb.Heartbeat())
}

func TestDecodeHeaderRefusesBrokenFrames(t *testing.T) {
	for name, b := range map[string][]byte{
		"short":           make([]byte, HeaderSize-1),
		"negative size":   AppendHeader(nil, Header{MasterPhyOffset: 0, BodySize: -1}),
		"negative offset": AppendHeader(nil, Header{MasterPhyOffset: -5, BodySize: 1}),
		"overflow":        AppendHeader(nil, Header{MasterPhyOffset: math.MaxInt64 - 3, BodySize: 10}),
	} {
		_, err := DecodeHeader(b)
		require.Error(t, err, name)
	}
}

func TestReportLayout(t *testing.T) {
	require.Equal(t, []byte{0, 0, 0, 0, 0x40, 0, 0, 0x10}, AppendReport(nil, 1<<30+16))
	var b [ReportSize]byte
	PutReport(b[:], 1<<30+16)
	require.Equal(t, AppendReport(nil, 1<<30+16), b[:])
}

func TestReportDecoderKeepsTheLastWholeReport(t *testing.T) {
	stream := append(append(AppendReport(nil, 100), AppendReport(nil, 200)...), AppendReport(nil, 300)...)
	// All at once: the last one.
	var d ReportDecoder
	off, ok, err := d.Feed(stream)
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 300, off)

	// Byte by byte: each completes at its last byte.
	d = ReportDecoder{}
	var seen []int64
	for _, c := range stream {
		off, ok, err := d.Feed([]byte{c})
		require.NoError(t, err)
		if ok {
			seen = append(seen, off)
		}
	}
	require.Equal(t, []int64{100, 200, 300}, seen)

	// Split inside a report: the partial tail waits for the rest.
	d = ReportDecoder{}
	off, ok, err = d.Feed(stream[:13])
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 100, off)
	_, ok, err = d.Feed(stream[13:15])
	require.NoError(t, err)
	require.False(t, ok)
	off, ok, err = d.Feed(stream[15:])
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 300, off)

	_, _, err = (&ReportDecoder{}).Feed(AppendReport(nil, -1))
	require.Error(t, err)
}

// memLog is an in-memory SlaveLog with the store's rules: appends at the end, or at a segment
// start when empty.
type memLog struct {
	segment int64
	start   int64
	data    []byte
	failAt  int64 // AppendCommitLog fails once the log would pass this (0: never)
}

var errFull = errors.New("memlog: full")

func (m *memLog) CommitLogMaxOffset() int64 {
	if len(m.data) == 0 && m.start == 0 {
		return 0
	}
	return m.start + int64(len(m.data))
}

func (m *memLog) CommitLogSegmentSize() int64 { return m.segment }

func (m *memLog) AppendCommitLog(off int64, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	if len(m.data) == 0 && m.start == 0 {
		if m.segment > 0 && off%m.segment != 0 {
			return errors.New("memlog: not a segment start")
		}
		m.start = off
	} else if off != m.start+int64(len(m.data)) {
		return errors.New("memlog: not at the end")
	}
	if m.failAt > 0 && off+int64(len(data)) > m.failAt {
		return errFull
	}
	m.data = append(m.data, data...)
	return nil
}

func frame(off int64, body []byte) []byte {
	return append(AppendHeader(nil, Header{MasterPhyOffset: off, BodySize: int32(len(body))}), body...)
}

// record encodes a valid CommitLog record stored at off.
func record(t testing.TB, off int64, body []byte) []byte {
	t.Helper()
	m := message.Message{Topic: "T", PhysicalOffset: off, Body: body, BodyCRC: message.BodyCRC(body),
		Properties: "TAGS\x01a\x02"}
	b := make([]byte, m.EncodedSize())
	_, err := message.Encode(b, &m)
	require.NoError(t, err)
	return b
}

// records encodes n records of size bodies from off on and returns them concatenated.
func records(t testing.TB, off int64, n, size int) []byte {
	var out []byte
	for i := range n {
		out = append(out, record(t, off+int64(len(out)), bytes.Repeat([]byte{byte('a' + i%26)}, size))...)
	}
	return out
}

// blank is a BLANK marker of size bytes (the rest of a segment).
func blank(size int) []byte {
	b := make([]byte, size)
	binary.BigEndian.PutUint32(b, uint32(size))
	binary.BigEndian.PutUint32(b[4:], message.MagicBlank)
	return b
}

// frames cuts data at off into frames of at most n bytes.
func frames(off int64, data []byte, n int) []byte {
	var out []byte
	for len(data) > 0 {
		k := min(n, len(data))
		out = append(out, frame(off, data[:k])...)
		off += int64(k)
		data = data[k:]
	}
	return out
}

func drain(rc *receiver, r io.Reader) error {
	for {
		if _, err := rc.next(r); err != nil {
			return err
		}
	}
}

// Records split over frames and read chunks at every boundary reach the log whole, in order,
// across a BLANK marker into the next segment; a heartbeat in between changes nothing.
func TestReceiverAppendsWholeRecords(t *testing.T) {
	const seg = 1 << 16
	first := records(t, seg, 40, 300)
	filler := blank(seg - len(first))
	second := records(t, 2*seg, 3, 70000%seg/10)
	all := append(append(append([]byte{}, first...), filler...), second...)
	for _, cut := range []int{1, 7, 8, 9, 91, 300, 4096, 40000} {
		log := &memLog{segment: seg}
		stream := frames(seg, all[:len(first)], cut)
		stream = append(stream, frame(seg+int64(len(first)), nil)...) // heartbeat
		stream = append(stream, frames(seg+int64(len(first)), all[len(first):], cut)...)
		rc := newReceiver(log, make([]byte, 64), 1<<20)
		require.ErrorIs(t, drain(rc, bytes.NewReader(stream)), io.EOF)
		require.EqualValues(t, seg, log.start, "cut %d", cut)
		require.Equal(t, all, log.data, "cut %d", cut)
	}
}

// A stream that ends inside a record leaves the log at the last whole record; a frame for another
// offset than the stream's next byte is a mismatch; a store failure ends the frame.
func TestReceiverKeepsOnlyWholeRecords(t *testing.T) {
	const seg = 1 << 16
	data := records(t, 0, 5, 1000)
	one := len(data) / 5
	log := &memLog{segment: seg}
	rc := newReceiver(log, make([]byte, 4096), 1<<20)
	require.ErrorIs(t, drain(rc, bytes.NewReader(frame(0, data[:3*one+10]))), io.EOF)
	require.Equal(t, data[:3*one], log.data)

	_, err := rc.next(bytes.NewReader(frame(int64(3*one), data[3*one+10:])))
	require.ErrorIs(t, err, ErrOffsetMismatch, "the master must continue after the held bytes")
	_, err = newReceiver(log, make([]byte, 64), 1<<20).next(bytes.NewReader(frame(int64(len(data)), nil)))
	require.ErrorIs(t, err, ErrOffsetMismatch)

	log.failAt = log.CommitLogMaxOffset() + 10
	rc = newReceiver(log, make([]byte, 4096), 1<<20)
	_, err = rc.next(bytes.NewReader(frame(int64(3*one), data[3*one:])))
	require.ErrorIs(t, err, errFull)
	require.Equal(t, data[:3*one], log.data)
}

// Every kind of damage is refused before a byte of the bad record reaches the log, and named.
func TestReceiverRefusesBadRecords(t *testing.T) {
	const seg = 1 << 16
	good := records(t, 0, 2, 100)
	at := int64(len(good))
	next := record(t, at, []byte("payload"))
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(next)) }
	for _, tc := range []struct {
		name, reason string
		rec          []byte
	}{
		{"body flipped", "body CRC", edit(func(b []byte) []byte { b[bytes.Index(b, []byte("payload"))] ^= 1; return b })},
		{"magic", "magic code", edit(func(b []byte) []byte { b[4] = 0; return b })},
		{"physical offset", "physical offset", record(t, at+8, []byte("payload"))},
		{"size below the minimum", "totalSize", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b, 20); return b })},
		{"size past the limit", "totalSize", edit(func(b []byte) []byte { binary.BigEndian.PutUint32(b, 1<<21); return b })},
		{"parts do not add up", "message:", edit(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b, uint32(len(b)+4))
			return append(b, 0, 0, 0, 0)
		})},
		{"crosses the segment end", "crosses", record(t, at, make([]byte, seg))},
		{"short BLANK", "BLANK", blank(100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &memLog{segment: seg}
			rc := newReceiver(log, make([]byte, 64), 1<<17)
			err := drain(rc, bytes.NewReader(frames(0, append(bytes.Clone(good), tc.rec...), 50)))
			var bad *BadRecordError
			require.ErrorAs(t, err, &bad)
			require.Equal(t, at, bad.Offset)
			require.Contains(t, bad.Reason, tc.reason)
			require.Equal(t, good, log.data, "nothing of the bad record is appended")
		})
	}
}

func TestReceiverRefusesBrokenHeaders(t *testing.T) {
	rc := newReceiver(&memLog{segment: 1 << 16}, make([]byte, 64), 1<<20)
	bad := binary.BigEndian.AppendUint64(nil, 0)
	bad = binary.BigEndian.AppendUint32(bad, 0xFFFFFFFF) // bodySize -1
	_, err := rc.next(bytes.NewReader(bad))
	require.ErrorIs(t, err, errNegativeBody)
	_, err = rc.next(bytes.NewReader(frame(100, nil)))
	require.ErrorIs(t, err, ErrOffsetMismatch, "an empty slave starts at a segment start")
}
