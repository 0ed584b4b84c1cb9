package protocol

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// MaxFrameSize is the default limit on a whole frame, its 4-byte length
// field included (Java's com.rocketmq.remoting.frameMaxLength, 16 MiB).
const MaxFrameSize = 16 << 20

// maxHeaderLen is the largest header the 24-bit length can describe.
const maxHeaderLen = 1<<24 - 1

// Frame errors. Decoding errors wrap one of these.
var (
	ErrFrameTooShort = errors.New("protocol: frame too short")
	ErrFrameTooLarge = errors.New("protocol: frame too large")
	ErrHeaderTooLong = errors.New("protocol: header length exceeds frame")
	ErrSerializeType = errors.New("protocol: unknown serialize type")
	ErrMalformed     = errors.New("protocol: malformed header")
	ErrNotEncodable  = errors.New("protocol: command cannot be encoded")
)

// ReadFrame reads one frame from r and returns its payload: every byte after
// the length field (type and header length word, header, body). A frame
// whose total size, length field included, exceeds maxFrame is rejected;
// maxFrame <= 0 means MaxFrameSize. io.EOF is returned unwrapped when r ends
// cleanly before a frame starts.
func ReadFrame(r *bufio.Reader, maxFrame int) ([]byte, error) {
	return ReadFrameInto(r, maxFrame, nil)
}

// ReadFrameInto reads one frame like ReadFrame into a buffer of its own
// choosing: alloc(n), once the frame has been checked, returns the slice of
// length n the payload is read into (a pooled buffer, say). A nil alloc
// allocates.
func ReadFrameInto(r *bufio.Reader, maxFrame int, alloc func(n int) []byte) ([]byte, error) {
	length, err := PeekFrameLength(r, maxFrame)
	if err != nil {
		return nil, err
	}
	_, _ = r.Discard(4)
	var frame []byte
	if alloc != nil {
		frame = alloc(length)
	} else {
		frame = make([]byte, length)
	}
	if _, err := io.ReadFull(r, frame); err != nil {
		return nil, noEOF(err)
	}
	return frame, nil
}

// PeekFrameLength checks the first 8 bytes of the next frame in r (the length field and the
// header length word) without consuming them, and returns the payload length: the bytes after the
// length field. The errors are ReadFrame's. A reader that grows its buffer as the payload arrives
// (rather than allocating the declared length up front) discards the 4-byte length field, then
// reads that many bytes.
func PeekFrameLength(r *bufio.Reader, maxFrame int) (int, error) {
	if maxFrame <= 0 {
		maxFrame = MaxFrameSize
	}
	lenBuf, err := r.Peek(4)
	if len(lenBuf) < 4 {
		if len(lenBuf) == 0 && err == io.EOF {
			return 0, io.EOF
		}
		return 0, noEOF(err)
	}
	length := int64(int32(binary.BigEndian.Uint32(lenBuf)))
	if length < 4 {
		return 0, fmt.Errorf("%w: length %d", ErrFrameTooShort, length)
	}
	if length+4 > int64(maxFrame) {
		return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrFrameTooLarge, length+4, maxFrame)
	}
	// Check the header length before anything is allocated for the body.
	head, err := r.Peek(8)
	if len(head) < 8 {
		return 0, noEOF(err)
	}
	if hl := int64(binary.BigEndian.Uint32(head[4:]) & maxHeaderLen); hl > length-4 {
		return 0, fmt.Errorf("%w: header %d, frame %d", ErrHeaderTooLong, hl, length)
	}
	return int(length), nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// DecodeCommand decodes a frame payload as returned by ReadFrame. The
// command's Body aliases frame; nothing else does: every string is a copy,
// so frame may be reused at once when the command has no body.
func DecodeCommand(frame []byte) (*Command, error) {
	d := getDecoder()
	defer putDecoder(d)
	return d.Decode(frame)
}

// Decoder decodes frames like DecodeCommand and keeps its scratch space
// from one frame to the next, so that a connection's reader allocates only
// what the command itself holds. The zero value is ready. A Decoder is not
// safe for concurrent use.
type Decoder struct {
	h headerDecoder
}

// maxRetainedScratch bounds the scratch space a Decoder keeps after a large
// header.
const maxRetainedScratch = 64 << 10

