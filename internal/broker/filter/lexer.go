package filter

import (
	"fmt"
	"strings"
)

// tokKind is a token of RocketMQ's SelectorParser grammar.
type tokKind uint8

const (
	tEOF tokKind = iota
	tLParen
	tRParen
	tComma
	tEq
	tNe
	tGT
	tGE
	tLT
	tLE
	tPlus
	tMinus
	tString  // 'text' with '' for a quote; token.text is the decoded value
	tDecimal // 0 | [1-9][0-9]*[lL]?
	tFloat   // 1.5, 1., .5, 1e3, 1.5E-3
	tIdent
	// Reserved words, matched without regard to case.
	tNot
	tAnd
	tOr
	tBetween
	tIn
	tTrue
	tFalse
	tNull
	tIs
	tContains
	tStartsWith
	tEndsWith
)

var keywords = [...]struct {
	word string
	kind tokKind
}{
	{"NOT", tNot}, {"AND", tAnd}, {"OR", tOr}, {"BETWEEN", tBetween}, {"IN", tIn},
	{"TRUE", tTrue}, {"FALSE", tFalse}, {"NULL", tNull}, {"IS", tIs},
	{"CONTAINS", tContains}, {"STARTSWITH", tStartsWith}, {"ENDSWITH", tEndsWith},
}

var tokNames = [...]string{
	tEOF: "end of expression", tLParen: "'('", tRParen: "')'", tComma: "','", tEq: "'='", tNe: "'<>'",
	tGT: "'>'", tGE: "'>='", tLT: "'<'", tLE: "'<='", tPlus: "'+'", tMinus: "'-'",
	tString: "string literal", tDecimal: "number", tFloat: "number", tIdent: "property name",
	tNot: "NOT", tAnd: "AND", tOr: "OR", tBetween: "BETWEEN", tIn: "IN", tTrue: "TRUE",
	tFalse: "FALSE", tNull: "NULL", tIs: "IS", tContains: "CONTAINS", tStartsWith: "STARTSWITH",
	tEndsWith: "ENDSWITH",
}

func (k tokKind) String() string { return tokNames[k] }

type token struct {
	kind tokKind
	pos  int    // byte offset in the expression
	text string // the image; for tString the decoded value
}

// SyntaxError says where and why an expression does not compile.
type SyntaxError struct {
	Pos int // byte offset in the expression
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter: invalid SQL92 expression at position %d: %s", e.Pos, e.Msg)
}

func errorAt(pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// lex splits src into tokens, ending with tEOF. Whitespace (space, tab, CR, LF, FF), -- comments
// that end with a line break, and /* */ comments separate tokens; like JavaCC, the longest match
// wins.
func lex(src string) ([]token, error) {
	var toks []token
	for i := 0; ; {
		i = skipSpaceAndComments(src, i)
		if i >= len(src) {
			return append(toks, token{kind: tEOF, pos: len(src)}), nil
		}
		t, next, err := lexOne(src, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i = next
	}
}

func skipSpaceAndComments(src string, i int) int {
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(src[i:], "--"):
			// A line comment needs its line break; without one "--" is two minus signs.
			end := strings.IndexAny(src[i:], "\r\n")
			if end < 0 {
				return i
			}
			i += end + 1
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return i // lexOne reports the stray '/'
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

func lexOne(src string, i int) (token, int, error) {
	c := src[i]
	two := ""
	if i+1 < len(src) {
		two = src[i : i+2]
	}
	switch {
	case two == "<>":
		return token{kind: tNe, pos: i}, i + 2, nil
	case two == ">=":
		return token{kind: tGE, pos: i}, i + 2, nil
	case two == "<=":
		return token{kind: tLE, pos: i}, i + 2, nil
	case c == '(':
		return token{kind: tLParen, pos: i}, i + 1, nil
	case c == ')':
		return token{kind: tRParen, pos: i}, i + 1, nil
	case c == ',':
		return token{kind: tComma, pos: i}, i + 1, nil
	case c == '=':
		return token{kind: tEq, pos: i}, i + 1, nil
	case c == '>':
		return token{kind: tGT, pos: i}, i + 1, nil
	case c == '<':
		return token{kind: tLT, pos: i}, i + 1, nil
	case c == '+':
		return token{kind: tPlus, pos: i}, i + 1, nil
	case c == '-':
		return token{kind: tMinus, pos: i}, i + 1, nil
	case c == '\'':
		return lexString(src, i)
	case isDigit(c) || (c == '.' && i+1 < len(src) && isDigit(src[i+1])):
		return lexNumber(src, i)
	case isIdentStart(c):
		j := i + 1
		for j < len(src) && isIdentPart(src[j]) {
			j++
		}
		word := src[i:j]
		for _, kw := range keywords {
			if strings.EqualFold(word, kw.word) {
				return token{kind: kw.kind, pos: i, text: word}, j, nil
			}
		}
		return token{kind: tIdent, pos: i, text: word}, j, nil
	}
	return token{}, 0, errorAt(i, "unexpected character %q", rune(c))
}

func isIdentStart(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

// lexString reads a quoted literal; two quotes stand for one.
func lexString(src string, start int) (token, int, error) {
	var b strings.Builder
	for i := start + 1; i < len(src); i++ {
		if src[i] != '\'' {
			b.WriteByte(src[i])
			continue
		}
		if i+1 < len(src) && src[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return token{kind: tString, pos: start, text: b.String()}, i + 1, nil
	}
	return token{}, 0, errorAt(start, "unterminated string literal")
}

// lexNumber reads the longest of FLOATING_POINT_LITERAL and DECIMAL_LITERAL at start.
func lexNumber(src string, start int) (token, int, error) {
	i := start
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	intDigits := i - start
	switch {
	case i < len(src) && src[i] == '.':
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		i = skipExponent(src, i)
		return token{kind: tFloat, pos: start, text: src[start:i]}, i, nil
	case intDigits > 0 && skipExponent(src, i) > i:
		i = skipExponent(src, i)
		return token{kind: tFloat, pos: start, text: src[start:i]}, i, nil
	case src[start] == '0':
		return token{kind: tDecimal, pos: start, text: "0"}, start + 1, nil // "0" takes no suffix
	}
	if i < len(src) && src[i]|0x20 == 'l' {
		i++
	}
	return token{kind: tDecimal, pos: start, text: src[start:i]}, i, nil
}

// skipExponent returns the end of an exponent e/E, sign, digits at i, or i if there is none.
func skipExponent(src string, i int) int {
	if i >= len(src) || src[i]|0x20 != 'e' {
		return i
	}
	j := i + 1
	if j < len(src) && (src[j] == '+' || src[j] == '-') {
		j++
	}
	if j >= len(src) || !isDigit(src[j]) {
		return i
	}
	for j < len(src) && isDigit(src[j]) {
		j++
	}
	return j
}
