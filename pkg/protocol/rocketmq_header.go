package protocol

import (
	"encoding/binary"
	"fmt"
	"math"
)

// rocketMQFixedLen is the fixed part of a ROCKETMQ header: code 2, language 1,
// version 2, opaque 4, flag 4, remark length 4, ext length 4.
const rocketMQFixedLen = 21

// appendRocketMQHeader appends cmd's header in the ROCKETMQ binary form.
// Ext fields are written sorted by key.
func appendRocketMQHeader(dst []byte, cmd *Command) ([]byte, error) {
	dst = binary.BigEndian.AppendUint16(dst, uint16(cmd.Code))
	dst = append(dst, LanguageCode(cmd.Language))
	dst = binary.BigEndian.AppendUint16(dst, uint16(cmd.Version))
	dst = binary.BigEndian.AppendUint32(dst, uint32(cmd.Opaque))
	dst = binary.BigEndian.AppendUint32(dst, uint32(cmd.Flag))
	if len(cmd.Remark) > math.MaxInt32 {
		return dst, fmt.Errorf("%w: remark of %d bytes", ErrNotEncodable, len(cmd.Remark))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(cmd.Remark)))
	dst = append(dst, cmd.Remark...)
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var stack [maxStackFields]kv
	for _, f := range sortedFields(stack[:0], cmd.ExtFields) {
		k, v := f.k, f.v
		if len(k) > math.MaxInt16 {
			return dst, fmt.Errorf("%w: ext key of %d bytes", ErrNotEncodable, len(k))
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(k)))
		dst = append(dst, k...)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	extLen := len(dst) - lenAt - 4
	if extLen > math.MaxInt32 {
		return dst, fmt.Errorf("%w: ext fields of %d bytes", ErrNotEncodable, extLen)
	}
	binary.BigEndian.PutUint32(dst[lenAt:], uint32(extLen))
	return dst, nil
}

// rmqReader reads a ROCKETMQ header in place.
type rmqReader struct {
	s   []byte
	pos int
}

func (r *rmqReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: rocketmq header at offset %d: %s", ErrMalformed, r.pos, fmt.Sprintf(format, args...))
}

func (r *rmqReader) u8() uint8 {
	v := r.s[r.pos]
	r.pos++
	return v
}

func (r *rmqReader) u16() uint16 {
	v := binary.BigEndian.Uint16(r.s[r.pos:])
	r.pos += 2
	return v
}

func (r *rmqReader) u32() uint32 {
	v := binary.BigEndian.Uint32(r.s[r.pos:])
	r.pos += 4
	return v
}

// bytes reads n bytes, n checked against the end of the header.
func (r *rmqReader) bytes(n int64, what string) ([]byte, error) {
	if n < 0 || n > int64(len(r.s)-r.pos) {
		return nil, r.errorf("%s length %d runs past the header", what, n)
	}
	v := r.s[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return v, nil
}

// decodeRocketMQHeader fills cmd from a ROCKETMQ header. Lengths that run
// past the header (or, inside the ext fields, past their length) are errors.
func decodeRocketMQHeader(header []byte, cmd *Command) error {
	d := getDecoder()
	defer putDecoder(d)
	return d.h.decodeRocketMQ(header, cmd)
}

// decodeRocketMQ decodes a ROCKETMQ header with d's arena: strings are
// copied there, well-known keys are constants (see headerDecoder).
func (d *headerDecoder) decodeRocketMQ(header []byte, cmd *Command) error {
	if len(header) < rocketMQFixedLen {
		return fmt.Errorf("%w: rocketmq header of %d bytes, need %d", ErrMalformed, len(header), rocketMQFixedLen)
	}
	d.reset(nil)
	r := rmqReader{s: header}
	cmd.Code = int32(int16(r.u16())) // a Java short widened to int
	d.language = text{lit: LanguageName(r.u8())}
	cmd.Version = int16(r.u16())
	cmd.Opaque = int32(r.u32())
	cmd.Flag = int32(r.u32())
	remark, err := r.bytes(int64(int32(r.u32())), "remark")
	if err != nil {
		return err
	}
	d.remark = d.toArena(remark)
	if len(r.s)-r.pos < 4 {
		return r.errorf("missing ext fields length")
	}
	extLen := int64(int32(r.u32()))
	if extLen < 0 || extLen > int64(len(r.s)-r.pos) {
		return r.errorf("ext fields length %d runs past the header", extLen)
	}
	// Bytes after the ext fields are ignored, as Java does.
	end := r.pos + int(extLen)
	r.s = r.s[:end]
	d.extSet = true
	for r.pos < end {
		if end-r.pos < 2 {
			return r.errorf("truncated ext key length")
		}
		k, err := r.bytes(int64(int16(r.u16())), "ext key")
		if err != nil {
			return err
		}
		if end-r.pos < 4 {
			return r.errorf("truncated ext value length")
		}
		v, err := r.bytes(int64(int32(r.u32())), "ext value")
		if err != nil {
			return err
		}
		d.addExt(k, d.toArena(v))
	}
	d.finish(cmd)
	return nil
}
