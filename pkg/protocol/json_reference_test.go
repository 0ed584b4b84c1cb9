package protocol

// The JSON header decoder as first written: simple and obviously right,
// kept as the oracle the fast decoder in json_decode.go is checked against
// (TestJSONDecoderMatchesReference, FuzzJSONDecoderMatchesReference).

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// refMaxJSONDepth bounds the nesting of skipped values.
const refMaxJSONDepth = 256

// refJSONDecoder scans one flat JSON header. It works on a string copy of the
// header so that unescaped strings (nearly all of them) are substrings of
// that one allocation.
type refJSONDecoder struct {
	s   string
	pos int
}

func (d *refJSONDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: json at offset %d: %s", ErrMalformed, d.pos, fmt.Sprintf(format, args...))
}

// refDecodeJSONHeader fills cmd from a JSON header. See the package comment
// for what it accepts.
func refDecodeJSONHeader(header []byte, cmd *Command) error {
	d := refJSONDecoder{s: string(header)}
	d.skipWS()
	if !d.consume('{') {
		return d.errorf("header is not an object")
	}
	d.skipWS()
	if d.consume('}') {
		return d.end()
	}
	for {
		d.skipWS()
		key, err := d.readString()
		if err != nil {
			return err
		}
		d.skipWS()
		if !d.consume(':') {
			return d.errorf("missing ':' after key %q", key)
		}
		d.skipWS()
		if err := d.readHeaderField(key, cmd); err != nil {
			return err
		}
		d.skipWS()
		if d.consume(',') {
			continue
		}
		if d.consume('}') {
			return d.end()
		}
		return d.errorf("expected ',' or '}'")
	}
}

func (d *refJSONDecoder) end() error {
	d.skipWS()
	if d.pos != len(d.s) {
		return d.errorf("data after the header object")
	}
	return nil
}

// refHeaderKeys are the keys the decoder reads; matching falls back to a
// case-insensitive comparison, as Java's and the clients' parsers do.
var refHeaderKeys = [...]string{"code", "language", "version", "opaque", "flag", "remark", "extFields"}

func refCanonicalKey(key string) string {
	for _, k := range refHeaderKeys {
		if key == k {
			return k
		}
	}
	for _, k := range refHeaderKeys {
		if strings.EqualFold(key, k) {
			return k
		}
	}
	return ""
}

func (d *refJSONDecoder) readHeaderField(key string, cmd *Command) error {
	var err error
	switch refCanonicalKey(key) {
	case "code":
		var v int64
		v, err = d.readInt(key, -1<<31, 1<<31-1)
		cmd.Code = int32(v)
	case "version":
		var v int64
		v, err = d.readInt(key, -1<<15, 1<<15-1)
		cmd.Version = int16(v)
	case "opaque":
		var v int64
		v, err = d.readInt(key, -1<<31, 1<<31-1)
		cmd.Opaque = int32(v)
	case "flag":
		var v int64
		v, err = d.readInt(key, -1<<31, 1<<31-1)
		cmd.Flag = int32(v)
	case "language":
		cmd.Language, err = d.readLanguage()
	case "remark":
		cmd.Remark, _, err = d.readScalar(key)
	case "extFields":
		var m map[string]string
		m, err = d.readExtFields()
		cmd.ExtFields = NewExt(m)
	default:
		err = d.skipValue(0)
	}
	return err
}

