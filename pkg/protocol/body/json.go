package body

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxDepth bounds the nesting the tolerant decoder accepts, so hostile input cannot exhaust the stack.
const maxDepth = 256

// Marshal encodes v as compact JSON without HTML escaping (fastjson does not escape <, > or &).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// MarshalIndent encodes v as tab-indented JSON without HTML escaping, the form of the config files.
func MarshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "\t")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// Unmarshal decodes JSON written by any RocketMQ implementation into v. It accepts what Java's
// fastjson emits besides standard JSON: unquoted object keys such as {0:"a:1"}, and object keys
// such as {{"topic":"t","brokerName":"b","queueId":0}:5}, which arrive in v as strings holding the
// key object's compact JSON (see ParseMessageQueueKey).
func Unmarshal(data []byte, v any) error {
	norm, err := Normalize(data)
	if err != nil {
		return err
	}
	return json.Unmarshal(norm, v)
}

// Normalize rewrites fastjson's non-standard keys into standard JSON: a bare key token (0, -1, abc)
// becomes a quoted string, and an object or array used as a key becomes a string holding its
// normalized compact text. Everything else is copied unchanged. The result is not validated beyond
// its structure; json.Unmarshal does that.
func Normalize(data []byte) ([]byte, error) {
	n := normalizer{in: data, out: make([]byte, 0, len(data)+16)}
	n.skipSpace()
	if err := n.value(0); err != nil {
		return nil, err
	}
	n.skipSpace()
	if n.i != len(n.in) {
		return nil, n.errorf("trailing data")
	}
	return n.out, nil
}

type normalizer struct {
	in  []byte
	i   int
	out []byte
}

var errTooDeep = errors.New("body: json nested too deeply")

func (n *normalizer) errorf(format string, args ...any) error {
	return fmt.Errorf("body: json offset %d: %s", n.i, fmt.Sprintf(format, args...))
}

func (n *normalizer) skipSpace() {
	for n.i < len(n.in) {
		switch n.in[n.i] {
		case ' ', '\t', '\r', '\n':
			n.i++
		default:
			return
		}
	}
}

func (n *normalizer) value(depth int) error {
	if depth > maxDepth {
		return errTooDeep
	}
	if n.i >= len(n.in) {
		return n.errorf("unexpected end")
	}
	switch c := n.in[n.i]; {
	case c == '{':
		return n.object(depth)
	case c == '[':
		return n.array(depth)
	case c == '"':
		return n.str()
	case isTokenByte(c):
		start := n.i
		for n.i < len(n.in) && isTokenByte(n.in[n.i]) {
			n.i++
		}
		n.out = append(n.out, n.in[start:n.i]...)
		return nil
	default:
		return n.errorf("unexpected %q", c)
	}
}

func (n *normalizer) object(depth int) error {
	n.out = append(n.out, '{')
	n.i++
	n.skipSpace()
	if n.i < len(n.in) && n.in[n.i] == '}' {
		n.i++
		n.out = append(n.out, '}')
		return nil
	}
	for {
		n.skipSpace()
		if err := n.key(depth); err != nil {
			return err
		}
		n.skipSpace()
		if n.i >= len(n.in) || n.in[n.i] != ':' {
			return n.errorf("expected ':'")
		}
		n.i++
		n.out = append(n.out, ':')
		n.skipSpace()
		if err := n.value(depth + 1); err != nil {
			return err
		}
		n.skipSpace()
		if n.i >= len(n.in) {
			return n.errorf("unterminated object")
		}
		switch n.in[n.i] {
		case ',':
			n.i++
			n.out = append(n.out, ',')
		case '}':
			n.i++
			n.out = append(n.out, '}')
			return nil
		default:
			return n.errorf("expected ',' or '}'")
		}
	}
}

// key copies one object key as a quoted JSON string.
func (n *normalizer) key(depth int) error {
	if n.i >= len(n.in) {
		return n.errorf("unexpected end")
	}
	switch c := n.in[n.i]; {
	case c == '"':
		return n.str()
	case c == '{' || c == '[':
		sub := normalizer{in: n.in, i: n.i}
		if err := sub.value(depth + 1); err != nil {
			return err
		}
		n.i = sub.i
		quoted, err := json.Marshal(string(sub.out))
		if err != nil {
			return err
		}
		n.out = append(n.out, quoted...)
		return nil
	case isTokenByte(c):
		start := n.i
		for n.i < len(n.in) && isTokenByte(n.in[n.i]) {
			n.i++
		}
		n.out = append(n.out, '"')
		n.out = append(n.out, n.in[start:n.i]...)
		n.out = append(n.out, '"')
		return nil
	default:
		return n.errorf("unexpected %q in key", c)
	}
}

func (n *normalizer) array(depth int) error {
	n.out = append(n.out, '[')
	n.i++
	n.skipSpace()
	if n.i < len(n.in) && n.in[n.i] == ']' {
		n.i++
		n.out = append(n.out, ']')
		return nil
	}
	for {
		n.skipSpace()
		if err := n.value(depth + 1); err != nil {
			return err
		}
		n.skipSpace()
		if n.i >= len(n.in) {
			return n.errorf("unterminated array")
		}
		switch n.in[n.i] {
		case ',':
			n.i++
			n.out = append(n.out, ',')
		case ']':
			n.i++
			n.out = append(n.out, ']')
			return nil
		default:
			return n.errorf("expected ',' or ']'")
		}
	}
}

// str copies a string literal, escapes included, without interpreting it.
func (n *normalizer) str() error {
	start := n.i
	n.i++
	for n.i < len(n.in) {
		switch n.in[n.i] {
		case '\\':
			n.i += 2
		case '"':
			n.i++
			n.out = append(n.out, n.in[start:n.i]...)
			return nil
		default:
			n.i++
		}
	}
	n.i = len(n.in)
	return n.errorf("unterminated string")
}

// isTokenByte reports bytes that may form a bare token: numbers, true/false/null, identifiers.
func isTokenByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
		c == '-' || c == '+' || c == '.' || c == '_' || c == '$'
}
