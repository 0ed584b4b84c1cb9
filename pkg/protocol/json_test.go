package protocol

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func decodeJSON(s string) (*Command, error) {
	cmd := &Command{}
	err := decodeJSONHeader([]byte(s), cmd)
	return cmd, err
}

func TestJSONHeaderLenient(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Command
	}{
		{"go client", `{"code":34,"language":"GO","version":317,"opaque":9,"flag":0,"remark":"","extFields":{}}`,
			Command{Code: 34, Language: "GO", Version: 317, Opaque: 9}},
		{"language number", `{"code":1,"language":9}`, Command{Code: 1, Language: "GO"}},
		{"language unknown number", `{"language":200}`, Command{Language: "200"}},
		{"language null", `{"language":null}`, Command{}},
		{"ext numbers and booleans", `{"extFields":{"d":4,"g":-1.5e3,"k":false,"t":true,"s":"x"}}`,
			Command{ExtFields: NewExt(map[string]string{"d": "4", "g": "-1.5e3", "k": "false", "t": "true", "s": "x"})}},
		{"ext null value left out", `{"extFields":{"a":null,"b":"1"}}`, Command{ExtFields: NewExt(map[string]string{"b": "1"})}},
		{"ext nested kept raw", `{"extFields":{"o":{"x":[1, 2]},"a":[]}}`,
			Command{ExtFields: NewExt(map[string]string{"o": `{"x":[1, 2]}`, "a": "[]"})}},
		{"ext null", `{"extFields":null}`, Command{}},
		{"remark null", `{"remark":null}`, Command{}},
		{"unknown keys skipped", `{"x":{"y":[1,{"z":null}],"w":"\u00e9"},"serializeTypeCurrentRPC":"JSON","n":-0.5,"b":true,"code":7}`,
			Command{Code: 7}},
		{"whitespace", " \t\r\n{ \"code\" : 5 ,\n\"flag\":\t3 } \n", Command{Code: 5, Flag: 3}},
		{"escapes", `{"remark":"a\"b\\c\/d\b\f\n\r\t\u0001\u00e9\ud83d\ude00"}`,
			Command{Remark: "a\"b\\c/d\b\f\n\r\t\x01é😀"}},
		{"lone surrogates", `{"remark":"\ud83dx\ude00\ud83d\u0041"}`, Command{Remark: "\uFFFDx\uFFFD\uFFFDA"}},
		{"escaped key", `{"c\u006fde":12}`, Command{Code: 12}},
		{"case-insensitive key", `{"Code":12,"OPAQUE":3}`, Command{Code: 12, Opaque: 3}},
		{"quoted integer", `{"code":"12"}`, Command{Code: 12}},
		{"int null", `{"code":null}`, Command{}},
		{"negative", `{"code":-1,"opaque":-2147483648}`, Command{Code: -1, Opaque: -2147483648}},
		{"32-bit code (RocketMQ 5 POP)", `{"code":200050}`, Command{Code: 200050}},
		{"raw utf8", `{"remark":"日本"}`, Command{Remark: "日本"}},
		{"empty", `{}`, Command{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeJSON(tt.in)
			if err != nil {
				t.Fatalf("decode %s: %v", tt.in, err)
			}
			if !sameCommand(got, &tt.want) {
				t.Fatalf("decode %s\ngot  %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestJSONHeaderErrors(t *testing.T) {
	for _, in := range []string{
		``, `[]`, `"x"`, `{`, `{"code"}`, `{"code":}`, `{"code":1,}`, `{"code":1 "flag":2}`,
		`{"code":1}x`, `{"code":1}{}`, `{"code":2147483648}`, `{"code":1.5}`, `{"code":1e2}`, `{"code":true}`,
		`{"code":01}`, `{"code":-}`, `{"code":"x"}`, `{"opaque":2147483648}`, `{"remark":{}}`,
		`{"remark":"a` + "\n" + `"}`, `{"remark":"\x"}`, `{"remark":"\u12"}`, `{"remark":"abc`,
		`{"extFields":[]}`, `{"extFields":{"a"}}`, `{"extFields":{"a":1,}}`, `{"extFields":{1:2}}`,
		`{"x":tru}`, `{"x":nul}`, `{"x":[1,]}`, `{"x":{"a":1,}}`, `{"x":1.}`, `{"x":1e}`, `{"x":+1}`,
		`{"x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
	} {
		if cmd, err := decodeJSON(in); err == nil {
			t.Errorf("decode %q = %+v, want an error", in, cmd)
		} else if !errors.Is(err, ErrMalformed) {
			t.Errorf("decode %q: error %v does not wrap ErrMalformed", in, err)
		}
	}
}

func TestJSONStringEscaping(t *testing.T) {
	in := "a\"b\\c\x00\x01\x02\x1f\n\r\té😀\x7f</>&\u2028"
	got := string(appendJSONString(nil, in))
	var back string
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("encoding/json cannot read %s: %v", got, err)
	}
	if back != in {
		t.Fatalf("round trip %q -> %s -> %q", in, got, back)
	}
	if !strings.Contains(got, `\u0001`) || !strings.Contains(got, `\u0002`) {
		t.Fatalf("property separators not escaped: %s", got)
	}
}

// stdHeader is the JSON header as encoding/json sees it; it is the oracle
// for the differential test.
type stdHeader struct {
	Code      int32             `json:"code"`
	Language  string            `json:"language"`
	Version   int16             `json:"version"`
	Opaque    int32             `json:"opaque"`
	Flag      int32             `json:"flag"`
	Remark    string            `json:"remark"`
	ExtFields map[string]string `json:"extFields"`
}

// TestJSONHeaderDifferential decodes random valid headers with both our
// decoder and encoding/json and requires the same result.
func TestJSONHeaderDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		in := randomJSONHeader(rng)
		var want stdHeader
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("generator made invalid JSON %s: %v", in, err)
		}
		got, err := decodeJSON(in)
		if err != nil {
			t.Fatalf("decode %s: %v", in, err)
		}
		if got.Code != want.Code || got.Language != want.Language || got.Version != want.Version ||
			got.Opaque != want.Opaque || got.Flag != want.Flag || got.Remark != want.Remark ||
			!got.ExtFields.Equal(NewExt(want.ExtFields)) {
			t.Fatalf("decode %s\nours %+v\nstd  %+v", in, got, want)
		}
		// What we encode, encoding/json reads back the same.
		out := appendJSONHeader(nil, got)
		var again stdHeader
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("encoding/json cannot read our %s: %v", out, err)
		}
		if again.Code != got.Code || again.Remark != got.Remark || again.Language != got.Language ||
			!NewExt(again.ExtFields).Equal(got.ExtFields) {
			t.Fatalf("re-encoded %s reads back as %+v", out, again)
		}
	}
}

func randomJSONHeader(rng *rand.Rand) string {
	var parts []string
	add := func(key, val string) { parts = append(parts, randomString(rng, key, true)+ws(rng)+":"+ws(rng)+val) }
	if rng.IntN(4) > 0 {
		add("code", strconv.Itoa(rng.IntN(65536)-32768))
	}
	if rng.IntN(4) > 0 {
		add("language", randomString(rng, []string{"JAVA", "GO", "CPP", "x"}[rng.IntN(4)], false))
	}
	if rng.IntN(4) > 0 {
		add("version", strconv.Itoa(rng.IntN(500)))
	}
	if rng.IntN(4) > 0 {
		add("opaque", strconv.FormatInt(int64(rng.Int32())-int64(rng.Int32()), 10))
	}
	if rng.IntN(4) > 0 {
		add("flag", strconv.Itoa(rng.IntN(4)))
	}
	if rng.IntN(3) > 0 {
		add("remark", randomString(rng, randomText(rng), false))
	}
	if rng.IntN(5) == 0 {
		add("unknown"+strconv.Itoa(rng.IntN(3)), randomValue(rng, 0))
	}
	if rng.IntN(4) > 0 {
		var fields []string
		seen := map[string]bool{}
		for n := rng.IntN(8); n > 0; n-- {
			k := randomText(rng)
			if seen[k] {
				continue
			}
			seen[k] = true
			fields = append(fields, randomString(rng, k, false)+":"+ws(rng)+randomString(rng, randomText(rng), false))
		}
		add("extFields", "{"+ws(rng)+strings.Join(fields, ","+ws(rng))+ws(rng)+"}")
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return ws(rng) + "{" + strings.Join(parts, ","+ws(rng)) + "}" + ws(rng)
}

func ws(rng *rand.Rand) string {
	return []string{"", "", "", " ", "\n\t", "\r\n  "}[rng.IntN(6)]
}

// randomText returns valid UTF-8 with characters that need escaping.
func randomText(rng *rand.Rand) string {
	alphabet := []rune{'a', 'Z', '0', ' ', '"', '\\', '/', '\x00', '\x01', '\x02', '\n', '\t', 'é', '世', '😀', '\u2028', '\x7f'}
	var sb strings.Builder
	for n := rng.IntN(12); n > 0; n-- {
		sb.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return sb.String()
}

// randomString quotes s, escaping characters in one of several valid ways.
func randomString(rng *rand.Rand, s string, plainASCII bool) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			sb.WriteString(`\` + string(r))
		case r < 0x20 || (!plainASCII && rng.IntN(8) == 0):
			if r > 0xFFFF {
				r1, r2 := utf16Pair(r)
				sb.WriteString(`\u` + hex4(r1) + `\u` + hex4(r2))
			} else {
				sb.WriteString(`\u` + hex4(r))
			}
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xD800 + (r>>10)&0x3FF, 0xDC00 + r&0x3FF
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}

func randomValue(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(7); {
	case k == 0 && depth < 3:
		return "[" + randomValue(rng, depth+1) + "," + ws(rng) + randomValue(rng, depth+1) + "]"
	case k == 1 && depth < 3:
		return "{" + randomString(rng, "k", false) + ":" + randomValue(rng, depth+1) + "}"
	case k == 2:
		return "-12.5e+3"
	case k == 3:
		return "null"
	case k == 4:
		return "true"
	default:
		return randomString(rng, randomText(rng), false)
	}
}