func (d *refJSONDecoder) skipWS() {
	for d.pos < len(d.s) {
		switch d.s[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *refJSONDecoder) consume(c byte) bool {
	if d.pos < len(d.s) && d.s[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *refJSONDecoder) peek() byte {
	if d.pos < len(d.s) {
		return d.s[d.pos]
	}
	return 0
}

// readInt reads an integer field: a JSON integer, a string holding one, or
// null (zero).
func (d *refJSONDecoder) readInt(key string, lo, hi int64) (int64, error) {
	text, isNull, err := d.readScalar(key)
	if err != nil || isNull {
		return 0, err
	}
	v, perr := strconv.ParseInt(text, 10, 64)
	if perr != nil || v < lo || v > hi {
		return 0, d.errorf("%s is not a valid integer: %q", key, text)
	}
	return v, nil
}

// readLanguage reads a language name, or a number that is mapped to its
// name (LanguageName).
func (d *refJSONDecoder) readLanguage() (string, error) {
	if c := d.peek(); c == '-' || (c >= '0' && c <= '9') {
		text, err := d.readNumber()
		if err != nil {
			return "", err
		}
		if v, perr := strconv.ParseUint(text, 10, 8); perr == nil {
			return LanguageName(uint8(v)), nil
		}
		return text, nil
	}
	s, _, err := d.readScalar("language")
	return s, err
}

// readScalar reads a string, number, boolean or null and returns its text:
// the decoded string, or the literal token for the others. Objects and
// arrays are an error.
func (d *refJSONDecoder) readScalar(key string) (text string, isNull bool, err error) {
	switch c := d.peek(); {
	case c == '"':
		text, err = d.readString()
		return text, false, err
	case c == 'n':
		return "", true, d.literal("null")
	case c == 't':
		return "true", false, d.literal("true")
	case c == 'f':
		return "false", false, d.literal("false")
	case c == '-' || (c >= '0' && c <= '9'):
		text, err = d.readNumber()
		return text, false, err
	}
	return "", false, d.errorf("%s: expected a string, number, boolean or null", key)
}

// readExtFields reads the extFields object; null gives a nil map. Values
// that are numbers or booleans keep their literal text, null values are
// left out, and nested objects or arrays keep their raw JSON text.
func (d *refJSONDecoder) readExtFields() (map[string]string, error) {
	if d.peek() == 'n' {
		return nil, d.literal("null")
	}
	if !d.consume('{') {
		return nil, d.errorf("extFields is not an object")
	}
	d.skipWS()
	if d.consume('}') {
		return nil, nil
	}
	var m map[string]string
	for {
		d.skipWS()
		key, err := d.readString()
		if err != nil {
			return nil, err
		}
		d.skipWS()
		if !d.consume(':') {
			return nil, d.errorf("missing ':' after extFields key %q", key)
		}
		d.skipWS()
		var val string
		isNull := false
		if c := d.peek(); c == '{' || c == '[' {
			start := d.pos
			if err := d.skipValue(1); err != nil {
				return nil, err
			}
			val = d.s[start:d.pos]
		} else if val, isNull, err = d.readScalar(key); err != nil {
			return nil, err
		}
		if !isNull {
			if m == nil {
				m = make(map[string]string, min(max((len(d.s)-d.pos)/16, 4), 32))
			}
			m[key] = val
		}
		d.skipWS()
		if d.consume(',') {
			continue
		}
		if d.consume('}') {
			return m, nil
		}
		return nil, d.errorf("expected ',' or '}' in extFields")
	}
}

// skipValue skips any JSON value, checking its syntax.
func (d *refJSONDecoder) skipValue(depth int) error {
	if depth > refMaxJSONDepth {
		return d.errorf("nesting deeper than %d", refMaxJSONDepth)
	}
	switch d.peek() {
	case '{':
		return d.skipComposite('}', depth, true)
	case '[':
		return d.skipComposite(']', depth, false)
	}
	_, _, err := d.readScalar("value")
	return err
}

func (d *refJSONDecoder) skipComposite(closer byte, depth int, object bool) error {
	d.pos++
	d.skipWS()
	if d.consume(closer) {
		return nil
	}
	for {
		d.skipWS()
		if object {
			if _, err := d.readString(); err != nil {
				return err
			}
			d.skipWS()
			if !d.consume(':') {
				return d.errorf("missing ':' in object")
			}
			d.skipWS()
		}
		if err := d.skipValue(depth + 1); err != nil {
			return err
		}
		d.skipWS()
		if d.consume(',') {
			continue
		}
		if d.consume(closer) {
			return nil
		}
		return d.errorf("expected ',' or %q", closer)
	}
}

func (d *refJSONDecoder) literal(lit string) error {
	if strings.HasPrefix(d.s[d.pos:], lit) {
		d.pos += len(lit)
		return nil
	}
	return d.errorf("invalid literal, want %s", lit)
}

// readNumber reads a number per the JSON grammar and returns its text.
func (d *refJSONDecoder) readNumber() (string, error) {
	start := d.pos
	d.consume('-')
	switch c := d.peek(); {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		d.digits()
	default:
		return "", d.errorf("invalid number")
	}
	if d.consume('.') {
		if !d.digits() {
			return "", d.errorf("invalid number fraction")
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if !d.digits() {
			return "", d.errorf("invalid number exponent")
		}
	}
	return d.s[start:d.pos], nil
}

func (d *refJSONDecoder) digits() bool {
	start := d.pos
	for d.pos < len(d.s) && d.s[d.pos] >= '0' && d.s[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > start
}

// readString reads a quoted string. Without escapes it returns a substring
// of the header; with escapes it builds a new string.
func (d *refJSONDecoder) readString() (string, error) {
	if !d.consume('"') {
		return "", d.errorf("expected a string")
	}
	start := d.pos
	for d.pos < len(d.s) {
		switch c := d.s[d.pos]; {
		case c == '"':
			d.pos++
			return d.s[start : d.pos-1], nil
		case c == '\\':
			return d.readEscapedString(start)
		case c < 0x20:
			return "", d.errorf("control character in string")
		}
		d.pos++
	}
	return "", d.errorf("unterminated string")
}

func (d *refJSONDecoder) readEscapedString(start int) (string, error) {
	buf := make([]byte, 0, d.pos-start+16)
	buf = append(buf, d.s[start:d.pos]...)
	for d.pos < len(d.s) {
		c := d.s[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.errorf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		d.pos++
		if d.pos >= len(d.s) {
			break
		}
		e := d.s[d.pos]
		d.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := d.readUnicodeEscape()
			if err != nil {
				return "", err
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", d.errorf("invalid escape \\%c", e)
		}
	}
	return "", d.errorf("unterminated string")
}

// readUnicodeEscape reads the XXXX of \uXXXX (the "\u" is consumed), and a
// following low surrogate escape if XXXX is a high surrogate. A surrogate
// without its pair becomes U+FFFD, as in encoding/json.
func (d *refJSONDecoder) readUnicodeEscape() (rune, error) {
	r, ok := d.hex4()
	if !ok {
		return 0, d.errorf("invalid \\u escape")
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if r < 0xDC00 && strings.HasPrefix(d.s[d.pos:], `\u`) {
		save := d.pos
		d.pos += 2
		if r2, ok := d.hex4(); ok {
			if full := utf16.DecodeRune(r, r2); full != utf8.RuneError {
				return full, nil
			}
		}
		d.pos = save
	}
	return utf8.RuneError, nil
}

func (d *refJSONDecoder) hex4() (rune, bool) {
	if len(d.s)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := d.s[d.pos+i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, true
}

// checkSameAsReference decodes header with both decoders and requires the
// same command, or the same error.
func checkSameAsReference(t *testing.T, header []byte) {
	t.Helper()
	want := &Command{SerializeType: JSON}
	wantErr := refDecodeJSONHeader(header, want)
	got := &Command{SerializeType: JSON}
	gotErr := decodeJSONHeader(header, got)
	switch {
	case (gotErr == nil) != (wantErr == nil):
		t.Fatalf("decode %q: error %v, reference error %v", header, gotErr, wantErr)
	case gotErr != nil:
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("decode %q: error %q, reference %q", header, gotErr, wantErr)
		}
	case !sameCommand(got, want) || (got.ExtFields.fields == nil) != (want.ExtFields.fields == nil):
		t.Fatalf("decode %q\ngot       %+v\nreference %+v", header, got, want)
	}
}

func TestJSONDecoderMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		in := []byte(randomJSONHeader(rng))
		checkSameAsReference(t, in)
		// Damage it: every kind of error must be reported alike.
		for j := 0; j < 3 && len(in) > 0; j++ {
			bad := append([]byte(nil), in...)
			const damage = "{}[]\",:\\ntfu0-.eE\x01"
			bad[rng.IntN(len(bad))] = damage[rng.IntN(len(damage))]
			checkSameAsReference(t, bad)
			checkSameAsReference(t, bad[:rng.IntN(len(bad))])
		}
	}
	for _, in := range []string{
		`{"language":"JAVA","language":9,"language":-0,"language":-3,"language":255,"language":256}`,
		`{"language":1.5}`, `{"language":true}`, `{"language":[]}`, `{"language":"GOO"}`,
		`{"remark":"x","remark":null}`, `{"remark":true}`, `{"remark":-1.5e+3}`,
		`{"code":"+12"}`, `{"code":"-0"}`, `{"code":"\u0031\u0032"}`, `{"code":" 1"}`, `{"code":""}`,
		`{"opaque":-9223372036854775808}`, `{"opaque":9223372036854775808}`, `{"code":1234567890123456789}`,
		`{"extFields":{"a":"1"},"extFields":null}`, `{"extFields":{"a":"1"},"extFields":{}}`,
		`{"extFields":{"a":"1","a":null}}`, `{"extFields":{"a":"1","a":"2"}}`, `{"extFields":{"a":null}}`,
		`{"extFields":{"":"","topic":"T","b":"B","properties":"x\u0001y\u0002","zz":{"q":[1,"\u0041"]}}}`,
		`{"EXTFIELDS":{"A":"1"},"Remark":"r","serializeTypeCurrentRPC":"JSON","unknown":{"a":[]}}`,
		`{"extFields":{"a":tru}}`, `{"extFields":{"a":}}`, `{"extFields":{"a"`, `{"extFields":{"a":"\ud800"}}`,
		`{"extFields\u017f":{"a":"1"}}`, `{"c\u006fde":1}`, `{"x":"\u"}`, `{"x":"\u00e`,
	} {
		checkSameAsReference(t, []byte(in))
	}
}

func FuzzJSONDecoderMatchesReference(f *testing.F) {
	addGoldenSeeds(f, true, JSON)
	f.Add([]byte(`{"code":1,"extFields":{"a":1.5e3,"b":true,"c":null,"d":{"x":[]}},"language":9,"x":[{}]}`))
	f.Add([]byte(`{"remark":"\ud83d\ude00\ud800\u0041\"\\","language":"GO","Code":"+7"}`))
	f.Fuzz(checkSameAsReference)
}
