package filter

import (
	"math"
	"strconv"
)

// Limits on what Compile accepts.
const (
	// MaxExpressionLen bounds the source of an expression, in bytes.
	MaxExpressionLen = 64 << 10
	// MaxNesting bounds parentheses and prefix operators (NOT, -, +) nested in one another.
	MaxNesting = 100
	// MaxDepth bounds the depth of the compiled expression tree (and so evaluation's recursion).
	MaxDepth = 400
	// inSetThreshold is the IN list length from which a map replaces the linear scan.
	inSetThreshold = 8
)

// class is what Java's parse-time checks know of an expression: whether it is a constant, a
// property, a boolean expression, or something else (a negation).
type class uint8

const (
	clsOther     class = iota // -x
	clsProperty               // a property reference
	clsConst                  // a number or string literal
	clsBoolConst              // TRUE, FALSE, NULL (Java BooleanConstantExpression)
	clsBool                   // a condition: comparison, IN, NOT, AND, ...
)

// expr is a node under construction with what the parser checks about it.
type expr struct {
	n     node
	cls   class
	c     value // the literal's value for clsConst and clsBoolConst
	depth int
}

func (e expr) isConst() bool { return e.cls == clsConst || e.cls == clsBoolConst }
func (e expr) isBool() bool  { return e.cls == clsBool || e.cls == clsBoolConst }

type parser struct {
	toks    []token
	pos     int
	nesting int
}

func (p *parser) peek() token       { return p.toks[p.pos] }
func (p *parser) peekKind() tokKind { return p.toks[p.pos].kind }

func (p *parser) peek2() tokKind {
	if p.pos+1 < len(p.toks) {
		return p.toks[p.pos+1].kind
	}
	return tEOF
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) expect(k tokKind) (token, error) {
	t := p.next()
	if t.kind != k {
		return t, errorAt(t.pos, "expected %v, found %v", k, describe(t))
	}
	return t, nil
}

func describe(t token) string {
	if t.text != "" && t.kind != tString {
		return strconv.Quote(t.text)
	}
	return t.kind.String()
}

// parse is JmsSelector: an OR expression that must be a condition.
func (p *parser) parse() (node, error) {
	e, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, errorAt(t.pos, "unexpected %v", describe(t))
	}
	b, err := p.asBool(e, 0)
	if err != nil {
		return nil, err
	}
	return b.n, nil
}

// asBool is Java's asBooleanExpression: conditions pass, a property becomes a boolean cast, and
// anything else is an error.
func (p *parser) asBool(e expr, pos int) (expr, error) {
	switch {
	case e.isBool():
		return e, nil
	case e.cls == clsProperty:
		return p.make(&boolCastNode{x: e.n}, clsBool, e)
	}
	return expr{}, errorAt(pos, "expression will not result in a boolean value")
}

// make wraps n, built over children, checking the depth limit.
func (p *parser) make(n node, cls class, children ...expr) (expr, error) {
	d := 0
	for _, c := range children {
		d = max(d, c.depth)
	}
	if d+1 > MaxDepth {
		return expr{}, errorAt(p.peek().pos, "expression nested deeper than %d", MaxDepth)
	}
	return expr{n: n, cls: cls, depth: d + 1}, nil
}

func (p *parser) orExpr() (expr, error)  { return p.chain(tOr, p.andExpr) }
func (p *parser) andExpr() (expr, error) { return p.chain(tAnd, p.equalityExpr) }

// chain parses operand (op operand)* for op AND or OR into one n-ary node, with the operands of
// nested chains of the same operator taken into it.
func (p *parser) chain(op tokKind, operand func() (expr, error)) (expr, error) {
	poss := []int{p.peek().pos}
	first, err := operand()
	if err != nil || p.peekKind() != op {
		return first, err
	}
	parts := []expr{first}
	for p.peekKind() == op {
		p.next()
		poss = append(poss, p.peek().pos)
		e, err := operand()
		if err != nil {
			return expr{}, err
		}
		parts = append(parts, e)
	}
	var xs []node
	for i, e := range parts {
		b, err := p.asBool(e, poss[i])
		if err != nil {
			return expr{}, err
		}
		switch n := b.n.(type) {
		case *andNode:
			if op == tAnd {
				xs = append(xs, n.xs...)
				continue
			}
		case *orNode:
			if op == tOr {
				xs = append(xs, n.xs...)
				continue
			}
		}
		xs = append(xs, b.n)
	}
	var n node = &orNode{xs: xs}
	if op == tAnd {
		n = &andNode{xs: xs}
	}
	return p.make(n, clsBool, parts...)
}

