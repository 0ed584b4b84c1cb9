package filter

import (
	"errors"
	"fmt"
	"sync"
)

// ErrEmpty is returned for an empty expression (Java: "Expression can't be null!").
var ErrEmpty = errors.New("filter: empty SQL92 expression")

// Expr is a compiled SQL92 selector. It is immutable and safe for concurrent use.
type Expr struct {
	src  string
	root node
}

// Compile parses a SQL92 selector. It fails for an expression Java's SelectorParser refuses (see
// docs/filters.md for the few it accepts and Java does not), and for one longer than
// MaxExpressionLen or nested deeper than MaxNesting / MaxDepth.
func Compile(src string) (*Expr, error) {
	if len(src) > MaxExpressionLen {
		return nil, fmt.Errorf("filter: SQL92 expression of %d bytes exceeds the limit of %d", len(src), MaxExpressionLen)
	}
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	if len(toks) == 1 {
		return nil, ErrEmpty
	}
	p := &parser{toks: toks}
	root, err := p.parse()
	if err != nil {
		return nil, err
	}
	return &Expr{src: src, root: root}, nil
}

// Match reports whether a message with these encoded properties (key\x01value\x02..., user and
// system properties alike, TAGS included) is selected: the expression evaluates to TRUE. NULL
// (a missing property decided it) and an evaluation failure (a property that does not convert to
// the type it is compared with) do not match. Match does not allocate.
func (e *Expr) Match(props []byte) bool {
	v := e.root.eval(props)
	return v.k == kBool && v.b
}

// String returns the expression's source.
func (e *Expr) String() string { return e.src }

// Cache compiles expressions once and keeps up to a fixed number of results, failures included,
// as Java's SelectorParser does. It is safe for concurrent use.
type Cache struct {
	max int

	mu      sync.Mutex
	entries map[string]cached
}

type cached struct {
	expr *Expr
	err  error
}

// NewCache returns a cache of at most max entries (100 when max ≤ 0).
func NewCache(max int) *Cache {
	if max <= 0 {
		max = 100
	}
	return &Cache{max: max, entries: make(map[string]cached)}
}

// Compile returns the compiled src, compiling it on first use.
func (c *Cache) Compile(src string) (*Expr, error) {
	c.mu.Lock()
	if e, ok := c.entries[src]; ok {
		c.mu.Unlock()
		return e.expr, e.err
	}
	c.mu.Unlock()
	expr, err := Compile(src)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		for k := range c.entries { // evict an arbitrary entry
			delete(c.entries, k)
			break
		}
	}
	c.entries[src] = cached{expr: expr, err: err}
	return expr, err
}

// Len is the number of cached expressions.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
