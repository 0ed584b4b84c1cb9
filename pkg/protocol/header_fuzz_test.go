package protocol

import (
	"bufio"
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecodeHeaders decodes a frame and then every typed header from its ext fields: no
// input may panic, and a header that decodes encodes to fields that decode to it again. The
// committed seeds (testdata/fuzz/FuzzDecodeHeaders) hold send and pull frames with duplicate,
// malformed and hostile fields; every header's sample frames are added too.
func FuzzDecodeHeaders(f *testing.F) {
	for _, hc := range headerCases {
		for _, st := range []SerializeType{JSON, RocketMQ} {
			wire, err := EncodeCommand(hc.command(encodeExt(hc.sample(true)), st))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(wire)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		frame, err := ReadFrame(bufio.NewReader(bytes.NewReader(data)), 1<<20)
		if err != nil {
			return
		}
		cmd, err := DecodeCommand(frame)
		if err != nil {
			return
		}
		ext := cmd.ExtFields
		for _, hc := range headerCases {
			checkHeaderDecode(t, hc, ext)
		}
	})
}

func checkHeaderDecode(t *testing.T, hc headerCase, ext Ext) {
	h := hc.newHeader()
	if err := h.Decode(ext); err != nil {
		if _, ok := err.(*FieldError); !ok {
			t.Fatalf("%s: error %T %v", hc.name(), err, err)
		}
		return
	}
	again := hc.newHeader()
	if err := again.Decode(encodeExt(h)); err != nil {
		t.Fatalf("%s: re-encoded header does not decode: %v", hc.name(), err)
	}
	if !reflect.DeepEqual(h, again) {
		t.Fatalf("%s: round trip changed the header\nfirst  %+v\nsecond %+v", hc.name(), h, again)
	}
}
