package body

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		`{0:"a:1",1:"b:2"}`:                  `{"0":"a:1","1":"b:2"}`,
		`{ -1 : 5 , 2:[1, 2] }`:              `{"-1":5,"2":[1,2]}`,
		`{"T@G":{0:12,1:7}}`:                 `{"T@G":{"0":12,"1":7}}`,
		`{{"brokerName":"b","queueId":0}:5}`: `{"{\"brokerName\":\"b\",\"queueId\":0}":5}`,
		`{{"a":{1:2}}:{3:4}}`:                `{"{\"a\":{\"1\":2}}":{"3":4}}`,
		`[{"s":"x{0:1}\"y"}]`:                `[{"s":"x{0:1}\"y"}]`,
		` "str" `:                            `"str"`,
		`{}`:                                 `{}`,
		`[]`:                                 `[]`,
		`true`:                               `true`,
	} {
		got, err := Normalize([]byte(in))
		require.NoError(t, err, in)
		require.Equal(t, want, string(got), in)
		require.True(t, json.Valid(got), in)
	}
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `"abc`, `{"a":1}x`, `{:1}`, `[1 2]`, `{"a":1 "b":2}`, `}`} {
		_, err := Normalize([]byte(in))
		require.Error(t, err, in)
	}
	_, err := Normalize([]byte(strings.Repeat("[", 10000) + strings.Repeat("]", 10000)))
	require.ErrorIs(t, err, errTooDeep)
}

func TestMarshalDoesNotEscapeHTML(t *testing.T) {
	got, err := Marshal(map[string]string{"k": "a<b>&c"})
	require.NoError(t, err)
	require.Equal(t, `{"k":"a<b>&c"}`, string(got))
	got, err = MarshalIndent(map[string]int{"a": 1})
	require.NoError(t, err)
	require.Equal(t, "{\n\t\"a\": 1\n}", string(got))
}

var fuzzSeeds = []string{
	goHeartbeat, aliOnsHeartbeat,
	`{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"b","cluster":"c"}],"filterServerTable":{},"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":4,"topicSynFlag":0,"writeQueueNums":4}]}`,
	`{"offsetTable":{"T@G":{0:12,1:7}}}`,
	`{"consumeTps":1.5,"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:{"brokerOffset":5,"consumerOffset":5,"lastTimestamp":0,"pullOffset":0}}}`,
	`{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:100}}`,
	`{"brokerAddrTable":{"b":{"brokerAddrs":{0:"h:1"},"brokerName":"b","cluster":"c"}},"clusterAddrTable":{"c":["b"]}}`,
	`[1,"a",{"x":null}]`,
}

// FuzzNormalize checks that the pre-pass never panics, is the identity (up to whitespace) on
// standard JSON, and is idempotent.
func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Normalize(in)
		if json.Valid(in) {
			if err != nil {
				if err == errTooDeep {
					return
				}
				t.Fatalf("valid JSON rejected: %v", err)
			}
			var compact bytes.Buffer
			if cerr := json.Compact(&compact, in); cerr != nil {
				t.Fatal(cerr)
			}
			if !bytes.Equal(out, compact.Bytes()) {
				t.Fatalf("standard JSON changed:\n in  %q\n out %q", in, out)
			}
		}
		if err != nil {
			return
		}
		again, err := Normalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q (%v)", out, again, err)
		}
	})
}

// FuzzDecodeBodies runs every tolerant decoder over arbitrary input; anything decoded must
// re-encode and decode to the same value.
func FuzzDecodeBodies(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if r, err := DecodeTopicRouteData(in); err == nil {
			enc, err := r.Encode()
			if err != nil {
				t.Fatal(err)
			}
			r2, err := DecodeTopicRouteData(enc)
			if err != nil {
				t.Fatalf("re-decode %q: %v", enc, err)
			}
			enc2, _ := r2.Encode()
			if !bytes.Equal(enc, enc2) {
				t.Fatalf("route not stable:\n%q\n%q", enc, enc2)
			}
		}
		if h, err := DecodeHeartbeatData(in); err == nil {
			enc, err := Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeHeartbeatData(enc); err != nil {
				t.Fatalf("re-decode heartbeat %q: %v", enc, err)
			}
		}
		if cs, err := DecodeConsumeStats(in); err == nil {
			enc, err := cs.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeConsumeStats(enc); err != nil {
				t.Fatalf("re-decode stats %q: %v", enc, err)
			}
		}
		_, _ = DecodeConsumerOffsetSerializeWrapper(in)
		_, _ = DecodeTopicConfigSerializeWrapper(in)
		_, _ = DecodeSubscriptionGroupWrapper(in)
		_, _ = DecodeLockBatchRequest(in)
		_, _ = DecodeDataVersion(in)
		_, _ = DecodeTopicStatsTable(in)
		_, _ = DecodeTopicConfigCompact(string(in))
		_, _ = DecodeClusterInfo(in)
		_, _ = DecodeResetOffsetBody(in)
		_, _ = DecodeRegisterBrokerBody(in, false)
	})
}

// FuzzDecodeCompressedRegisterBody feeds arbitrary bytes, and arbitrary bytes behind a valid zlib
// header, to the compressed decoder.
func FuzzDecodeCompressedRegisterBody(f *testing.F) {
	seed, err := sampleRegisterBody().Encode(true)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed, false)
	f.Add([]byte{0, 0, 0, 2, '{', '}', 0, 0, 0, 1, 0, 0, 0, 20}, true)
	f.Fuzz(func(t *testing.T, in []byte, wrap bool) {
		if wrap {
			in = zlibBytes(in)
		}
		r, err := DecodeRegisterBrokerBody(in, true)
		if err != nil {
			return
		}
		enc, err := r.Encode(true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeRegisterBrokerBody(enc, true); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
	})
}
