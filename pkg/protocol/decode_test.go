package protocol

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// checkOnlyBodyAliases decodes frame, overwrites its header bytes and
// requires the command to be unchanged: only Body may refer to the frame,
// which is what lets a reader reuse the frame buffer of a bodiless command
// at once.
func checkOnlyBodyAliases(t *testing.T, frame []byte) {
	t.Helper()
	frame = append([]byte(nil), frame...)
	var d Decoder
	cmd, err := d.Decode(frame)
	if err != nil {
		return
	}
	before := headerBytes(t, cmd)
	hl := int(binary.BigEndian.Uint32(frame) & maxHeaderLen)
	for i := 4; i < 4+hl; i++ {
		frame[i] = 0xA5
	}
	// Decoding another frame with the same Decoder must not disturb it either.
	if _, err := d.Decode([]byte{0, 0, 0, 2, '{', '}'}); err != nil {
		t.Fatal(err)
	}
	if after := headerBytes(t, cmd); !bytes.Equal(before, after) {
		t.Fatalf("the command changed with the frame\nbefore %q\nafter  %q", before, after)
	}
}

func headerBytes(t *testing.T, cmd *Command) []byte {
	t.Helper()
	c := *cmd
	c.Body = nil
	b, err := EncodeCommand(&c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodedCommandOwnsItsStrings(t *testing.T) {
	for _, name := range goldenNames(t) {
		checkOnlyBodyAliases(t, readGolden(t, name)[4:])
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 500; i++ {
		cmd, err := decodeJSON(randomJSONHeader(rng))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Body = []byte("body")
		for _, st := range []SerializeType{JSON, RocketMQ} {
			cmd.SerializeType = st
			wire, err := EncodeCommand(cmd)
			if err != nil {
				t.Fatal(err)
			}
			checkOnlyBodyAliases(t, wire[4:])
		}
	}
}

// TestDecoderReuse decodes different frames with one Decoder: nothing of
// an earlier frame leaks into a later command.
func TestDecoderReuse(t *testing.T) {
	var d Decoder
	frames := []*Command{
		{Code: 1, Remark: "first", Language: "GO", ExtFields: NewExt(map[string]string{"a": "1", "custom": "x\x01"})},
		{Code: 2},
		{Code: 3, Language: "JAVA", SerializeType: RocketMQ, ExtFields: NewExt(map[string]string{"topic": "T"}), Remark: "r"},
		{Code: 4, ExtFields: NewExt(map[string]string{"b": "2"})},
	}
	for _, want := range frames {
		wire, err := EncodeCommand(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Decode(wire[4:])
		if err != nil {
			t.Fatal(err)
		}
		if !sameCommand(got, want) {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	}
}

// TestDecodeAllocations pins the allocations of a decoded SEND_MESSAGE_V2
// request: the command, one string for every value and its map.
func TestDecodeAllocations(t *testing.T) {
	for _, st := range []SerializeType{JSON, RocketMQ} {
		wire, err := EncodeCommand(sendV2Request(st))
		if err != nil {
			t.Fatal(err)
		}
		var d Decoder
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := d.Decode(wire[4:]); err != nil {
				t.Fatal(err)
			}
		})
		// Command 1, arena string 1, map of 13 entries 4 (in Go 1.26).
		t.Logf("%v: %.0f allocations", st, allocs)
		if allocs > 6 {
			t.Errorf("%v: %.0f allocations per decode, want <= 6", st, allocs)
		}
	}
}

func TestPlainPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	special := []byte{'"', '\\', 0, 0x1f, 0x01}
	plain := []byte{' ', 'a', 0x7f, 0x80, 0xff, '!', '#', '[', ']', 0x20, 0x21, 0x5b, 0x5d, 0xa2, 0xdc}
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.IntN(40))
		for j := range b {
			b[j] = plain[rng.IntN(len(plain))]
			if rng.IntN(30) == 0 {
				b[j] = special[rng.IntN(len(special))]
			}
		}
		want := len(b)
		for j, c := range b {
			if c < 0x20 || c == '"' || c == '\\' {
				want = j
				break
			}
		}
		if got := plainPrefix(b); got != want {
			t.Fatalf("plainPrefix(%q) = %d, want %d", b, got, want)
		}
		if got := plainPrefix(string(b)); got != want {
			t.Fatalf("plainPrefix(string %q) = %d, want %d", b, got, want)
		}
	}
}
