package body

import "testing"

func BenchmarkTopicRouteDataEncode(b *testing.B) {
	r := twoBrokerRoute()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeGoHeartbeat(b *testing.B) {
	data := []byte(goHeartbeat)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeHeartbeatData(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRegisterBrokerBody(b *testing.B) {
	r := sampleRegisterBody()
	for i := range 1000 {
		tc := NewTopicConfig("Topic" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)))
		r.TopicConfigSerializeWrapper.TopicConfigTable[tc.TopicName] = tc
	}
	for _, compressed := range []bool{false, true} {
		name := "json"
		if compressed {
			name = "zlib"
		}
		data, err := r.Encode(compressed)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeRegisterBrokerBody(data, compressed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
