package filter

import (
	"bytes"
	"math"
	"strconv"
)

// kind is the Java type of a value during evaluation.
type kind uint8

const (
	kNull   kind = iota // Java null: a missing property, NULL, or an unknown result
	kBool               // Boolean
	kInt                // Integer: a decimal literal within int range
	kLong               // Long: a decimal literal beyond int range
	kDouble             // Double: a floating-point literal
	kString             // String: a property value or a string literal
	kErr                // Java threw: the selector as a whole does not match
)

// value is one evaluation result. It is passed by value and never allocates: a string points into
// the message's encoded properties or into the compiled expression.
type value struct {
	k kind
	b bool
	i int64
	f float64
	s []byte
}

var (
	vNull  = value{}
	vErr   = value{k: kErr}
	vTrue  = value{k: kBool, b: true}
	vFalse = value{k: kBool}
)

func boolValue(b bool) value {
	if b {
		return vTrue
	}
	return vFalse
}

func (v value) isNumber() bool { return v.k == kInt || v.k == kLong || v.k == kDouble }

// compare orders two non-null values the way Java's ComparisonExpression.__compare does with
// string conversion on (RocketMQ always turns it on): when the types differ, numbers widen
// (Integer → Long → Double), and a String meeting a Boolean, Integer, Long or Double is parsed as
// that type. ok is false when that parse fails, or a Boolean meets a String on the left (Java
// throws in both cases). Other mismatches (a number and a Boolean) compare as -1, as in Java.
func compare(l, r value) (c int, ok bool) {
	if l.k == r.k {
		switch l.k {
		case kBool:
			return cmpBool(l.b, r.b), true
		case kInt, kLong:
			return cmpInt(l.i, r.i), true
		case kDouble:
			return cmpDouble(l.f, r.f), true
		case kString:
			return bytes.Compare(l.s, r.s), true
		}
		return -1, true
	}
	switch l.k {
	case kBool:
		if r.k == kString {
			return 0, false // Java casts the Boolean to String: ClassCastException
		}
	case kInt, kLong:
		switch r.k {
		case kInt, kLong:
			return cmpInt(l.i, r.i), true
		case kDouble:
			return cmpDouble(float64(l.i), r.f), true
		case kString:
			n, ok := parseJavaInteger(r.s, l.k == kInt)
			return cmpInt(l.i, n), ok
		}
	case kDouble:
		switch r.k {
		case kInt, kLong:
			return cmpDouble(l.f, float64(r.i)), true
		case kString:
			d, ok := parseJavaDouble(r.s)
			return cmpDouble(l.f, d), ok
		}
	case kString:
		switch r.k {
		case kBool:
			return cmpBool(isTrueIgnoreCase(l.s), r.b), true
		case kInt, kLong:
			n, ok := parseJavaInteger(l.s, r.k == kInt)
			return cmpInt(n, r.i), ok
		case kDouble:
			d, ok := parseJavaDouble(l.s)
			return cmpDouble(d, r.f), ok
		}
	}
	return -1, true
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	default:
		return 1
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	default:
		return 0
	}
}

// cmpDouble is Java's Double.compare: NaN equals NaN and is above +Inf; -0.0 is below 0.0.
func cmpDouble(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ab, bb := javaDoubleBits(a), javaDoubleBits(b)
	switch {
	case ab == bb:
		return 0
	case ab < bb:
		return -1
	default:
		return 1
	}
}

// javaDoubleBits is Double.doubleToLongBits: every NaN is the canonical one.
func javaDoubleBits(f float64) int64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

// isTrueIgnoreCase is Boolean.valueOf(String): "true" in any case.
func isTrueIgnoreCase(s []byte) bool {
	return len(s) == 4 && s[0]|0x20 == 't' && s[1]|0x20 == 'r' && s[2]|0x20 == 'u' && s[3]|0x20 == 'e'
}

// parseJavaInteger is Integer.parseInt (narrow) or Long.parseLong over ASCII: an optional sign and
// at least one decimal digit, nothing else, within range.
func parseJavaInteger(s []byte, narrow bool) (int64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	neg := s[0] == '-'
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
		if len(s) == 0 {
			return 0, false
		}
	}
	limit := uint64(math.MaxInt64)
	if narrow {
		limit = math.MaxInt32
	}
	if neg {
		limit++
	}
	var n uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		return -int64(n-1) - 1, true // n may be 2^63
	}
	return int64(n), true
}

// parseJavaDouble is Double.valueOf(String): surrounding characters up to ' ' trimmed, an optional
// sign, then NaN, Infinity, a decimal number with optional exponent, or a hexadecimal one with a
// binary exponent; an f, F, d or D suffix is ignored. It does not allocate for strings of up to 32
// bytes.
func parseJavaDouble(s []byte) (float64, bool) {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	if len(s) == 0 {
		return 0, false
	}
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	switch string(body) {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if s[0] == '-' {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(s); n > 1 {
		switch s[n-1] {
		case 'f', 'F', 'd', 'D':
			s, body = s[:n-1], body[:len(body)-1]
		}
	}
	var valid bool
	if len(body) > 1 && body[0] == '0' && body[1]|0x20 == 'x' {
		valid = validHexFloat(body[2:])
	} else {
		valid = validDecimalFloat(body)
	}
	if !valid {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil && !isRangeError(err) {
		return 0, false
	}
	return f, true // out of range: ±Inf or 0, as Java gives
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// validDecimalFloat: digits, an optional point with digits (at least one digit in all), then an
// optional exponent e/E, sign, digits.
func validDecimalFloat(s []byte) bool {
	i, digits := 0, 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// validHexFloat is what follows 0x: hex digits, an optional point with hex digits (at least one
// digit in all), then the mandatory binary exponent p/P, sign, decimal digits.
func validHexFloat(s []byte) bool {
	i, digits := 0, 0
	for i < len(s) && isHexDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isHexDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 || i == len(s) || s[i]|0x20 != 'p' {
		return false
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i > start && i == len(s)
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