// equalityExpr: comparison ( = comparison | <> comparison | IS NULL | IS NOT NULL )*
func (p *parser) equalityExpr() (expr, error) {
	left, err := p.comparisonExpr()
	for err == nil {
		t := p.peek()
		switch {
		case t.kind == tEq || t.kind == tNe:
			p.next()
			left, err = p.equality(left, t.kind == tNe, t.pos)
		case t.kind == tIs && p.peek2() == tNull:
			p.next()
			p.next()
			left, err = p.isNull(left, false)
		case t.kind == tIs && p.peek2() == tNot:
			p.next()
			p.next()
			if _, err = p.expect(tNull); err == nil {
				left, err = p.isNull(left, true)
			}
		case t.kind == tIs:
			p.next()
			err = errorAt(p.peek().pos, "expected NULL or NOT NULL after IS, found %v", describe(p.peek()))
		default:
			return left, nil
		}
	}
	return expr{}, err
}

// equality parses the right operand of = or <>; a <> b is NOT (a = b).
func (p *parser) equality(left expr, negate bool, pos int) (expr, error) {
	right, err := p.comparisonExpr()
	if err != nil {
		return expr{}, err
	}
	if err := checkEqualOperands(left, right, pos); err != nil {
		return expr{}, err
	}
	eq, err := p.make(&eqNode{l: left.n, r: right.n}, clsBool, left, right)
	if err != nil || !negate {
		return eq, err
	}
	return p.make(&notNode{x: eq.n}, clsBool, eq)
}

// isNull is x IS NULL, Java's x = NULL without the checks; IS NOT NULL is NOT of it.
func (p *parser) isNull(x expr, negate bool) (expr, error) {
	eq, err := p.make(&eqNode{l: x.n, r: &constNode{}}, clsBool, x)
	if err != nil || !negate {
		return eq, err
	}
	return p.make(&notNode{x: eq.n}, clsBool, eq)
}

// checkEqualOperands applies Java's checks for = and <>: neither side the NULL literal, and not a
// boolean literal on the left compared with a non-boolean literal on the right.
func checkEqualOperands(l, r expr, pos int) error {
	for _, e := range []expr{l, r} {
		if e.isConst() && e.c.k == kNull {
			return errorAt(pos, "NULL cannot be compared with = or <>; use IS NULL")
		}
	}
	if l.isConst() && r.isConst() && l.cls == clsBoolConst && r.cls != clsBoolConst {
		return errorAt(pos, "a boolean literal cannot be compared with a non-boolean literal")
	}
	return nil
}

// checkOrderOperand applies Java's check for >, >=, <, <= (and BETWEEN): a literal must be a
// number, and a condition cannot be ordered.
func checkOrderOperand(e expr, pos int) error {
	if e.isConst() {
		if !e.c.isNumber() {
			return errorAt(pos, "only numbers can be compared with >, >=, <, <= or BETWEEN")
		}
		return nil
	}
	if e.isBool() {
		return errorAt(pos, "a condition cannot be compared with >, >=, <, <= or BETWEEN")
	}
	return nil
}

func (p *parser) ordered(op cmpOp, l, r expr, pos int) (expr, error) {
	if err := checkOrderOperand(l, pos); err != nil {
		return expr{}, err
	}
	if err := checkOrderOperand(r, pos); err != nil {
		return expr{}, err
	}
	return p.make(&cmpNode{op: op, l: l.n, r: r.n}, clsBool, l, r)
}

