package acl

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads the YAML subset plain_acl.yml is written in (docs/security.md lists it): block
// mappings and block sequences nested by indentation (a sequence under a key may start in the
// key's own column, as SnakeYAML writes it), single-line plain, 'single-quoted' and
// "double-quoted" scalars, one-line flow sequences of scalars ([a, 'b']), comments and a leading
// "---". Anything else YAML has (anchors, tags, block scalars, flow mappings, multi-line scalars,
// several documents) is refused with the line it is on, never guessed at.

// maxYAMLDepth bounds nesting; plain_acl.yml needs 4 levels.
const maxYAMLDepth = 32

// nodeKind is what a YAML node holds.
type nodeKind uint8

const (
	nullNode nodeKind = iota
	scalarNode
	seqNode
	mapNode
)

func (k nodeKind) String() string {
	return [...]string{"nothing", "a value", "a list", "a mapping"}[k]
}

// node is one parsed YAML node.
type node struct {
	kind  nodeKind
	line  int    // 1-based line where it starts
	value string // scalarNode
	items []*node
	keys  []string // mapNode, in file order; a repeated key keeps its last value
	vals  []*node
}

// get returns the value of key in a mapping, or nil.
func (n *node) get(key string) *node {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.vals[i]
		}
	}
	return nil
}

// yamlLine is one line with content: its indentation and its text without the comment.
type yamlLine struct {
	num    int
	indent int
	text   string
}

// YAMLError is a plain_acl.yml that this subset cannot read, with the line it is on.
type YAMLError struct {
	Line int
	Msg  string
}

func (e *YAMLError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func yamlErr(line int, format string, args ...any) error {
	return &YAMLError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// parseYAML parses data into a node tree; an empty document is a nullNode.
func parseYAML(data []byte) (*node, error) {
	lines, err := splitYAMLLines(data)
	if err != nil {
		return nil, err
	}
	p := &yamlParser{lines: lines}
	if len(lines) == 0 {
		return &node{kind: nullNode, line: 1}, nil
	}
	if lines[0].indent != 0 {
		return nil, yamlErr(lines[0].num, "the document must start in column 1")
	}
	root, err := p.block()
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.lines) {
		l := p.lines[p.pos]
		return nil, yamlErr(l.num, "unexpected %q (check its indentation)", l.text)
	}
	return root, nil
}

// splitYAMLLines drops blank and comment lines and the comments after values, and checks the
// characters: UTF-8, no tabs in indentation, no second document.
func splitYAMLLines(data []byte) ([]yamlLine, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return nil, yamlErr(1, "the file is not UTF-8 text")
	}
	var out []yamlLine
	for i, raw := range strings.Split(string(data), "\n") {
		num := i + 1
		raw = strings.TrimSuffix(raw, "\r")
		content := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(content)
		if strings.HasPrefix(content, "\t") {
			return nil, yamlErr(num, "tab in indentation; YAML indents with spaces")
		}
		text, err := stripComment(content, num)
		if err != nil {
			return nil, err
		}
		text = strings.TrimRight(text, " \t")
		switch {
		case text == "":
			continue
		case indent == 0 && (text == "---" || strings.HasPrefix(text, "--- ")):
			if len(out) > 0 {
				return nil, yamlErr(num, "a second YAML document is not supported")
			}
			if rest := strings.TrimSpace(text[3:]); rest != "" {
				return nil, yamlErr(num, "content after --- is not supported")
			}
			continue
		case indent == 0 && text == "...":
			continue
		case indent == 0 && text[0] == '%':
			return nil, yamlErr(num, "YAML directives are not supported")
		}
		out = append(out, yamlLine{num: num, indent: indent, text: text})
	}
	return out, nil
}

// stripComment cuts s at a '#' that starts a comment: one at the start or after a blank, outside
// quoted scalars. A quote opens a quoted scalar only where a value can start.
func stripComment(s string, line int) (string, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i], nil
		case (c == '\'' || c == '"') && valueStarts(s, i):
			end, err := quotedEnd(s, i, line)
			if err != nil {
				return "", err
			}
			i = end - 1
		}
	}
	return s, nil
}

// valueStarts reports whether a scalar can start at s[i]: at the start, or after ": ", "- ", "[",
// "," (blanks between allowed).
func valueStarts(s string, i int) bool {
	j := i - 1
	for j >= 0 && (s[j] == ' ' || s[j] == '\t') {
		j--
	}
	if j < 0 {
		return true
	}
	switch s[j] {
	case '[', ',':
		return true
	case ':', '-':
		return j < i-1 // a blank must follow the indicator
	}
	return false
}

