package body

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Property is one key/value pair read from a Java-properties text.
type Property struct {
	Key   string
	Value string
	Line  int // 1-based natural line on which the logical line starts
}

// ParseProperties reads data (a broker.conf or namesrv.conf, the body of UPDATE_BROKER_CONFIG or
// UPDATE_NAMESRV_CONFIG) with the rules of java.util.Properties.load:
//
//   - a natural line ends at \n, \r or \r\n; a line whose end is preceded by an odd number of
//     backslashes continues on the next one, whose leading white space is dropped;
//   - blank lines, and lines whose first non-blank character is '#' or '!', are skipped (a
//     comment never continues);
//   - the key runs to the first unescaped '=', ':' or white space (space, \t, \f); white space and
//     at most one '=' or ':' after it are skipped, and the rest of the line is the value, trailing
//     white space included;
//   - escapes \t \n \r \f and \uXXXX are decoded, any other escaped character stands for itself.
//
// Deviations: the input is taken as UTF-8 (Java's load(InputStream) reads ISO-8859-1) and a
// leading UTF-8 byte-order mark is dropped. A malformed \uXXXX escape is an error naming the line,
// as it is an exception in Java. Properties come back in file order; a repeated key appears twice
// (the caller keeps the last one, as Java does).
func ParseProperties(data []byte) ([]Property, error) {
	s := string(data)
	s = strings.TrimPrefix(s, "\uFEFF")
	r := lineReader{s: s, line: 1}
	var props []Property
	for {
		raw, line, ok := r.next()
		if !ok {
			return props, nil
		}
		p, err := splitLogicalLine(raw)
		if err != nil {
			return props, fmt.Errorf("line %d: %w", line, err)
		}
		p.Line = line
		props = append(props, p)
	}
}

func isPropSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

// lineReader yields logical lines with continuations joined and escapes left in place.
type lineReader struct {
	s    string
	pos  int
	line int // natural line number at pos
}

// next returns the next logical line that is neither blank nor a comment, and the natural line it
// starts on.
func (r *lineReader) next() (string, int, bool) {
	for r.pos < len(r.s) {
		// Start of a natural line that may begin a logical line.
		r.skipSpace()
		if r.pos >= len(r.s) {
			break
		}
		c := r.s[r.pos]
		if c == '\n' || c == '\r' {
			r.eol()
			continue
		}
		if c == '#' || c == '!' {
			r.skipToNextLine()
			continue
		}
		start := r.line
		return r.logicalLine(), start, true
	}
	return "", 0, false
}

// logicalLine reads from pos, which holds the first character of a logical line, to its end.
func (r *lineReader) logicalLine() string {
	var buf []byte
	for {
		seg, backslashes, atEOL := r.readSegment()
		if backslashes%2 == 0 {
			if atEOL {
				r.eol()
			}
			if buf == nil {
				return seg
			}
			return string(append(buf, seg...))
		}
		// An odd number of backslashes before the end: drop one and continue on the next
		// natural line, or (at the end of the input) drop it and finish.
		buf = append(buf, seg[:len(seg)-1]...)
		if !atEOL {
			return string(buf)
		}
		r.eol()
		r.skipSpace()
		if r.pos >= len(r.s) {
			return string(buf)
		}
		if c := r.s[r.pos]; c == '\n' || c == '\r' {
			// An empty continuation line ends the logical line.
			r.eol()
			return string(buf)
		}
	}
}

func (r *lineReader) skipSpace() {
	for r.pos < len(r.s) && isPropSpace(r.s[r.pos]) {
		r.pos++
	}
}

// eol consumes one line terminator (\n, \r or \r\n) at pos.
func (r *lineReader) eol() {
	if r.pos < len(r.s) && r.s[r.pos] == '\r' {
		r.pos++
		if r.pos < len(r.s) && r.s[r.pos] == '\n' {
			r.pos++
		}
	} else if r.pos < len(r.s) && r.s[r.pos] == '\n' {
		r.pos++
	}
	r.line++
}

func (r *lineReader) skipToNextLine() {
	for r.pos < len(r.s) && r.s[r.pos] != '\n' && r.s[r.pos] != '\r' {
		r.pos++
	}
	if r.pos < len(r.s) {
		r.eol()
	}
}

// readSegment reads up to (not including) the next line terminator. It reports how many
// backslashes end the segment and whether a terminator (rather than the end of input) follows.
func (r *lineReader) readSegment() (string, int, bool) {
	start := r.pos
	for r.pos < len(r.s) && r.s[r.pos] != '\n' && r.s[r.pos] != '\r' {
		r.pos++
	}
	seg := r.s[start:r.pos]
	n := 0
	for n < len(seg) && seg[len(seg)-1-n] == '\\' {
		n++
	}
	return seg, n, r.pos < len(r.s)
}

// splitLogicalLine separates key and value and decodes their escapes.
func splitLogicalLine(line string) (Property, error) {
	keyLen, valueStart := 0, len(line)
	hasSep, escaped := false, false
	for keyLen < len(line) {
		c := line[keyLen]
		if !escaped && (c == '=' || c == ':') {
			valueStart, hasSep = keyLen+1, true
			break
		}
		if !escaped && isPropSpace(c) {
			valueStart = keyLen + 1
			break
		}
		escaped = c == '\\' && !escaped
		keyLen++
	}
	for valueStart < len(line) {
		c := line[valueStart]
		if !isPropSpace(c) {
			if hasSep || (c != '=' && c != ':') {
				break
			}
			hasSep = true
		}
		valueStart++
	}
	key, err := unescape(line[:keyLen])
	if err != nil {
		return Property{}, err
	}
	value, err := unescape(line[valueStart:])
	if err != nil {
		return Property{}, err
	}
	return Property{Key: key, Value: value}, nil
}

// unescape decodes Java-properties escapes.
func unescape(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(s) {
			break // a lone trailing backslash is dropped
		}
		switch c = s[i]; c {
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 'f':
			out = append(out, '\f')
		case 'u':
			u, err := hex4(s, i+1)
			if err != nil {
				return "", err
			}
			i += 4
			r := rune(u)
			if utf16.IsSurrogate(r) && strings.HasPrefix(s[i+1:], `\u`) {
				if lo, err := hex4(s, i+3); err == nil {
					if pair := utf16.DecodeRune(r, rune(lo)); pair != utf8.RuneError {
						r = pair
						i += 6
					}
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			out = append(out, c)
		}
	}
	return string(out), nil
}

// hex4 parses the four hex digits of a \uXXXX escape starting at s[i].
func hex4(s string, i int) (uint16, error) {
	if i+4 > len(s) {
		return 0, fmt.Errorf("malformed \\uxxxx escape %q", s[i-2:])
	}
	v, err := strconv.ParseUint(s[i:i+4], 16, 16)
	if err != nil {
		return 0, fmt.Errorf("malformed \\uxxxx escape %q", s[i-2:i+4])
	}
	return uint16(v), nil
}

// EncodeProperties writes key=value lines as Java's MixAll.properties2String does for the
// config requests (GET_BROKER_CONFIG, GET_NAMESRV_CONFIG, UPDATE_*_CONFIG): one line per pair,
// in the order given, without escapes.
func EncodeProperties(props []Property) string {
	var b strings.Builder
	for _, p := range props {
		b.WriteString(p.Key + "=" + p.Value + "\n")
	}
	return b.String()
}
