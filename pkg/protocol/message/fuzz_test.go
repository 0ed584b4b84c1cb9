package message

import (
	"bytes"
	"testing"
)

func FuzzParseRecord(f *testing.F) {
	f.Add(mustHex(f, goldenV4))
	f.Add(mustHex(f, goldenBornV6))
	f.Add(append(mustHex(f, goldenV4), mustHex(f, goldenV4)...))
	f.Add([]byte{0, 0, 0, 8, 0xCB, 0xD4, 0x31, 0x94})
	f.Fuzz(func(t *testing.T, b []byte) {
		it := NewIterator(b)
		for it.Next() {
			v := it.View()
			m := v.Decode()
			_ = v.CheckCRC()
			_ = v.BornHost()
			// A record that parses re-encodes to the same bytes when it is V1
			// and its host flags are canonical.
			if v.Magic() != MagicV1 || HostFlags(m.SysFlag, m.BornHost, m.StoreHost) != m.SysFlag {
				continue
			}
			if len(m.Topic) > MaxTopicLen {
				continue
			}
			out := make([]byte, m.EncodedSize())
			if _, err := Encode(out, &m.Message); err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			if !bytes.Equal(out, v.Bytes()) && canonicalHosts(v) {
				t.Fatalf("re-encode differs\n%x\n%x", out, v.Bytes())
			}
		}
	})
}

// canonicalHosts reports whether both hosts re-encode to their stored bytes: a
// 16-byte IPv4-mapped address re-encodes in 4 bytes, and a port beyond 16 bits
// loses its upper bits.
func canonicalHosts(v View) bool {
	var b [20]byte
	born := v.Bytes()[PosBornHost:v.storeTS]
	store := v.StoreHostBytes()
	return bytes.Equal(b[:putHost(b[:], v.BornHost())], born) &&
		bytes.Equal(b[:putHost(b[:], v.StoreHost())], store)
}

func FuzzBatch(f *testing.F) {
	var body []byte
	body = AppendBatchEntry(body, 1, []byte("hello"), "TAGS\x01x\x02")
	body = AppendBatchEntry(body, 0, nil, "")
	f.Add(body)
	f.Add([]byte{0, 0, 0, 22, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		it := NewBatchIterator(b)
		var out []byte
		for it.Next() {
			e := it.Entry()
			out = AppendBatchEntry(out, e.Flag, e.Body, string(e.Properties))
		}
		if it.Err() == nil && len(out) != len(b) {
			t.Fatalf("valid batch of %d bytes re-encodes to %d", len(b), len(out))
		}
	})
}

func FuzzProperties(f *testing.F) {
	f.Add("TAGS\x01a\x02KEYS\x01b c\x02")
	f.Add("\x01\x02\x01")
	f.Fuzz(func(t *testing.T, s string) {
		m := ParseProperties(s)
		for k, v := range m {
			got, ok := LookupPropertyString(s, k)
			if !ok || got != v {
				t.Fatalf("lookup %q = %q, map has %q", k, got, v)
			}
			gb, ok := LookupProperty([]byte(s), k)
			if !ok || string(gb) != v {
				t.Fatalf("byte lookup %q = %q", k, gb)
			}
		}
		// Well-formed maps (no separators inside) round-trip.
		clean := map[string]string{}
		for k, v := range m {
			if !bytes.ContainsAny([]byte(k+v), "\x01\x02") {
				clean[k] = v
			}
		}
		back := ParseProperties(EncodeProperties(clean))
		if len(back) != len(clean) {
			t.Fatalf("round trip %v -> %v", clean, back)
		}
	})
}