// quotedEnd returns the index just past the quoted scalar that starts at s[i].
func quotedEnd(s string, i, line int) (int, error) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case q == '\'' && s[j] == '\'':
			if j+1 < len(s) && s[j+1] == '\'' {
				j++ // '' is a quote
				continue
			}
			return j + 1, nil
		case q == '"' && s[j] == '\\':
			j++
		case q == '"' && s[j] == '"':
			return j + 1, nil
		}
	}
	return 0, yamlErr(line, "unterminated quoted value (values must fit on one line)")
}

type yamlParser struct {
	lines []yamlLine
	pos   int
	depth int
}

// block parses the node that starts at the current line, whose indentation is the block's.
func (p *yamlParser) block() (*node, error) {
	p.depth++
	defer func() { p.depth-- }()
	l := p.lines[p.pos]
	if p.depth > maxYAMLDepth {
		return nil, yamlErr(l.num, "nested more than %d levels deep", maxYAMLDepth)
	}
	if isSeqItem(l.text) {
		return p.sequence(l.indent)
	}
	_, _, isKey, err := splitKey(l.text, l.num)
	switch {
	case err != nil:
		return nil, err
	case isKey:
		return p.mapping(l.indent)
	}
	p.pos++
	return scalarOrFlow(l.text, l.num)
}

func isSeqItem(text string) bool { return text == "-" || strings.HasPrefix(text, "- ") }

// sequence parses the "- " items in column indent.
func (p *yamlParser) sequence(indent int) (*node, error) {
	seq := &node{kind: seqNode, line: p.lines[p.pos].num}
	for p.pos < len(p.lines) {
		l := p.lines[p.pos]
		if l.indent < indent || (l.indent == indent && !isSeqItem(l.text)) {
			break
		}
		if l.indent > indent || !isSeqItem(l.text) {
			return nil, yamlErr(l.num, "unexpected %q inside a list (check its indentation)", l.text)
		}
		rest := strings.TrimLeft(l.text[1:], " ")
		var item *node
		var err error
		switch {
		case rest == "":
			p.pos++
			item = &node{kind: nullNode, line: l.num}
			if p.pos < len(p.lines) && p.lines[p.pos].indent > indent {
				item, err = p.block()
			}
		default:
			// "- key: value" or "- - x": the item is a block that starts in rest's column.
			col := l.indent + len(l.text) - len(rest)
			_, _, isKey, kerr := splitKey(rest, l.num)
			if kerr != nil {
				return nil, kerr
			}
			if isKey || isSeqItem(rest) {
				p.lines[p.pos] = yamlLine{num: l.num, indent: col, text: rest}
				item, err = p.block()
			} else {
				p.pos++
				item, err = scalarOrFlow(rest, l.num)
			}
		}
		if err != nil {
			return nil, err
		}
		seq.items = append(seq.items, item)
	}
	return seq, nil
}

// mapping parses the "key: value" entries in column indent.
func (p *yamlParser) mapping(indent int) (*node, error) {
	m := &node{kind: mapNode, line: p.lines[p.pos].num}
	for p.pos < len(p.lines) {
		l := p.lines[p.pos]
		if l.indent < indent || (l.indent == indent && isSeqItem(l.text)) {
			break
		}
		if l.indent > indent {
			return nil, yamlErr(l.num, "unexpected %q inside a mapping (check its indentation)", l.text)
		}
		key, rest, ok, err := splitKey(l.text, l.num)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, yamlErr(l.num, "expected \"key: value\", got %q", l.text)
		}
		p.pos++
		var val *node
		switch {
		case rest != "":
			val, err = scalarOrFlow(rest, l.num)
		case p.pos < len(p.lines) && p.lines[p.pos].indent > indent:
			val, err = p.block()
		case p.pos < len(p.lines) && p.lines[p.pos].indent == indent && isSeqItem(p.lines[p.pos].text):
			val, err = p.sequence(indent) // a list in the key's own column, as SnakeYAML writes it
		default:
			val = &node{kind: nullNode, line: l.num}
		}
		if err != nil {
			return nil, err
		}
		m.keys = append(m.keys, key)
		m.vals = append(m.vals, val)
	}
	return m, nil
}

