package message

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// Golden records built independently (Python struct.pack) from goldenMessage.
const (
	goldenV4 = "00000089daa320a769c865ed0000000300000000000000000000002a000000000000100000000000" +
		"0000018bcfe56800c0a8010a0000d4310000018bcfe5687b0a00000100002a9f00000001000000000000" +
		"00000000000e48656c6c6f20526f636b65744d5109546f70696354657374001754414753015461674102" +
		"554e49515f4b45590141424302"
	goldenBornV6 = "00000095daa320a769c865ed0000000300000000000000000000002a0000000000001000000000" +
		"100000018bcfe5680020010db80000000000000000000000010000d4310000018bcfe5687b0a00000100" +
		"002a9f0000000100000000000000000000000e48656c6c6f20526f636b65744d5109546f706963546573" +
		"74001754414753015461674102554e49515f4b45590141424302"
)

func goldenMessage() *Message {
	body := []byte("Hello RocketMQ")
	return &Message{
		Topic:          "TopicTest",
		QueueID:        3,
		QueueOffset:    42,
		PhysicalOffset: 4096,
		BornTimestamp:  1700000000000,
		BornHost:       netip.MustParseAddrPort("192.168.1.10:54321"),
		StoreTimestamp: 1700000000123,
		StoreHost:      netip.MustParseAddrPort("10.0.0.1:10911"),
		ReconsumeTimes: 1,
		BodyCRC:        BodyCRC(body),
		Body:           body,
		Properties:     "TAGS\x01TagA\x02UNIQ_KEY\x01ABC\x02",
	}
}

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEncodeGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Message)
		golden string
	}{
		{"ipv4", func(*Message) {}, goldenV4},
		{"born-ipv6", func(m *Message) { m.BornHost = netip.MustParseAddrPort("[2001:db8::1]:54321") }, goldenBornV6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := goldenMessage()
			tc.mutate(m)
			want := mustHex(t, tc.golden)
			if got := m.EncodedSize(); got != len(want) {
				t.Fatalf("EncodedSize = %d, want %d", got, len(want))
			}
			buf := make([]byte, len(want)+5)
			n, err := Encode(buf, m)
			if err != nil || n != len(want) {
				t.Fatalf("Encode = %d, %v", n, err)
			}
			if !bytes.Equal(buf[:n], want) {
				t.Fatalf("encoded\n%x\nwant\n%x", buf[:n], want)
			}
		})
	}
}

func TestGoldenCRC(t *testing.T) {
	if got := BodyCRC([]byte("Hello RocketMQ")); got != 0x69c865ed {
		t.Fatalf("BodyCRC = %#x", got)
	}
	// A CRC with the top bit set must be masked.
	for i := 0; i < 64; i++ {
		if BodyCRC([]byte{byte(i), 1, 2}) < 0 {
			t.Fatal("negative CRC")
		}
	}
}

func TestParseGolden(t *testing.T) {
	for _, g := range []string{goldenV4, goldenBornV6} {
		b := mustHex(t, g)
		v, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		m := goldenMessage()
		if string(v.Topic()) != m.Topic || string(v.Body()) != string(m.Body) ||
			string(v.Properties()) != m.Properties || v.QueueID() != 3 || v.QueueOffset() != 42 ||
			v.PhysicalOffset() != 4096 || v.BornTimestamp() != m.BornTimestamp ||
			v.StoreTimestamp() != m.StoreTimestamp || v.StoreHost() != m.StoreHost ||
			v.ReconsumeTimes() != 1 || v.PreparedTransactionOffset() != 0 || !v.CheckCRC() {
			t.Fatalf("view mismatch: %+v", v.Decode())
		}
		if tags, ok := v.Property(PropertyTags); !ok || string(tags) != "TagA" {
			t.Fatalf("TAGS = %q %v", tags, ok)
		}
	}
	v, _ := Parse(mustHex(t, goldenBornV6))
	if v.BornHost() != netip.MustParseAddrPort("[2001:db8::1]:54321") || v.SysFlag() != SysFlagBornHostV6 {
		t.Fatalf("born host %v sysflag %#x", v.BornHost(), v.SysFlag())
	}
}

