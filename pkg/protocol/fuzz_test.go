package protocol

import (
	"bufio"
	"bytes"
	"testing"
)

// addGoldenSeeds adds every golden frame; whole frames, or only their
// headers of the given type when onlyHeaders is set.
func addGoldenSeeds(f *testing.F, onlyHeaders bool, st SerializeType) {
	for _, name := range goldenNames(f) {
		wire := readGolden(f, name)
		if !onlyHeaders {
			f.Add(wire)
			continue
		}
		if SerializeType(wire[4]) != st {
			continue
		}
		hl := int(wire[5])<<16 | int(wire[6])<<8 | int(wire[7])
		f.Add(wire[8 : 8+hl])
	}
}

// checkRoundTrip re-encodes a decoded command and requires the same
// command back.
func checkRoundTrip(t *testing.T, cmd *Command) {
	t.Helper()
	wire, err := EncodeCommand(cmd)
	if err != nil {
		// Only a command the binary form cannot carry may fail.
		return
	}
	frame, err := ReadFrame(bufio.NewReader(bytes.NewReader(wire)), len(wire))
	if err != nil {
		t.Fatalf("re-encoded frame unreadable: %v", err)
	}
	again, err := DecodeCommand(frame)
	if err != nil {
		t.Fatalf("re-encoded frame undecodable: %v\n%q", err, wire)
	}
	if !sameCommand(cmd, again) {
		t.Fatalf("round trip changed the command\nfirst  %+v\nsecond %+v", cmd, again)
	}
}

func FuzzDecodeFrame(f *testing.F) {
	addGoldenSeeds(f, false, 0)
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 6, 0, 0, 0, 2, '{', '}'})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for {
			frame, err := ReadFrame(r, 1<<20)
			if err != nil {
				return
			}
			cmd, err := DecodeCommand(frame)
			if err != nil {
				return
			}
			checkRoundTrip(t, cmd)
			checkOnlyBodyAliases(t, frame)
		}
	})
}

func FuzzDecodeJSONHeader(f *testing.F) {
	addGoldenSeeds(f, true, JSON)
	f.Add([]byte(`{"code":1,"extFields":{"a":1.5e3,"b":true,"c":null,"d":{"x":[]}},"language":9,"x":[{}]}`))
	f.Add([]byte(`{"remark":"\ud83d\ude00\ud800\u0041\"\\"}`))
	f.Fuzz(func(t *testing.T, header []byte) {
		cmd := &Command{SerializeType: JSON}
		if err := decodeJSONHeader(header, cmd); err != nil {
			return
		}
		checkRoundTrip(t, cmd)
	})
}

func FuzzDecodeRocketMQHeader(f *testing.F) {
	addGoldenSeeds(f, true, RocketMQ)
	f.Add(make([]byte, rocketMQFixedLen))
	f.Fuzz(func(t *testing.T, header []byte) {
		cmd := &Command{SerializeType: RocketMQ}
		if err := decodeRocketMQHeader(header, cmd); err != nil {
			return
		}
		checkRoundTrip(t, cmd)
	})
}