// splitKey splits "key: rest" (rest may be empty). ok is false when text is not a mapping entry.
func splitKey(text string, line int) (key, rest string, ok bool, err error) {
	if text[0] == '"' || text[0] == '\'' {
		end, err := quotedEnd(text, 0, line)
		if err != nil {
			return "", "", false, err
		}
		after := strings.TrimLeft(text[end:], " ")
		if !strings.HasPrefix(after, ":") || (len(after) > 1 && after[1] != ' ' && after[1] != '\t') {
			return "", "", false, nil // a quoted scalar, not a key
		}
		k, err := unquote(text[:end], line)
		if err != nil {
			return "", "", false, err
		}
		return k, strings.TrimSpace(after[1:]), true, nil
	}
	if text[0] == '?' && (len(text) == 1 || text[1] == ' ') {
		return "", "", false, yamlErr(line, "complex mapping keys (\"? \") are not supported")
	}
	if text[0] == '[' || text[0] == '{' {
		return "", "", false, nil
	}
	for i := 0; i < len(text); i++ {
		if text[i] == ':' && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t') {
			key = strings.TrimRight(text[:i], " ")
			if key == "" {
				return "", "", false, yamlErr(line, "empty mapping key")
			}
			return key, strings.TrimSpace(text[i+1:]), true, nil
		}
	}
	return "", "", false, nil
}

// scalarOrFlow parses a one-line value: a scalar or a flow sequence of scalars.
func scalarOrFlow(text string, line int) (*node, error) {
	if text[0] == '[' {
		return flowSequence(text, line)
	}
	return scalar(text, line)
}

// scalar parses a plain or quoted scalar; ~, null and an empty value are nullNode.
func scalar(text string, line int) (*node, error) {
	switch text[0] {
	case '\'', '"':
		end, err := quotedEnd(text, 0, line)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(text[end:]) != "" {
			return nil, yamlErr(line, "unexpected %q after a quoted value", strings.TrimSpace(text[end:]))
		}
		v, err := unquote(text[:end], line)
		if err != nil {
			return nil, err
		}
		return &node{kind: scalarNode, line: line, value: v}, nil
	case '{':
		return nil, yamlErr(line, "flow mappings ({...}) are not supported")
	case '&':
		return nil, yamlErr(line, "anchors (&) are not supported")
	case '!':
		return nil, yamlErr(line, "tags (!) are not supported")
	case '|', '>':
		return nil, yamlErr(line, "block scalars (| and >) are not supported")
	case '@', '`':
		return nil, yamlErr(line, "a plain value cannot start with %q; quote it", text[:1])
	}
	// A plain value starting with '*' would be an alias in YAML; this subset has none, so the
	// address patterns of plain_acl.yml (*.*.*.*) are taken as written.
	switch text {
	case "~", "null", "Null", "NULL":
		return &node{kind: nullNode, line: line}, nil
	}
	return &node{kind: scalarNode, line: line, value: text}, nil
}

// flowSequence parses "[a, 'b', c]" (scalars only, on one line).
func flowSequence(text string, line int) (*node, error) {
	seq := &node{kind: seqNode, line: line}
	i := 1
	for {
		for i < len(text) && text[i] == ' ' {
			i++
		}
		if i >= len(text) {
			return nil, yamlErr(line, "unterminated [ list (lists in brackets must fit on one line)")
		}
		if text[i] == ']' { // "[]", or a trailing comma
			i++
			break
		}
		start := i
		if text[i] == '\'' || text[i] == '"' {
			end, err := quotedEnd(text, i, line)
			if err != nil {
				return nil, err
			}
			i = end
		} else if text[i] == '[' || text[i] == '{' {
			return nil, yamlErr(line, "nested collections in a [ list are not supported")
		}
		for i < len(text) && text[i] != ',' && text[i] != ']' {
			i++
		}
		item := strings.TrimSpace(text[start:i])
		if item == "" {
			return nil, yamlErr(line, "empty item in [ list")
		}
		n, err := scalar(item, line)
		if err != nil {
			return nil, err
		}
		seq.items = append(seq.items, n)
		if i >= len(text) {
			return nil, yamlErr(line, "unterminated [ list (lists in brackets must fit on one line)")
		}
		i++
		if text[i-1] == ']' {
			break
		}
	}
	if rest := strings.TrimSpace(text[i:]); rest != "" {
		return nil, yamlErr(line, "unexpected %q after a [ list", rest)
	}
	return seq, nil
}

// unquote decodes a whole quoted scalar, quotes included.
func unquote(q string, line int) (string, error) {
	if q[0] == '\'' {
		return strings.ReplaceAll(q[1:len(q)-1], "''", "'"), nil
	}
	var b strings.Builder
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", yamlErr(line, "dangling \\ in a quoted value")
		}
		switch e := s[i]; e {
		case '"', '\\', '/', ' ':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+1+n > len(s) {
				return "", yamlErr(line, "short \\%c escape in a quoted value", e)
			}
			r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(r)) {
				return "", yamlErr(line, "bad \\%c escape in a quoted value", e)
			}
			b.WriteRune(rune(r))
			i += n
		default:
			return "", yamlErr(line, "unknown escape \\%c in a quoted value", e)
		}
	}
	return b.String(), nil
}
