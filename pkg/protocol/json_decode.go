package protocol

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds the nesting of skipped values.
const maxJSONDepth = 256

// text is one decoded string: a constant (a known key or language name), or
// the span [start, end) of the decoder's arena when end > start.
type text struct {
	lit        string
	start, end int
}

func (t text) in(arena string) string {
	if t.end > t.start {
		return arena[t.start:t.end]
	}
	return t.lit
}

// rawField is one non-null ext field as decoded, in header order; id is its key's fieldID.
type rawField struct {
	key, val text
	id       fieldID
}

// headerDecoder decodes one header, JSON (this file) or ROCKETMQ
// (rocketmq_header.go). Every string it decodes that is not a known
// constant is copied (unescaped) into the arena, which becomes a single
// string at the end: a header costs one string allocation and one slice of
// ext fields, whatever it holds, and nothing in the command refers to the header bytes.
// A decoder is reused (Decoder, or the pool behind DecodeCommand), so its
// scratch slices are allocated once.
type headerDecoder struct {
	s     []byte
	pos   int
	arena []byte
	key   []byte // the key being matched, unescaped
	ext   []rawField
	// seen holds 1 + the index in ext of each known key read; unknown counts the others.
	seen    [numFieldIDs]int32
	unknown int
	order   []int32 // dedupUnknown's scratch

	remark, language text
	extSet           bool // the last extFields seen was an object (not null)
	// room is where the decoded ext fields go when they fit (Decoder.Decode's command has it).
	room []extField
}

func (d *headerDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: json at offset %d: %s", ErrMalformed, d.pos, fmt.Sprintf(format, args...))
}

// decodeJSONHeader fills cmd from a JSON header. See the package comment
// for what it accepts.
func decodeJSONHeader(header []byte, cmd *Command) error {
	d := getDecoder()
	defer putDecoder(d)
	return d.h.decode(header, cmd)
}

// reset prepares d for header, keeping its scratch space.
func (d *headerDecoder) reset(header []byte) {
	*d = headerDecoder{s: header, arena: d.arena[:0], key: d.key[:0], ext: d.ext[:0], order: d.order[:0], room: d.room}
}

func (d *headerDecoder) decode(header []byte, cmd *Command) error {
	d.reset(header)
	err := d.object(cmd)
	if err == nil {
		d.finish(cmd)
	}
	d.s = nil
	return err
}

// finish turns the arena into the command's strings.
func (d *headerDecoder) finish(cmd *Command) {
	arena := string(d.arena)
	cmd.Remark = d.remark.in(arena)
	cmd.Language = d.language.in(arena)
	cmd.ExtFields = d.extFields(arena)
}