func TestRoundTripBothHostsV6(t *testing.T) {
	m := goldenMessage()
	m.BornHost = netip.MustParseAddrPort("[::1]:1")
	m.StoreHost = netip.MustParseAddrPort("[fe80::2]:10911")
	m.SysFlag = SysFlagTransactionCommit | SysFlagCompressed
	m.PreparedTransactionOffset = 77
	buf := make([]byte, m.EncodedSize())
	if _, err := Encode(buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(buf, true)
	if err != nil {
		t.Fatal(err)
	}
	want := m.SysFlag | SysFlagBornHostV6 | SysFlagStoreHostV6
	if got.SysFlag != want || got.BornHost != m.BornHost || got.StoreHost != m.StoreHost ||
		got.PreparedTransactionOffset != 77 || got.StoreSize != int32(len(buf)) {
		t.Fatalf("decoded %+v", got)
	}
	if got.Tags() != "TagA" || got.UniqKey() != "ABC" {
		t.Fatalf("props %v", got.Props)
	}
}

func TestEncodeRejects(t *testing.T) {
	m := goldenMessage()
	m.Topic = strings.Repeat("t", 128)
	if _, err := Encode(make([]byte, 1024), m); !errors.Is(err, ErrTopicTooLong) {
		t.Fatalf("long topic: %v", err)
	}
	m = goldenMessage()
	m.Properties = strings.Repeat("p", MaxPropertiesLen+1)
	if _, err := Encode(make([]byte, 70000), m); !errors.Is(err, ErrPropertiesTooLong) {
		t.Fatalf("long props: %v", err)
	}
	m = goldenMessage()
	if _, err := Encode(make([]byte, 10), m); !errors.Is(err, ErrShortBuffer) {
		t.Fatalf("short: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	good := mustHex(t, goldenV4)
	for _, tc := range []struct {
		name string
		b    func() []byte
		want error
	}{
		{"empty", func() []byte { return nil }, ErrTruncated},
		{"truncated", func() []byte { return good[:100] }, ErrTruncated},
		{"blank", func() []byte { b := clone(good); EncodeBlank(b, len(b)); return b }, ErrBadMagic},
		{"bad magic", func() []byte { b := clone(good); b[5] ^= 1; return b }, ErrBadMagic},
		{"size too small", func() []byte { b := clone(good); b[3] = 10; return b }, ErrBadSize},
		{"size mismatch", func() []byte { b := append(clone(good), 0); b[3]++; return b }, ErrBadSize},
		{"body too long", func() []byte { b := clone(good); b[86] = 0xff; return b }, ErrBadSize},
		{"negative body", func() []byte { b := clone(good); b[84] = 0x80; return b }, ErrBadSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse(tc.b()); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	b := clone(good)
	b[90] ^= 0xff // a body byte
	if _, err := Decode(b, true); !errors.Is(err, ErrBadCRC) {
		t.Fatalf("crc: %v", err)
	}
	if _, err := Decode(b, false); err != nil {
		t.Fatalf("no crc check: %v", err)
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

func TestIterator(t *testing.T) {
	var buf []byte
	for i := 0; i < 5; i++ {
		m := goldenMessage()
		m.QueueOffset = int64(i)
		m.Body = bytes.Repeat([]byte{byte(i)}, i*10)
		m.BodyCRC = BodyCRC(m.Body)
		rec := make([]byte, m.EncodedSize())
		if _, err := Encode(rec, m); err != nil {
			t.Fatal(err)
		}
		buf = append(buf, rec...)
	}
	it := NewIterator(buf)
	n := 0
	for it.Next() {
		if it.View().QueueOffset() != int64(n) || len(it.View().Body()) != n*10 {
			t.Fatalf("record %d: %+v", n, it.View().Decode())
		}
		n++
	}
	if it.Err() != nil || n != 5 {
		t.Fatalf("n=%d err=%v", n, it.Err())
	}
	all, err := DecodeAll(buf[:len(buf)-3], true)
	if len(all) != 4 || !errors.Is(err, ErrTruncated) {
		t.Fatalf("DecodeAll on a torn buffer: %d, %v", len(all), err)
	}
}

func TestParseAllocs(t *testing.T) {
	b := mustHex(t, goldenV4)
	m := goldenMessage()
	dst := make([]byte, len(b))
	allocs := testing.AllocsPerRun(100, func() {
		v, _ := Parse(b)
		_, _ = v.Property(PropertyTags)
		_ = TagsCode(v.Topic())
		_, _ = Encode(dst, m)
	})
	if allocs != 0 {
		t.Fatalf("allocs = %v", allocs)
	}
}

func TestProperties(t *testing.T) {
	m := map[string]string{"TAGS": "a", "KEYS": "k1 k2", "UNIQ_KEY": "X"}
	s := EncodeProperties(m)
	if s != "KEYS\x01k1 k2\x02TAGS\x01a\x02UNIQ_KEY\x01X\x02" {
		t.Fatalf("encoded %q", s)
	}
	if got := ParseProperties(s); len(got) != 3 || got["KEYS"] != "k1 k2" {
		t.Fatalf("parsed %v", got)
	}
	// Java's rules: empty keys and values dropped, no trailing separator needed, last wins.
	got := ParseProperties("A\x011\x02\x01x\x02B\x01\x02C\x01 \x02A\x012")
	if len(got) != 2 || got["A"] != "2" || got["C"] != " " {
		t.Fatalf("parsed %q", got)
	}
	if v, ok := LookupProperty([]byte("A\x011\x02A\x012\x02B\x01"), "A"); !ok || string(v) != "2" {
		t.Fatalf("lookup %q %v", v, ok)
	}
	if _, ok := LookupProperty([]byte("B\x01\x02"), "B"); ok {
		t.Fatal("empty value found")
	}
	if v, ok := LookupPropertyString("WAIT\x01false", "WAIT"); !ok || v != "false" {
		t.Fatalf("lookup string %q %v", v, ok)
	}
	if EncodeProperties(nil) != "" {
		t.Fatal("nil map")
	}
	if keys := SplitKeys(" k1  k2 "); len(keys) != 2 || keys[0] != "k1" || keys[1] != "k2" {
		t.Fatalf("keys %q", keys)
	}
}

func TestJavaHash(t *testing.T) {
	// Values computed with Java's algorithm over UTF-16 code units.
	for s, want := range map[string]int32{
		"":               0,
		"hello":          99162322,
		"TagA":           2598919,
		"中文标签":           622041809,
		"😀":              1772899,
		"a😀b":            57849694,
		"TopicTest#key1": -1655984460,
	} {
		if got := JavaHash(s); got != want {
			t.Errorf("JavaHash(%q) = %d, want %d", s, got, want)
		}
		if got := JavaHashBytes([]byte(s)); got != want {
			t.Errorf("JavaHashBytes(%q) = %d, want %d", s, got, want)
		}
	}
	if TagsCode(nil) != 0 || TagsCode([]byte("TopicTest#key1")) != -1655984460 {
		t.Fatal("TagsCode")
	}
}

func TestOffsetMsgID(t *testing.T) {
	h := netip.MustParseAddrPort("10.0.0.1:10911")
	id := OffsetMsgID(h, 0x1234)
	if id != "0A00000100002A9F0000000000001234" {
		t.Fatalf("id %s", id)
	}
	gh, off, err := ParseOffsetMsgID(id)
	if err != nil || gh != h || off != 0x1234 {
		t.Fatalf("parse %v %d %v", gh, off, err)
	}
	h6 := netip.MustParseAddrPort("[2001:db8::5]:10911")
	id6 := OffsetMsgID(h6, 99)
	if len(id6) != 56 {
		t.Fatalf("v6 id %s", id6)
	}
	if gh, off, err := ParseOffsetMsgID(strings.ToLower(id6)); err != nil || gh != h6 || off != 99 {
		t.Fatalf("parse v6 %v %d %v", gh, off, err)
	}
	for _, bad := range []string{"", "XYZ", strings.Repeat("G", 32)} {
		if _, _, err := ParseOffsetMsgID(bad); !errors.Is(err, ErrBadMsgID) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestUniqID(t *testing.T) {
	now := time.Date(2024, 3, 2, 0, 0, 1, 0, time.Local)
	g := NewUniqIDGenerator(netip.MustParseAddr("192.168.0.1"), 0x1234, 0x0A0B0C0D, func() time.Time { return now })
	a, b := g.New(), g.New()
	// ip C0A80001, pid 1234, seed 0A0B0C0D, ms since month start (1 day + 1 s), counter.
	ms := 24*3600*1000 + 1000
	want := "C0A80001" + "1234" + "0A0B0C0D" + strings.ToUpper(hex.EncodeToString([]byte{
		byte(ms >> 24), byte(ms >> 16), byte(ms >> 8), byte(ms)})) + "0000"
	if a != want || len(a) != 32 {
		t.Fatalf("id %s, want %s", a, want)
	}
	if b[:28] != a[:28] || b[28:] != "0001" {
		t.Fatalf("second id %s", b)
	}
	now = time.Date(2024, 4, 1, 0, 0, 0, 5_000_000, time.Local) // next month resets the base
	if c := g.New(); c[20:28] != "00000005" {
		t.Fatalf("after month change %s", c)
	}
	g6 := NewUniqIDGenerator(netip.MustParseAddr("::1"), 1, 1, nil)
	if len(g6.New()) != 56 {
		t.Fatal("v6 uniq id length")
	}
}

func TestBatch(t *testing.T) {
	var body []byte
	body = AppendBatchEntry(body, 1, []byte("a"), "TAGS\x01x\x02")
	body = AppendBatchEntry(body, 2, nil, "")
	body = AppendBatchEntry(body, 3, []byte("ccc"), "KEYS\x01k\x02")
	it := NewBatchIterator(body)
	var got []BatchEntry
	for it.Next() {
		got = append(got, it.Entry())
	}
	if it.Err() != nil || len(got) != 3 || got[0].Flag != 1 || string(got[2].Body) != "ccc" ||
		string(got[0].Properties) != "TAGS\x01x\x02" || len(got[1].Body) != 0 {
		t.Fatalf("entries %+v err %v", got, it.Err())
	}
	if n, err := CountBatch(body); n != 3 || err != nil {
		t.Fatalf("count %d %v", n, err)
	}
	for _, bad := range [][]byte{body[:len(body)-1], append(clone(body), 0), {0, 0, 0, 1}} {
		if _, err := CountBatch(bad); !errors.Is(err, ErrBadBatch) {
			t.Fatalf("bad batch accepted: %v", err)
		}
	}
	if n, err := CountBatch(nil); n != 0 || err != nil {
		t.Fatalf("empty batch %d %v", n, err)
	}
}

func TestTransactionType(t *testing.T) {
	f := SetTransactionType(SysFlagCompressed|SysFlagTransactionRoll, SysFlagTransactionPrep)
	if TransactionType(f) != SysFlagTransactionPrep || f&SysFlagCompressed == 0 {
		t.Fatalf("flag %#x", f)
	}
}

func TestEncodeBatchEntry(t *testing.T) {
	m := goldenMessage()
	m.Body, m.Properties = nil, ""
	for _, tc := range []struct {
		props, suffix, want string
	}{
		{"TAGS\x01a\x02", "CLUSTER\x01c\x02", "TAGS\x01a\x02CLUSTER\x01c\x02"},
		{"TAGS\x01a", "CLUSTER\x01c\x02", "TAGS\x01a\x02CLUSTER\x01c\x02"},
		{"", "CLUSTER\x01c\x02", "CLUSTER\x01c\x02"},
		{"TAGS\x01a", "", "TAGS\x01a"},
	} {
		e := BatchEntry{Flag: 7, Body: []byte("entry body"), Properties: []byte(tc.props)}
		size := BatchEntrySize(m, e, tc.suffix)
		buf := make([]byte, size)
		n, err := EncodeBatchEntry(buf, m, e, tc.suffix)
		if err != nil || n != size {
			t.Fatalf("encode %d %v", n, err)
		}
		got, err := Decode(buf, true)
		if err != nil {
			t.Fatal(err)
		}
		if got.Properties != tc.want || got.Flag != 7 || string(got.Body) != "entry body" || got.Topic != m.Topic {
			t.Fatalf("decoded %+v", got)
		}
	}
}
