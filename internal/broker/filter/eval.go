package filter

import (
	"bytes"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// node is one compiled expression. eval mirrors the evaluate method of the Java class it stands
// for, including the order in which operands are evaluated (which decides whether an evaluation
// failure is reached), and returns kErr where Java throws.
type node interface {
	eval(props []byte) value
}

// propNode is a property reference (Java PropertyExpression): its value, or null when absent.
type propNode struct{ name string }

func (n *propNode) eval(props []byte) value {
	if v, ok := message.LookupProperty(props, n.name); ok {
		return value{k: kString, s: v}
	}
	return vNull
}

// constNode is a literal.
type constNode struct{ v value }

func (n *constNode) eval([]byte) value { return n.v }

// negNode is unary minus: numbers negate, anything else is null.
type negNode struct{ x node }

func (n *negNode) eval(props []byte) value {
	v := n.x.eval(props)
	switch v.k {
	case kErr:
		return v
	case kInt:
		return value{k: kInt, i: int64(-int32(v.i))}
	case kLong:
		return value{k: kLong, i: -v.i}
	case kDouble:
		return value{k: kDouble, f: -v.f}
	}
	return vNull
}

// boolCastNode is a property used as a condition (Java createBooleanCast): null when absent, and
// false otherwise, since a property value is a String and never a Boolean.
type boolCastNode struct{ x node }

func (n *boolCastNode) eval(props []byte) value {
	v := n.x.eval(props)
	if v.k == kErr || v.k == kNull || v.k == kBool {
		return v
	}
	return vFalse
}

// notNode is NOT: null stays null.
type notNode struct{ x node }

func (n *notNode) eval(props []byte) value {
	v := n.x.eval(props)
	if v.k == kBool {
		return boolValue(!v.b)
	}
	return v // null or error
}

// andNode is a chain of ANDs (Java nests them to the left; evaluating the flattened chain left to
// right gives the same result): false as soon as one operand is false, else null if one was null.
type andNode struct{ xs []node }

func (n *andNode) eval(props []byte) value {
	sawNull := false
	for _, x := range n.xs {
		v := x.eval(props)
		switch {
		case v.k == kErr:
			return v
		case v.k == kBool && !v.b:
			return vFalse
		case v.k != kBool:
			sawNull = true
		}
	}
	if sawNull {
		return vNull
	}
	return vTrue
}

// orNode is a chain of ORs: true as soon as one operand is true, else null if one was null.
type orNode struct{ xs []node }

func (n *orNode) eval(props []byte) value {
	sawNull := false
	for _, x := range n.xs {
		v := x.eval(props)
		switch {
		case v.k == kErr:
			return v
		case v.k == kBool && v.b:
			return vTrue
		case v.k != kBool:
			sawNull = true
		}
	}
	if sawNull {
		return vNull
	}
	return vFalse
}

// cmpOp is an ordering operator.
type cmpOp uint8

const (
	opGT cmpOp = iota
	opGE
	opLT
	opLE
)

func (op cmpOp) String() string { return [...]string{">", ">=", "<", "<="}[op] }

func (op cmpOp) holds(c int) bool {
	switch op {
	case opGT:
		return c > 0
	case opGE:
		return c >= 0
	case opLT:
		return c < 0
	default:
		return c <= 0
	}
}

// cmpNode is >, >=, < or <=. Two strings (two properties) are both parsed as doubles; otherwise
// the operands convert as compare describes.
type cmpNode struct {
	op   cmpOp
	l, r node
}

func (n *cmpNode) eval(props []byte) value {
	l := n.l.eval(props)
	if l.k == kErr || l.k == kNull {
		return l
	}
	r := n.r.eval(props)
	if r.k == kErr || r.k == kNull {
		return r
	}
	var c int
	if l.k == kString && r.k == kString {
		a, ok1 := parseJavaDouble(l.s)
		b, ok2 := parseJavaDouble(r.s)
		if !ok1 || !ok2 {
			return vErr
		}
		c = cmpDouble(a, b)
	} else {
		var ok bool
		if c, ok = compare(l, r); !ok {
			return vErr
		}
	}
	return boolValue(n.op.holds(c))
}

// eqNode is = (and, under a notNode, <>; with NULL on the right, IS NULL). Both sides are
// evaluated first; one null side gives null if it is the left, false if the right.
type eqNode struct{ l, r node }

func (n *eqNode) eval(props []byte) value {
	l := n.l.eval(props)
	if l.k == kErr {
		return l
	}
	r := n.r.eval(props)
	if r.k == kErr {
		return r
	}
	switch {
	case l.k == kNull && r.k == kNull:
		return vTrue
	case l.k == kNull:
		return vNull
	case r.k == kNull:
		return vFalse
	}
	c, ok := compare(l, r)
	if !ok {
		return vErr
	}
	return boolValue(c == 0)
}

// inNode is [NOT] IN over string literals; its operand is always a property.
type inNode struct {
	x    node
	set  map[string]struct{}
	list [][]byte // used instead of set for short lists
	not  bool
}

func (n *inNode) eval(props []byte) value {
	v := n.x.eval(props)
	if v.k != kString {
		if v.k == kErr {
			return v
		}
		return vNull
	}
	return boolValue(n.contains(v.s) != n.not)
}

func (n *inNode) contains(s []byte) bool {
	if n.set != nil {
		_, ok := n.set[string(s)]
		return ok
	}
	for _, e := range n.list {
		if bytes.Equal(e, s) {
			return true
		}
	}
	return false
}

// strOp is one of 5.x's string tests.
type strOp uint8

const (
	opContains strOp = iota
	opStartsWith
	opEndsWith
)

func (op strOp) String() string { return [...]string{"CONTAINS", "STARTSWITH", "ENDSWITH"}[op] }

// strNode is [NOT] CONTAINS / STARTSWITH / ENDSWITH: false (never null) when the operand is
// missing or not a string, or the literal is empty; NOT only inverts a real test.
type strNode struct {
	op     strOp
	not    bool
	x      node
	search []byte
}

func (n *strNode) eval(props []byte) value {
	if len(n.search) == 0 {
		return vFalse
	}
	v := n.x.eval(props)
	if v.k != kString {
		if v.k == kErr {
			return v
		}
		return vFalse
	}
	var hit bool
	switch n.op {
	case opContains:
		hit = bytes.Contains(v.s, n.search)
	case opStartsWith:
		hit = bytes.HasPrefix(v.s, n.search)
	default:
		hit = bytes.HasSuffix(v.s, n.search)
	}
	return boolValue(hit != n.not)
}