// orderOp is the operator a token stands for, if it is >, >=, < or <=.
func orderOp(k tokKind) (cmpOp, bool) {
	switch k {
	case tGT:
		return opGT, true
	case tGE:
		return opGE, true
	case tLT:
		return opLT, true
	case tLE:
		return opLE, true
	}
	return 0, false
}

// stringOp is the test a token stands for, if it is CONTAINS, STARTSWITH or ENDSWITH.
func stringOp(k tokKind) (strOp, bool) {
	switch k {
	case tContains:
		return opContains, true
	case tStartsWith:
		return opStartsWith, true
	case tEndsWith:
		return opEndsWith, true
	}
	return 0, false
}

// comparisonExpr: unary ( > unary | >= | < | <= | [NOT] CONTAINS/STARTSWITH/ENDSWITH 'str'
// | [NOT] BETWEEN unary AND unary | [NOT] IN ('str', ...) )*
func (p *parser) comparisonExpr() (expr, error) {
	left, err := p.unaryExpr()
	if err != nil {
		return expr{}, err
	}
	for {
		t := p.peek()
		not := false
		kind := t.kind
		if kind == tNot {
			switch p.peek2() {
			case tContains, tStartsWith, tEndsWith, tBetween, tIn:
				not, kind = true, p.peek2()
				p.next()
			default:
				return left, nil
			}
		}
		cmp, isOrder := orderOp(kind)
		str, isString := stringOp(kind)
		var err error
		switch {
		case isOrder:
			p.next()
			left, err = p.orderedOperand(cmp, left, t.pos)
		case isString:
			p.next()
			left, err = p.stringTest(str, not, left)
		case kind == tBetween:
			p.next()
			left, err = p.between(left, not, t.pos)
		case kind == tIn:
			p.next()
			left, err = p.in(left, not, t.pos)
		default:
			return left, nil
		}
		if err != nil {
			return expr{}, err
		}
	}
}

// orderedOperand parses the right operand of >, >=, < or <=.
func (p *parser) orderedOperand(op cmpOp, left expr, pos int) (expr, error) {
	right, err := p.unaryExpr()
	if err != nil {
		return expr{}, err
	}
	return p.ordered(op, left, right, pos)
}

// stringTest parses the literal of [NOT] CONTAINS / STARTSWITH / ENDSWITH.
func (p *parser) stringTest(op strOp, not bool, left expr) (expr, error) {
	s, err := p.expect(tString)
	if err != nil {
		return expr{}, err
	}
	return p.make(&strNode{op: op, not: not, x: left.n, search: []byte(s.text)}, clsBool, left)
}

// between builds x >= low AND x <= high, or x < low OR x > high for NOT BETWEEN. With two literal
// bounds, Java requires low <= high.
func (p *parser) between(x expr, not bool, pos int) (expr, error) {
	low, err := p.unaryExpr()
	if err != nil {
		return expr{}, err
	}
	if _, err := p.expect(tAnd); err != nil {
		return expr{}, err
	}
	high, err := p.unaryExpr()
	if err != nil {
		return expr{}, err
	}
	if not {
		lt, err := p.ordered(opLT, x, low, pos)
		if err != nil {
			return expr{}, err
		}
		gt, err := p.ordered(opGT, x, high, pos)
		if err != nil {
			return expr{}, err
		}
		return p.make(&orNode{xs: []node{lt.n, gt.n}}, clsBool, lt, gt)
	}
	if low.isConst() && high.isConst() {
		if low.c.k == kNull || high.c.k == kNull {
			return expr{}, errorAt(pos, "BETWEEN bounds cannot be NULL")
		}
		if c, ok := compare(high.c, low.c); !ok || c < 0 {
			return expr{}, errorAt(pos, "BETWEEN needs its lower bound first")
		}
	}
	ge, err := p.ordered(opGE, x, low, pos)
	if err != nil {
		return expr{}, err
	}
	le, err := p.ordered(opLE, x, high, pos)
	if err != nil {
		return expr{}, err
	}
	return p.make(&andNode{xs: []node{ge.n, le.n}}, clsBool, ge, le)
}

