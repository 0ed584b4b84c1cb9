package cluster

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Record is one stored message as a PULL_MESSAGE body carries it (protocol.md §4.1).
type Record struct {
	TotalSize      int32
	QueueID        int32
	Flag           int32
	QueueOffset    int64
	PhysicalOffset int64
	SysFlag        int32
	BornTimestamp  int64
	StoreTimestamp int64
	ReconsumeTimes int32
	Body           []byte
	Topic          string
	Properties     map[string]string
}

const (
	sysFlagBornHostV6  = 0x10
	sysFlagStoreHostV6 = 0x20
)

// DecodeRecords splits a pull body into records, checking that each record's fields add up to its
// totalSize.
func DecodeRecords(b []byte) ([]Record, error) {
	var out []Record
	for pos := 0; pos < len(b); {
		r, err := decodeRecord(b[pos:])
		if err != nil {
			return nil, fmt.Errorf("record %d at byte %d: %w", len(out), pos, err)
		}
		out = append(out, r)
		pos += int(r.TotalSize)
	}
	return out, nil
}

func decodeRecord(b []byte) (Record, error) {
	var r Record
	d := decoder{b: b}
	r.TotalSize = d.i32()
	if r.TotalSize < 4 || int(r.TotalSize) > len(b) {
		return r, fmt.Errorf("totalSize %d with %d bytes left", r.TotalSize, len(b))
	}
	d.b = b[:r.TotalSize]
	d.skip(4 + 4) // magic, body CRC
	r.QueueID = d.i32()
	r.Flag = d.i32()
	r.QueueOffset = d.i64()
	r.PhysicalOffset = d.i64()
	r.SysFlag = d.i32()
	r.BornTimestamp = d.i64()
	d.skip(hostLen(r.SysFlag & sysFlagBornHostV6))
	r.StoreTimestamp = d.i64()
	d.skip(hostLen(r.SysFlag & sysFlagStoreHostV6))
	r.ReconsumeTimes = d.i32()
	d.skip(8) // prepared transaction offset
	r.Body = d.bytes(int(d.i32()))
	r.Topic = string(d.bytes(int(d.u8())))
	props := string(d.bytes(int(d.i16())))
	if d.err != nil {
		return r, d.err
	}
	if d.pos != int(r.TotalSize) {
		return r, fmt.Errorf("fields end at byte %d but totalSize is %d", d.pos, r.TotalSize)
	}
	r.Properties = ParseProperties(props)
	return r, nil
}

func hostLen(v6 int32) int {
	if v6 != 0 {
		return 16 + 4
	}
	return 4 + 4
}

// ParseProperties reads the key\x01value\x02 property string.
func ParseProperties(s string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(s, "\x02") {
		if k, v, ok := strings.Cut(kv, "\x01"); ok {
			m[k] = v
		}
	}
	return m
}

type decoder struct {
	b   []byte
	pos int
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || d.pos+n > len(d.b) {
		d.err = fmt.Errorf("field of %d bytes at byte %d overruns the %d-byte record", n, d.pos, len(d.b))
		return nil
	}
	s := d.b[d.pos : d.pos+n]
	d.pos += n
	return s
}

func (d *decoder) skip(n int) { d.take(n) }

func (d *decoder) bytes(n int) []byte {
	s := d.take(n)
	if s == nil {
		return nil
	}
	return append([]byte(nil), s...)
}

func (d *decoder) u8() uint8 {
	if s := d.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (d *decoder) i16() int16 {
	if s := d.take(2); s != nil {
		return int16(binary.BigEndian.Uint16(s))
	}
	return 0
}

func (d *decoder) i32() int32 {
	if s := d.take(4); s != nil {
		return int32(binary.BigEndian.Uint32(s))
	}
	return 0
}

func (d *decoder) i64() int64 {
	if s := d.take(8); s != nil {
		return int64(binary.BigEndian.Uint64(s))
	}
	return 0
}
