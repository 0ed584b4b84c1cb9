package protocol

import (
	"strconv"
	"testing"
)

// sendV2Request is a typical SEND_MESSAGE_V2 request as a Java producer sends it.
func sendV2Request(st SerializeType) *Command {
	return &Command{
		Code: int32(SendMessageV2), Language: "JAVA", Version: 409, Opaque: 123456, SerializeType: st,
		ExtFields: map[string]string{
			"a": "please_rename_unique_group_name", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "3",
			"f": "0", "g": "1700000000123", "h": "0",
			"i": "KEYS\x01OrderID188\x02UNIQ_KEY\x017F0000010C6F18B4AAC2A3B1D0C40000\x02WAIT\x01true\x02TAGS\x01TagA\x02",
			"j": "0", "k": "false", "m": "false", "n": "broker-a",
		},
		Body: make([]byte, 256),
	}
}

func sendV2Response(st SerializeType) *Command {
	resp := NewResponse(&Command{Opaque: 123456, SerializeType: st}, Success, "")
	resp.ExtFields = map[string]string{
		"msgId": "7F00000100002A9F00000000000F4240", "queueId": "3", "queueOffset": strconv.Itoa(987654),
		"MSG_REGION": "DefaultRegion", "TRACE_ON": "true",
	}
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
