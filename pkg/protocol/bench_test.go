package protocol

import (
	"strconv"
	"testing"
)

// sendV2Request is a typical SEND_MESSAGE_V2 request as a Java producer sends it.
func sendV2Request(st SerializeType) *Command {
	return &Command{
		Code: int32(SendMessageV2), Language: "JAVA", Version: 409, Opaque: 123456, SerializeType: st,
		ExtFields: NewExt(map[string]string{
			"a": "please_rename_unique_group_name", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "3",
			"f": "0", "g": "1700000000123", "h": "0",
			"i": "KEYS\x01OrderID188\x02UNIQ_KEY\x017F0000010C6F18B4AAC2A3B1D0C40000\x02WAIT\x01true\x02TAGS\x01TagA\x02",
			"j": "0", "k": "false", "m": "false", "n": "broker-a",
		}),
		Body: make([]byte, 256),
	}
}

func sendV2Response(st SerializeType) *Command {
	resp := NewResponse(&Command{Opaque: 123456, SerializeType: st}, Success, "")
	resp.ExtFields = NewExt(map[string]string{
		"msgId": "7F00000100002A9F00000000000F4240", "queueId": "3", "queueOffset": strconv.Itoa(987654),
		"MSG_REGION": "DefaultRegion", "TRACE_ON": "true",
	})
	return resp
}

func benchEncode(b *testing.B, cmd *Command) {
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendFrameHeader(buf[:0], cmd); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
}

func benchDecode(b *testing.B, cmd *Command) {
	wire, err := EncodeCommand(cmd)
	if err != nil {
		b.Fatal(err)
	}
	frame := wire[4:]
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := DecodeCommand(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeSendRequestJSON(b *testing.B)      { benchEncode(b, sendV2Request(JSON)) }
func BenchmarkEncodeSendRequestRocketMQ(b *testing.B)  { benchEncode(b, sendV2Request(RocketMQ)) }
func BenchmarkEncodeSendResponseJSON(b *testing.B)     { benchEncode(b, sendV2Response(JSON)) }
func BenchmarkEncodeSendResponseRocketMQ(b *testing.B) { benchEncode(b, sendV2Response(RocketMQ)) }
func BenchmarkDecodeSendRequestJSON(b *testing.B)      { benchDecode(b, sendV2Request(JSON)) }
func BenchmarkDecodeSendRequestRocketMQ(b *testing.B)  { benchDecode(b, sendV2Request(RocketMQ)) }
func BenchmarkDecodeSendResponseJSON(b *testing.B)     { benchDecode(b, sendV2Response(JSON)) }
func BenchmarkDecodeSendResponseRocketMQ(b *testing.B) { benchDecode(b, sendV2Response(RocketMQ)) }

// decodeSendV2 decodes a SEND_MESSAGE_V2 frame and its typed header, as the broker does.
func decodeSendV2(d *Decoder, frame []byte, h *SendMessageRequestHeader) error {
	cmd, err := d.Decode(frame)
	if err != nil {
		return err
	}
	return h.DecodeSend(cmd.RequestCode(), cmd.ExtFields)
}

// TestSendHeaderDecodeAllocs pins the allocations of a SEND_MESSAGE_V2 decode: the frame costs
// the Command, the arena string and the slice of ext fields (no map), and the typed header
// nothing at all: its strings are the arena's.
func TestSendHeaderDecodeAllocs(t *testing.T) {
	for _, st := range []SerializeType{JSON, RocketMQ} {
		wire, err := EncodeCommand(sendV2Request(st))
		if err != nil {
			t.Fatal(err)
		}
		frame := wire[4:]
		var d Decoder
		var cmd *Command
		if n := testing.AllocsPerRun(200, func() { cmd, _ = d.Decode(frame) }); n != 2 {
			t.Errorf("%s: decoding the frame allocates %v times, want 2 (the command with its ext fields, the arena)", st, n)
		}
		var h SendMessageRequestHeader
		if n := testing.AllocsPerRun(200, func() {
			if err := h.DecodeSend(cmd.RequestCode(), cmd.ExtFields); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: decoding the typed header allocates %v times", st, n)
		}
		if h.Topic != "TopicTest" || h.QueueID != 3 || h.BornTimestamp != 1700000000123 || h.BrokerName.V != "broker-a" {
			t.Fatalf("%s: %+v", st, h)
		}
	}
}

func benchDecodeSendHeader(b *testing.B, st SerializeType) {
	wire, err := EncodeCommand(sendV2Request(st))
	if err != nil {
		b.Fatal(err)
	}
	frame := wire[4:]
	var d Decoder
	var h SendMessageRequestHeader
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if err := decodeSendV2(&d, frame, &h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeSendV2Header* decode a SEND_MESSAGE_V2 frame and its typed header.
func BenchmarkDecodeSendV2HeaderJSON(b *testing.B)     { benchDecodeSendHeader(b, JSON) }
func BenchmarkDecodeSendV2HeaderRocketMQ(b *testing.B) { benchDecodeSendHeader(b, RocketMQ) }

// BenchmarkDecodeSendV2HeaderOnly decodes the typed header of an already decoded frame.
func BenchmarkDecodeSendV2HeaderOnly(b *testing.B) {
	wire, err := EncodeCommand(sendV2Request(RocketMQ))
	if err != nil {
		b.Fatal(err)
	}
	cmd, err := DecodeCommand(wire[4:])
	if err != nil {
		b.Fatal(err)
	}
	var h SendMessageRequestHeader
	b.ReportAllocs()
	for b.Loop() {
		if err := h.DecodeSend(cmd.RequestCode(), cmd.ExtFields); err != nil {
			b.Fatal(err)
		}
	}
}
