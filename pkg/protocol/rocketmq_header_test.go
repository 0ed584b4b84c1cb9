package protocol

import (
	"encoding/binary"
	"errors"
	"testing"
)

// rmqHeader builds a ROCKETMQ header from raw parts, lengths given
// explicitly so that tests can lie about them.
type rmqHeader struct {
	remarkLen int32
	remark    string
	extLen    int32
	ext       []byte
}

func (h rmqHeader) bytes() []byte {
	b := []byte{0, 10, 9, 1, 61, 0, 0, 0, 7, 0, 0, 0, 0}
	b = binary.BigEndian.AppendUint32(b, uint32(h.remarkLen))
	b = append(b, h.remark...)
	b = binary.BigEndian.AppendUint32(b, uint32(h.extLen))
	return append(b, h.ext...)
}

func extEntry(keyLen int16, key string, valLen int32, val string) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(keyLen))
	b = append(b, key...)
	b = binary.BigEndian.AppendUint32(b, uint32(valLen))
	return append(b, val...)
}

func TestRocketMQHeaderDecode(t *testing.T) {
	ext := append(extEntry(5, "topic", 1, "T"), extEntry(0, "", 0, "")...)
	h := rmqHeader{remarkLen: 2, remark: "hi", extLen: int32(len(ext)), ext: ext}.bytes()
	cmd := &Command{}
	if err := decodeRocketMQHeader(h, cmd); err != nil {
		t.Fatal(err)
	}
	want := &Command{Code: 10, Language: "GO", Version: 317, Opaque: 7, Remark: "hi",
		ExtFields: NewExt(map[string]string{"topic": "T", "": ""})}
	if !sameCommand(cmd, want) {
		t.Fatalf("got %+v want %+v", cmd, want)
	}

	// Zero-length remark and ext decode as empty; trailing bytes are ignored (as Java).
	h = append(rmqHeader{}.bytes(), 1, 2, 3)
	cmd = &Command{}
	if err := decodeRocketMQHeader(h, cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Remark != "" || cmd.ExtFields.fields != nil {
		t.Fatalf("got %+v", cmd)
	}

	// An unknown language code survives a round trip as its number.
	h = rmqHeader{}.bytes()
	h[2] = 200
	cmd = &Command{SerializeType: RocketMQ}
	if err := decodeRocketMQHeader(h, cmd); err != nil || cmd.Language != "200" {
		t.Fatalf("language %q, %v", cmd.Language, err)
	}
	if again, _ := appendRocketMQHeader(nil, cmd); again[2] != 200 {
		t.Fatalf("language re-encoded as %d", again[2])
	}
}

func TestRocketMQHeaderErrors(t *testing.T) {
	okExt := extEntry(1, "k", 1, "v")
	tests := map[string][]byte{
		"short fixed part":      make([]byte, 20),
		"remark past header":    rmqHeader{remarkLen: 5, remark: "abc"}.bytes(),
		"negative remark":       rmqHeader{remarkLen: -1}.bytes(),
		"missing ext length":    rmqHeader{remarkLen: 2, remark: "ab"}.bytes()[:17+2+2],
		"ext past header":       rmqHeader{extLen: int32(len(okExt) + 1), ext: okExt}.bytes(),
		"negative ext length":   rmqHeader{extLen: -4, ext: okExt}.bytes(),
		"key past ext":          rmqHeader{extLen: 3, ext: extEntry(4, "abcd", 0, "")}.bytes(),
		"negative key length":   rmqHeader{extLen: int32(len(okExt)), ext: extEntry(-1, "k", 1, "v")}.bytes(),
		"value past ext":        rmqHeader{extLen: int32(len(okExt)), ext: extEntry(1, "k", 2, "v")}.bytes(),
		"negative value length": rmqHeader{extLen: int32(len(okExt)), ext: extEntry(1, "k", -1, "v")}.bytes(),
		"truncated key length":  rmqHeader{extLen: 1, ext: []byte{0}}.bytes(),
		"truncated value len":   rmqHeader{extLen: 4, ext: []byte{0, 1, 'k', 0}}.bytes(),
	}
	for name, h := range tests {
		if err := decodeRocketMQHeader(h, &Command{}); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}

func TestRocketMQHeaderNotEncodable(t *testing.T) {
	long := string(make([]byte, 1<<15))
	cmd := &Command{SerializeType: RocketMQ, ExtFields: NewExt(map[string]string{long: "v"})}
	if _, err := EncodeCommand(cmd); !errors.Is(err, ErrNotEncodable) {
		t.Fatalf("err = %v, want ErrNotEncodable", err)
	}
}
