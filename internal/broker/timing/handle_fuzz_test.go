package timing

import "testing"

// FuzzDecodeHandle feeds arbitrary RECALL_MESSAGE handles to the decoder: no panic, and a
// decoded handle encodes to one that decodes the same.
func FuzzDecodeHandle(f *testing.F) {
	f.Add(EncodeHandle(Handle{Topic: "T", BrokerName: "broker-a", Timestamp: "1700000000000", MessageID: "7F0000010001"}))
	f.Add("djEgVCBicm9rZXItYSAxIGlk")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := DecodeHandle(s)
		if err != nil {
			return
		}
		h2, err := DecodeHandle(EncodeHandle(h))
		if err != nil {
			t.Fatalf("re-decode %+v: %v", h, err)
		}
		if h2 != h {
			t.Fatalf("%+v re-decoded as %+v", h, h2)
		}
	})
}
