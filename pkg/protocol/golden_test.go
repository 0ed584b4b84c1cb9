package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestGoldenDecode(t *testing.T) {
	tests := []struct {
		file string
		want *Command
	}{
		{"go_send_message_json.hex", &Command{
			Code: 10, Language: "GO", Version: 317, Opaque: 3,
			ExtFields: NewExt(map[string]string{
				"producerGroup": "pg", "topic": "TopicTest", "queueId": "1", "sysFlag": "0",
				"bornTimestamp": "1700000000000", "flag": "0", "reconsumeTimes": "0", "unitMode": "false",
				"maxReconsumeTimes": "0", "defaultTopic": "TBW102", "defaultTopicQueueNums": "4",
				"batch": "false", "bname": "broker-a",
				"properties": "KEYS\x01order-1\x02UNIQ_KEY\x01C0A8000100002A9F0000000000000001\x02WAIT\x01true\x02",
			}),
			Body: []byte("Hello RocketMQ"),
		}},
		{"go_pull_message_rocketmq.hex", &Command{
			Code: 11, Language: "GO", Version: 317, Opaque: 77, SerializeType: RocketMQ,
			ExtFields: NewExt(map[string]string{
				"consumerGroup": "cg", "topic": "TopicTest", "queueId": "2", "queueOffset": "100",
				"maxMsgNums": "32", "sysFlag": "2", "commitOffset": "0", "suspendTimeoutMillis": "20000",
				"subscription": "*", "subVersion": "0", "expressionType": "TAG",
			}),
		}},
		{"alions_send_message_v2_json.hex", &Command{
			Code: 310, Language: "JAVA", Version: 121, Opaque: 12,
			ExtFields: NewExt(map[string]string{
				"a": "GID_test", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "0", "f": "0",
				"g": "1700000000123", "h": "0", "i": "TAGS\x01TagA\x02KEYS\x01k1\x02", "j": "0",
				"k": "false", "l": "16",
			}),
			Body: []byte("hello"),
		}},
		{"java_send_response_json.hex", &Command{
			Code: 0, Language: "JAVA", Version: 409, Opaque: 3, Flag: FlagResponse,
			ExtFields: NewExt(map[string]string{
				"queueId": "1", "TRACE_ON": "true", "MSG_REGION": "DefaultRegion",
				"msgId": "C0A8000100002A9F0000000000001234", "queueOffset": "42",
			}),
		}},
		{"server_send_response_json.hex", sendResponse(JSON)},
		{"server_send_response_rocketmq.hex", sendResponse(RocketMQ)},
		{"server_error_response_json.hex", errorResponse(JSON)},
		{"server_error_response_rocketmq.hex", errorResponse(RocketMQ)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := decodeWire(t, readGolden(t, tt.file))
			if !sameCommand(got, tt.want) {
				t.Fatalf("decoded\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func sendResponse(st SerializeType) *Command {
	resp := NewResponse(&Command{Opaque: 12, SerializeType: st}, Success, "")
	resp.ExtFields = NewExt(map[string]string{
		"msgId": "C0A8000100002A9F0000000000001234", "queueId": "1", "queueOffset": "42",
	})
	return resp
}

func errorResponse(st SerializeType) *Command {
	return NewResponse(&Command{Opaque: 5, SerializeType: st}, TopicNotExist, "bad \"topic\"\n\x01")
}

// TestGoldenEncode checks this server's output byte for byte.
func TestGoldenEncode(t *testing.T) {
	tests := []struct {
		file string
		cmd  *Command
	}{
		{"server_send_response_json.hex", sendResponse(JSON)},
		{"server_send_response_rocketmq.hex", sendResponse(RocketMQ)},
		{"server_error_response_json.hex", errorResponse(JSON)},
		{"server_error_response_rocketmq.hex", errorResponse(RocketMQ)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := EncodeCommand(tt.cmd)
			if err != nil {
				t.Fatal(err)
			}
			if want := readGolden(t, tt.file); !bytes.Equal(got, want) {
				t.Fatalf("encoded\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// goClientCommand mirrors rocketmq-client-go's RemotingCommand: extFields
// must decode as map[string]string and language is parsed leniently.
type goClientCommand struct {
	Code      int32             `json:"code"`
	Language  goClientLanguage  `json:"language"`
	Version   int16             `json:"version"`
	Opaque    int32             `json:"opaque"`
	Flag      int32             `json:"flag"`
	Remark    string            `json:"remark"`
	ExtFields map[string]string `json:"extFields"`
}

type goClientLanguage byte

func (l *goClientLanguage) UnmarshalJSON([]byte) error { return nil }

// TestGoClientDecodesOurJSON decodes this server's JSON headers the way the
// Go client does (encoding/json into its struct).
func TestGoClientDecodesOurJSON(t *testing.T) {
	for _, resp := range []*Command{sendResponse(JSON), errorResponse(JSON)} {
		frame, err := EncodeCommand(resp)
		if err != nil {
			t.Fatal(err)
		}
		hl := int(frame[5])<<16 | int(frame[6])<<8 | int(frame[7])
		var got goClientCommand
		if err := json.Unmarshal(frame[8:8+hl], &got); err != nil {
			t.Fatalf("go client cannot decode %s: %v", frame[8:8+hl], err)
		}
		if got.Code != resp.Code || got.Opaque != resp.Opaque || got.Flag != resp.Flag ||
			got.Remark != resp.Remark || got.Version != resp.Version || len(got.ExtFields) != resp.ExtFields.Len() {
			t.Fatalf("go client decoded %+v from %+v", got, resp)
		}
		for k, v := range resp.ExtFields.All() {
			if got.ExtFields[k] != v {
				t.Fatalf("ext %s = %q, want %q", k, got.ExtFields[k], v)
			}
		}
		// ali-ons reads the header length as the whole int32 at offset 4.
		if frame[4] != 0 {
			t.Fatalf("JSON frame type byte %d", frame[4])
		}
	}
}
