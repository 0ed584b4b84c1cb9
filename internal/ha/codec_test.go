package ha

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
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

func TestReceiverAppendsAtTheFrameOffset(t *testing.T) {
	log := &memLog{segment: 1 << 20}
	body1 := bytes.Repeat([]byte{1}, 100)
	body2 := bytes.Repeat([]byte{2}, 70000) // more than one read chunk
	var stream []byte
	stream = append(stream, frame(1<<20, body1)...)
	stream = append(stream, frame(1<<20+100, nil)...) // heartbeat
	stream = append(stream, frame(1<<20+100, body2)...)
	rc := receiver{log: log, buf: make([]byte, 4096)}
	r := bytes.NewReader(stream)
	for range 3 {
		_, err := rc.next(r)
		require.NoError(t, err)
	}
	_, err := rc.next(r)
	require.ErrorIs(t, err, io.EOF)
	require.EqualValues(t, 1<<20, log.start)
	require.Equal(t, append(append([]byte{}, body1...), body2...), log.data)

	// A frame for another offset is a mismatch: nothing is appended.
	_, err = rc.next(bytes.NewReader(frame(1<<20+50, body1)))
	require.ErrorIs(t, err, ErrOffsetMismatch)
	require.Len(t, log.data, len(body1)+len(body2))

	// A body cut short is an error; what arrived is kept (it continues the log byte for byte).
	cut := frame(log.CommitLogMaxOffset(), bytes.Repeat([]byte{3}, 10000))[:HeaderSize+5000]
	_, err = rc.next(bytes.NewReader(cut))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Len(t, log.data, len(body1)+len(body2)+4096, "whole chunks are appended")

	// A store failure ends the frame.
	log.failAt = log.CommitLogMaxOffset() + 10
	_, err = rc.next(bytes.NewReader(frame(log.CommitLogMaxOffset(), make([]byte, 20))))
	require.ErrorIs(t, err, errFull)
}

func TestReceiverRefusesBrokenHeaders(t *testing.T) {
	rc := receiver{log: &memLog{}, buf: make([]byte, 64)}
	bad := binary.BigEndian.AppendUint64(nil, 0)
	bad = binary.BigEndian.AppendUint32(bad, 0xFFFFFFFF) // bodySize -1
	_, err := rc.next(bytes.NewReader(bad))
	require.ErrorIs(t, err, errNegativeBody)
}