func (d *headerDecoder) object(cmd *Command) error {
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
		var err error
		if d.key, err = d.appendString(d.key[:0]); err != nil {
			return err
		}
		d.skipWS()
		if !d.consume(':') {
			return d.errorf("missing ':' after key %q", d.key)
		}
		d.skipWS()
		if err := d.readHeaderField(headerKey(d.key), cmd); err != nil {
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

func (d *headerDecoder) end() error {
	d.skipWS()
	if d.pos != len(d.s) {
		return d.errorf("data after the header object")
	}
	return nil
}

// headerKeys are the keys the decoder reads; matching falls back to a
// case-insensitive comparison, as Java's and the clients' parsers do.
var headerKeys = [...]string{"code", "language", "version", "opaque", "flag", "remark", "extFields"}

// headerKey returns the header key that key names, or "" for other keys.
func headerKey(key []byte) string {
	switch string(key) {
	case "code":
		return "code"
	case "language":
		return "language"
	case "version":
		return "version"
	case "opaque":
		return "opaque"
	case "flag":
		return "flag"
	case "remark":
		return "remark"
	case "extFields":
		return "extFields"
	case "serializeTypeCurrentRPC":
		return ""
	}
	for _, k := range headerKeys {
		if strings.EqualFold(string(key), k) {
			return k
		}
	}
	return ""
}

func (d *headerDecoder) readHeaderField(key string, cmd *Command) error {
	var err error
	switch key {
	case "code":
		var v int64
		v, err = d.readInt(-1<<31, 1<<31-1)
		cmd.Code = int32(v)
	case "version":
		var v int64
		v, err = d.readInt(-1<<15, 1<<15-1)
		cmd.Version = int16(v)
	case "opaque":
		var v int64
		v, err = d.readInt(-1<<31, 1<<31-1)
		cmd.Opaque = int32(v)
	case "flag":
		var v int64
		v, err = d.readInt(-1<<31, 1<<31-1)
		cmd.Flag = int32(v)
	case "language":
		d.language, err = d.readLanguage()
	case "remark":
		if d.remark, _, err = d.readScalar(); err != nil {
			err = d.scalarError(err, string(d.key))
		}
	case "extFields":
		err = d.readExtFields()
	default:
		err = d.skipValue(0)
	}
	return err
}

func (d *headerDecoder) skipWS() {
	for d.pos < len(d.s) {
		switch d.s[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *headerDecoder) consume(c byte) bool {
	if d.pos < len(d.s) && d.s[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *headerDecoder) peek() byte {
	if d.pos < len(d.s) {
		return d.s[d.pos]
	}
	return 0
}

// readInt reads an integer field: a JSON integer, a string holding one, or
// null (zero). It reads the token in place: integers never reach the arena.
func (d *headerDecoder) readInt(lo, hi int64) (int64, error) {
	key := d.key // the name as sent, for errors; a string value goes after it
	var tok []byte
	switch c := d.peek(); {
	case c == '"':
		start := len(d.key)
		var err error
		if d.key, err = d.appendString(d.key); err != nil {
			return 0, err
		}
		tok = d.key[start:]
	case c == 'n':
		return 0, d.literal("null")
	case c == 't':
		if err := d.literal("true"); err != nil {
			return 0, err
		}
		tok = []byte("true")
	case c == 'f':
		if err := d.literal("false"); err != nil {
			return 0, err
		}
		tok = []byte("false")
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.pos
		if err := d.skipNumber(); err != nil {
			return 0, err
		}
		tok = d.s[start:d.pos]
	default:
		return 0, d.errorf("%s: expected a string, number, boolean or null", key)
	}
	v, ok := parseDecimal(tok)
	if !ok {
		// A '+' sign, 19 digits and the like: strconv decides.
		var err error
		v, err = strconv.ParseInt(string(tok), 10, 64)
		ok = err == nil
	}
	if !ok || v < lo || v > hi {
		return 0, d.errorf("%s is not a valid integer: %q", key, tok)
	}
	return v, nil
}

// parseDecimal parses an optional '-' and up to 18 decimal digits; false
// for anything else (strconv.ParseInt then has the last word).
func parseDecimal[T string | []byte](b T) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// readLanguage reads a language name, or a number that is mapped to its
// name (LanguageName). Java's names are constants, not arena text.
func (d *headerDecoder) readLanguage() (text, error) {
	if c := d.peek(); c == '-' || (c >= '0' && c <= '9') {
		start := d.pos
		if err := d.skipNumber(); err != nil {
			return text{}, err
		}
		// What strconv.ParseUint(num, 10, 8) accepts is a code; any
		// other number keeps its text.
		num := d.s[start:d.pos]
		if v, ok := parseDecimal(num); ok && num[0] != '-' && v <= 255 {
			return text{lit: LanguageName(uint8(v))}, nil
		}
		return d.toArena(num), nil
	}
	t, _, err := d.readScalar()
	if err != nil {
		return t, d.scalarError(err, "language")
	}
	if t.end > t.start {
		if name, ok := languageConst(d.arena[t.start:t.end]); ok {
			d.arena = d.arena[:t.start]
			return text{lit: name}, nil
		}
	}
	return t, err
}

// languageConst returns the constant for a Java language name.
func languageConst(b []byte) (string, bool) {
	for _, n := range languageNames {
		if string(b) == n {
			return n, true
		}
	}
	return "", false
}

// toArena copies b to the arena.
func (d *headerDecoder) toArena(b []byte) text {
	start := len(d.arena)
	d.arena = append(d.arena, b...)
	return text{start: start, end: len(d.arena)}
}

// errNotScalar is readScalar's answer to an object, an array or garbage;
// the caller names the key in the error it returns (scalarError).
var errNotScalar = errors.New("not a scalar")

// scalarError replaces errNotScalar with an error naming key.
func (d *headerDecoder) scalarError(err error, key string) error {
	if err == errNotScalar {
		return d.errorf("%s: expected a string, number, boolean or null", key)
	}
	return err
}

// readScalar reads a string, number, boolean or null and returns its text:
// the decoded string, or the literal token for the others. Objects and
// arrays are errNotScalar.
func (d *headerDecoder) readScalar() (t text, isNull bool, err error) {
	switch c := d.peek(); {
	case c == '"':
		start := len(d.arena)
		d.arena, err = d.appendString(d.arena)
		return text{start: start, end: len(d.arena)}, false, err
	case c == 'n':
		return text{}, true, d.literal("null")
	case c == 't':
		return text{lit: "true"}, false, d.literal("true")
	case c == 'f':
		return text{lit: "false"}, false, d.literal("false")
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.pos
		if err := d.skipNumber(); err != nil {
			return text{}, false, err
		}
		return d.toArena(d.s[start:d.pos]), false, nil
	}
	return text{}, false, errNotScalar
}

// readExtFields reads the extFields object; null gives a nil map. Values
// that are numbers or booleans keep their literal text, null values are
// left out, and nested objects or arrays keep their raw JSON text.
func (d *headerDecoder) readExtFields() error {
	d.clearExt()
	d.extSet = false
	if d.peek() == 'n' {
		return d.literal("null")
	}
	if !d.consume('{') {
		return d.errorf("extFields is not an object")
	}
	d.extSet = true
	d.skipWS()
	if d.consume('}') {
		return nil
	}
	for {
		d.skipWS()
		var err error
		if d.key, err = d.appendString(d.key[:0]); err != nil {
			return err
		}
		d.skipWS()
		if !d.consume(':') {
			return d.errorf("missing ':' after extFields key %q", d.key)
		}
		d.skipWS()
		var val text
		isNull := false
		if c := d.peek(); c == '{' || c == '[' {
			start := d.pos
			if err := d.skipValue(1); err != nil {
				return err
			}
			val = d.toArena(d.s[start:d.pos])
		} else if val, isNull, err = d.readScalar(); err != nil {
			return d.scalarError(err, string(d.key))
		}
		if !isNull {
			d.addExt(d.key, val)
		}
		d.skipWS()
		if d.consume(',') {
			continue
		}
		if d.consume('}') {
			return nil
		}
		return d.errorf("expected ',' or '}' in extFields")
	}
}

// skipValue skips any JSON value, checking its syntax.
func (d *headerDecoder) skipValue(depth int) error {
	if depth > maxJSONDepth {
		return d.errorf("nesting deeper than %d", maxJSONDepth)
	}
	switch c := d.peek(); {
	case c == '{':
		return d.skipComposite('}', depth, true)
	case c == '[':
		return d.skipComposite(']', depth, false)
	case c == '"':
		return d.skipString()
	case c == 'n':
		return d.literal("null")
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.skipNumber()
	}
	return d.scalarError(errNotScalar, "value")
}

func (d *headerDecoder) skipComposite(closer byte, depth int, object bool) error {
	d.pos++
	d.skipWS()
	if d.consume(closer) {
		return nil
	}
	for {
		d.skipWS()
		if object {
			if err := d.skipString(); err != nil {
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

func (d *headerDecoder) literal(lit string) error {
	if len(d.s)-d.pos >= len(lit) && string(d.s[d.pos:d.pos+len(lit)]) == lit {
		d.pos += len(lit)
		return nil
	}
	return d.errorf("invalid literal, want %s", lit)
}

// skipNumber reads a number per the JSON grammar.
func (d *headerDecoder) skipNumber() error {
	d.consume('-')
	switch c := d.peek(); {
	case c == '0':
		d.pos++
	case c >= '1' && c <= '9':
		d.digits()
	default:
		return d.errorf("invalid number")
	}
	if d.consume('.') {
		if !d.digits() {
			return d.errorf("invalid number fraction")
		}
	}
	if c := d.peek(); c == 'e' || c == 'E' {
		d.pos++
		if c := d.peek(); c == '+' || c == '-' {
			d.pos++
		}
		if !d.digits() {
			return d.errorf("invalid number exponent")
		}
	}
	return nil
}

func (d *headerDecoder) digits() bool {
	start := d.pos
	for d.pos < len(d.s) && d.s[d.pos] >= '0' && d.s[d.pos] <= '9' {
		d.pos++
	}
	return d.pos > start
}

// skipString checks a quoted string without keeping it.
func (d *headerDecoder) skipString() error {
	mark := len(d.arena)
	var err error
	d.arena, err = d.appendString(d.arena)
	d.arena = d.arena[:mark]
	return err
}

// appendString reads a quoted string and appends its unescaped content to
// dst. Runs without escapes are copied in one piece.
func (d *headerDecoder) appendString(dst []byte) ([]byte, error) {
	if !d.consume('"') {
		return dst, d.errorf("expected a string")
	}
	start := d.pos
	for d.pos < len(d.s) {
		d.pos += plainPrefix(d.s[d.pos:])
		if d.pos >= len(d.s) {
			break
		}
		c := d.s[d.pos]
		dst = append(dst, d.s[start:d.pos]...)
		switch {
		case c == '"':
			d.pos++
			return dst, nil
		case c < 0x20:
			return dst, d.errorf("control character in string")
		}
		// A backslash.
		d.pos++
		if d.pos >= len(d.s) {
			break
		}
		e := d.s[d.pos]
		d.pos++
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, err := d.readUnicodeEscape()
			if err != nil {
				return dst, err
			}
			if r < utf8.RuneSelf {
				dst = append(dst, byte(r))
			} else {
				dst = utf8.AppendRune(dst, r)
			}
		default:
			return dst, d.errorf("invalid escape \\%c", e)
		}
		start = d.pos
	}
	return dst, d.errorf("unterminated string")
}

// readUnicodeEscape reads the XXXX of \uXXXX (the "\u" is consumed), and a
// following low surrogate escape if XXXX is a high surrogate. A surrogate
// without its pair becomes U+FFFD, as in encoding/json.
func (d *headerDecoder) readUnicodeEscape() (rune, error) {
	r, ok := d.hex4()
	if !ok {
		return 0, d.errorf("invalid \\u escape")
	}
	if !utf16.IsSurrogate(r) {
		return r, nil
	}
	if r < 0xDC00 && len(d.s)-d.pos >= 2 && d.s[d.pos] == '\\' && d.s[d.pos+1] == 'u' {
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

func (d *headerDecoder) hex4() (rune, bool) {
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