// Decode decodes one frame payload; see DecodeCommand.
func (d *Decoder) Decode(frame []byte) (*Command, error) {
	if len(frame) < 4 {
		return nil, fmt.Errorf("%w: %d bytes", ErrFrameTooShort, len(frame))
	}
	word := binary.BigEndian.Uint32(frame)
	st := SerializeType(word >> 24)
	hl := int(word & maxHeaderLen)
	if hl > len(frame)-4 {
		return nil, fmt.Errorf("%w: header %d, frame %d", ErrHeaderTooLong, hl, len(frame))
	}
	header := frame[4 : 4+hl]
	if st != JSON && st != RocketMQ {
		return nil, fmt.Errorf("%w: %d", ErrSerializeType, st)
	}
	dc := &decodedCommand{cmd: Command{SerializeType: st}}
	cmd := &dc.cmd
	d.h.room = dc.fields[:0]
	var err error
	if st == JSON {
		err = d.h.decode(header, cmd)
	} else {
		err = d.h.decodeRocketMQ(header, cmd)
	}
	d.h.room = nil
	if cap(d.h.arena) > maxRetainedScratch || cap(d.h.order) > maxRetainedScratch {
		d.h = headerDecoder{}
	}
	if err != nil {
		return nil, err
	}
	if body := frame[4+hl:]; len(body) > 0 {
		cmd.Body = body[:len(body):len(body)]
	}
	return cmd, nil
}

// decodedCommand is a decoded command with room for the ext fields of a usual header (a
// SEND_MESSAGE_V2 has 13), so that both take one allocation.
type decodedCommand struct {
	cmd    Command
	fields [16]extField
}

// decoders serve DecodeCommand and the header functions, which have no
// Decoder of their own.
var decoders = sync.Pool{New: func() any { return new(Decoder) }}

func getDecoder() *Decoder { return decoders.Get().(*Decoder) }

func putDecoder(d *Decoder) {
	if cap(d.h.arena) > maxRetainedScratch || cap(d.h.key) > maxRetainedScratch || cap(d.h.order) > maxRetainedScratch {
		return
	}
	decoders.Put(d)
}

// AppendFrameHeader appends to dst the length field, the type and header
// length word and the encoded header of cmd. The caller writes cmd.Body and
// then cmd.BodyParts right after it; the length field already counts them.
func AppendFrameHeader(dst []byte, cmd *Command) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
	st := headerEncoding(cmd)
	var err error
	switch st {
	case JSON:
		dst = appendJSONHeader(dst, cmd)
	case RocketMQ:
		dst, err = appendRocketMQHeader(dst, cmd)
	default:
		err = fmt.Errorf("%w: %d", ErrSerializeType, st)
	}
	if err != nil {
		return dst[:start], err
	}
	hl := len(dst) - start - 8
	if hl > maxHeaderLen {
		return dst[:start], fmt.Errorf("%w: header of %d bytes", ErrNotEncodable, hl)
	}
	total := int64(4 + hl + cmd.BodyLen())
	if total > math.MaxInt32 {
		return dst[:start], fmt.Errorf("%w: frame of %d bytes", ErrNotEncodable, total)
	}
	binary.BigEndian.PutUint32(dst[start:], uint32(total))
	binary.BigEndian.PutUint32(dst[start+4:], uint32(st)<<24|uint32(hl))
	return dst, nil
}

// headerEncoding is the encoding cmd's header is written in: its own, except that a code the
// ROCKETMQ form cannot carry (it has 16 bits for it, RocketMQ 5's POP codes need more) is written
// as JSON, which every peer decodes whatever it sent.
func headerEncoding(cmd *Command) SerializeType {
	if cmd.SerializeType == RocketMQ && int32(int16(cmd.Code)) != cmd.Code {
		return JSON
	}
	return cmd.SerializeType
}

// EncodeCommand returns the whole frame of cmd, length field included, with
// Body and BodyParts copied in.
func EncodeCommand(cmd *Command) ([]byte, error) {
	buf, err := AppendFrameHeader(make([]byte, 0, 256+cmd.BodyLen()), cmd)
	if err != nil {
		return nil, err
	}
	buf = append(buf, cmd.Body...)
	for _, p := range cmd.BodyParts {
		buf = append(buf, p...)
	}
	return buf, nil
}
