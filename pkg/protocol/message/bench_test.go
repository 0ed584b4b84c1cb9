package message

import "testing"

func benchMessage() *Message {
	m := goldenMessage()
	m.Body = make([]byte, 1024)
	m.BodyCRC = BodyCRC(m.Body)
	return m
}

func BenchmarkEncode(b *testing.B) {
	m := benchMessage()
	dst := make([]byte, m.EncodedSize())
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	for range b.N {
		if _, err := Encode(dst, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAndTagsCode(b *testing.B) {
	m := benchMessage()
	rec := make([]byte, m.EncodedSize())
	if _, err := Encode(rec, m); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for range b.N {
		v, err := Parse(rec)
		if err != nil {
			b.Fatal(err)
		}
		tags, _ := v.Property(PropertyTags)
		if TagsCode(tags) == 0 {
			b.Fatal("no tags")
		}
	}
}
