package protocol

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	for _, st := range []SerializeType{JSON, RocketMQ} {
		cmd := &Command{
			Code: int32(SendMessageV2), Language: "GO", Version: 317, Opaque: 42, Flag: FlagOneway,
			Remark: "r", ExtFields: NewExt(map[string]string{"a": "1", "b": "x\x01y"}), SerializeType: st,
			Body: []byte("head-"), BodyParts: [][]byte{[]byte("part1-"), nil, []byte("part2")},
		}
		wire, err := EncodeCommand(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(binary.BigEndian.Uint32(wire)); got != len(wire)-4 {
			t.Fatalf("%v: length field %d, frame %d", st, got, len(wire)-4)
		}
		frame, err := ReadFrame(bufio.NewReader(bytes.NewReader(wire)), 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeCommand(frame)
		if err != nil {
			t.Fatal(err)
		}
		if !sameCommand(got, cmd) || string(got.Body) != "head-part1-part2" {
			t.Fatalf("%v: got %+v", st, got)
		}
		if !got.IsOneway() || got.IsResponse() {
			t.Fatalf("flags %d", got.Flag)
		}
	}
}

func TestAppendFrameHeaderCountsBodyParts(t *testing.T) {
	cmd := &Command{Body: make([]byte, 10), BodyParts: [][]byte{make([]byte, 100), make([]byte, 1000)}}
	prefix := []byte("keep")
	out, err := AppendFrameHeader(prefix, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if string(out[:4]) != "keep" {
		t.Fatal("dst prefix overwritten")
	}
	hdr := out[4:]
	hl := int(binary.BigEndian.Uint32(hdr[4:]) & 0xFFFFFF)
	if hl != len(hdr)-8 {
		t.Fatalf("header length %d, header %d", hl, len(hdr)-8)
	}
	if total := int(binary.BigEndian.Uint32(hdr)); total != 4+hl+1110 {
		t.Fatalf("length %d, want %d", total, 4+hl+1110)
	}
}

func TestReadFrameErrors(t *testing.T) {
	frame := func(length uint32, rest ...byte) []byte {
		return append(binary.BigEndian.AppendUint32(nil, length), rest...)
	}
	tests := []struct {
		name string
		in   []byte
		max  int
		want error
	}{
		{"empty", nil, 0, io.EOF},
		{"partial length", []byte{0, 0}, 0, io.ErrUnexpectedEOF},
		{"length < 4", frame(3, 0, 0, 0), 0, ErrFrameTooShort},
		{"negative length", frame(0x80000000), 0, ErrFrameTooShort},
		{"too large default", frame(MaxFrameSize - 3), 0, ErrFrameTooLarge},
		{"too large custom", frame(100, make([]byte, 100)...), 64, ErrFrameTooLarge},
		{"header past frame", frame(8, 0, 0, 0, 5, 0, 0, 0, 0), 0, ErrHeaderTooLong},
		{"truncated word", frame(8, 0, 0), 0, io.ErrUnexpectedEOF},
		{"truncated body", frame(8, 0, 0, 0, 2, 'a'), 0, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		_, err := ReadFrame(bufio.NewReader(bytes.NewReader(tt.in)), tt.max)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
	// Exactly at the limit is fine.
	in := frame(MaxFrameSize-4, make([]byte, MaxFrameSize-4)...)
	if _, err := ReadFrame(bufio.NewReader(bytes.NewReader(in)), 0); err != nil {
		t.Errorf("frame at the limit: %v", err)
	}
}

func TestDecodeCommandErrors(t *testing.T) {
	tests := []struct {
		name  string
		frame []byte
		want  error
	}{
		{"short", []byte{0, 0}, ErrFrameTooShort},
		{"header past frame", []byte{0, 0, 0, 9, '{', '}'}, ErrHeaderTooLong},
		{"serialize type", []byte{2, 0, 0, 2, '{', '}'}, ErrSerializeType},
		{"bad json", []byte{0, 0, 0, 2, '{', '{'}, ErrMalformed},
		{"bad rocketmq", []byte{1, 0, 0, 2, 0, 0}, ErrMalformed},
	}
	for _, tt := range tests {
		if _, err := DecodeCommand(tt.frame); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestEncodeUnknownSerializeType(t *testing.T) {
	if _, err := EncodeCommand(&Command{SerializeType: 7}); !errors.Is(err, ErrSerializeType) {
		t.Fatalf("err = %v", err)
	}
}

func TestNewRequestAndResponse(t *testing.T) {
	req := NewRequest(HeartBeat, map[string]string{"a": "b"}, []byte("x"))
	if req.Code != 34 || req.Language != "JAVA" || req.Version != 409 || req.SerializeType != JSON || req.IsResponse() {
		t.Fatalf("request %+v", req)
	}
	req.Opaque, req.SerializeType = 99, RocketMQ
	resp := NewResponse(req, SystemBusy, "busy")
	if resp.Code != 2 || resp.Opaque != 99 || resp.SerializeType != RocketMQ || !resp.IsResponse() ||
		resp.Remark != "busy" || resp.Version != 409 || resp.Language != "JAVA" {
		t.Fatalf("response %+v", resp)
	}
	resp.SetExt("k", "v")
	if resp.ExtFields.Get("k") != "v" {
		t.Fatal("SetExt")
	}
}

func TestLanguageCodes(t *testing.T) {
	for code, name := range map[uint8]string{0: "JAVA", 9: "GO", 13: "NODE_JS", 14: "14", 255: "255"} {
		if got := LanguageName(code); got != name {
			t.Errorf("LanguageName(%d) = %q", code, got)
		}
		if got := LanguageCode(name); got != code {
			t.Errorf("LanguageCode(%q) = %d", name, got)
		}
	}
	for name, code := range map[string]uint8{"": 0, "KOTLIN": 7, "256": 7, "09": 7} {
		if got := LanguageCode(name); got != code {
			t.Errorf("LanguageCode(%q) = %d, want %d", name, got, code)
		}
	}
}

func TestCodeNames(t *testing.T) {
	for code, name := range map[RequestCode]string{
		SendMessage: "SEND_MESSAGE", SendMessageV2: "SEND_MESSAGE_V2", GetRouteinfoByTopic: "GET_ROUTEINFO_BY_TOPIC",
		GetAllProducerInfo: "GET_ALL_PRODUCER_INFO", 9999: "RequestCode(9999)",
	} {
		if got := code.String(); got != name {
			t.Errorf("%d.String() = %q, want %q", code, got, name)
		}
	}
	for code, name := range map[ResponseCode]string{
		Success: "SUCCESS", RequestCodeNotSupported: "REQUEST_CODE_NOT_SUPPORTED", PullOffsetMoved: "PULL_OFFSET_MOVED",
		TransactionStateUnknow: "TRANSACTION_STATE_UNKNOW", IllegalOperation: "ILLEGAL_OPERATION", 999: "ResponseCode(999)",
	} {
		if got := code.String(); got != name {
			t.Errorf("%d.String() = %q, want %q", code, got, name)
		}
	}
	if len(requestCodeNames) < 90 || len(responseCodeNames) < 38 {
		t.Fatalf("name tables: %d request, %d response", len(requestCodeNames), len(responseCodeNames))
	}
}

// A code past 16 bits (RocketMQ 5's POP_MESSAGE is 200050) cannot travel in a ROCKETMQ header:
// such a command is written as JSON, and the code arrives whole; a negative 16-bit code survives
// the binary form as Java's short widened to int.
func TestWideCodesChooseTheirEncoding(t *testing.T) {
	for _, tc := range []struct {
		code   int32
		wantST SerializeType
	}{{200050, JSON}, {-1, RocketMQ}, {32767, RocketMQ}, {32768, JSON}} {
		cmd := &Command{Code: tc.code, Language: "JAVA", SerializeType: RocketMQ}
		wire, err := EncodeCommand(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if st := SerializeType(wire[4]); st != tc.wantST {
			t.Fatalf("code %d written as %v, want %v", tc.code, st, tc.wantST)
		}
		got, err := DecodeCommand(wire[4:])
		if err != nil {
			t.Fatal(err)
		}
		if got.Code != tc.code {
			t.Fatalf("code %d decoded as %d", tc.code, got.Code)
		}
	}
}