// in parses ('str', ...) after [NOT] IN; the tested expression must be a property.
func (p *parser) in(x expr, not bool, pos int) (expr, error) {
	if x.cls != clsProperty {
		return expr{}, errorAt(pos, "IN needs a property on its left")
	}
	if _, err := p.expect(tLParen); err != nil {
		return expr{}, err
	}
	var items []string
	for {
		s, err := p.expect(tString)
		if err != nil {
			return expr{}, err
		}
		items = append(items, s.text)
		if p.peekKind() != tComma {
			break
		}
		p.next()
	}
	if _, err := p.expect(tRParen); err != nil {
		return expr{}, err
	}
	n := &inNode{x: x.n, not: not}
	if len(items) >= inSetThreshold {
		n.set = make(map[string]struct{}, len(items))
		for _, s := range items {
			n.set[s] = struct{}{}
		}
	} else {
		for _, s := range items {
			n.list = append(n.list, []byte(s))
		}
	}
	return p.make(n, clsBool, x)
}

// unaryExpr: + unary | - unary | NOT unary | primary
func (p *parser) unaryExpr() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tPlus, tMinus, tNot:
	default:
		return p.primaryExpr()
	}
	if err := p.enter(t.pos); err != nil {
		return expr{}, err
	}
	defer p.leave()
	p.next()
	pos := p.peek().pos
	x, err := p.unaryExpr()
	if err != nil {
		return expr{}, err
	}
	switch t.kind {
	case tPlus:
		return x, nil
	case tMinus:
		return p.make(&negNode{x: x.n}, clsOther, x)
	}
	if x, err = p.asBool(x, pos); err != nil {
		return expr{}, err
	}
	return p.make(&notNode{x: x.n}, clsBool, x)
}

func (p *parser) enter(pos int) error {
	p.nesting++
	if p.nesting > MaxNesting {
		return errorAt(pos, "expression nested deeper than %d", MaxNesting)
	}
	return nil
}

func (p *parser) leave() { p.nesting-- }

// primaryExpr: literal | property | ( orExpr )
func (p *parser) primaryExpr() (expr, error) {
	t := p.next()
	switch t.kind {
	case tLParen:
		if err := p.enter(t.pos); err != nil {
			return expr{}, err
		}
		defer p.leave()
		e, err := p.orExpr()
		if err != nil {
			return expr{}, err
		}
		if _, err := p.expect(tRParen); err != nil {
			return expr{}, err
		}
		return e, nil
	case tIdent:
		return expr{n: &propNode{name: t.text}, cls: clsProperty, depth: 1}, nil
	case tString:
		return constant(value{k: kString, s: []byte(t.text)}, clsConst), nil
	case tTrue:
		return constant(vTrue, clsBoolConst), nil
	case tFalse:
		return constant(vFalse, clsBoolConst), nil
	case tNull:
		return constant(vNull, clsBoolConst), nil
	case tDecimal:
		v, err := decimalLiteral(t)
		return constant(v, clsConst), err
	case tFloat:
		v, err := floatLiteral(t)
		return constant(v, clsConst), err
	}
	return expr{}, errorAt(t.pos, "unexpected %v", describe(t))
}

func constant(v value, cls class) expr {
	return expr{n: &constNode{v: v}, cls: cls, c: v, depth: 1}
}

// decimalLiteral is an Integer when it fits in an int, else a Long; an L suffix is dropped.
func decimalLiteral(t token) (value, error) {
	text := t.text
	if n := len(text); text[n-1]|0x20 == 'l' {
		text = text[:n-1]
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return vNull, errorAt(t.pos, "number %s is out of the long range", t.text)
	}
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return value{k: kInt, i: n}, nil
	}
	return value{k: kLong, i: n}, nil
}

// floatLiteral is a Double; Java refuses one that overflows to infinity.
func floatLiteral(t token) (value, error) {
	f, err := strconv.ParseFloat(t.text, 64)
	if err != nil || math.IsInf(f, 0) {
		return vNull, errorAt(t.pos, "number %s is out of the double range", t.text)
	}
	return value{k: kDouble, f: f}, nil
}
