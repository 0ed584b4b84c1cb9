package filter

import (
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"a > 5 AND color = 'red'", "a BETWEEN 1 AND 10", "a NOT BETWEEN -1.5 AND 2e3", "TAGS IN ('TagA', 'TagB')",
	"color NOT IN ('x')", "a IS NULL OR b IS NOT NULL", "NOT (a = 1)", "s CONTAINS 'x' AND s NOT STARTSWITH 'y'",
	"s ENDSWITH 'z'", "TRUE", "flag = FALSE", "a = 10L", "a > .5e-3", "0>0>0>0", "(a > 1) = (b < 2)", "'it''s' = q",
	"a > 5 /* c */ -- d\n AND b < 3", "- - 5 < a", "NOT NOT flag", "a = 1 = TRUE", "a = 0x10", // no hex literals
	"a IN ('a','b','c','d','e','f','g','h','i')",
}

// FuzzCompile: no input panics or hangs the parser, and whatever compiles evaluates without panic.
func FuzzCompile(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add(strings.Repeat("(", 200) + "a")
	f.Add(strings.Repeat("NOT ", 200) + "a")
	msgs := [][]byte{nil, msg, props("a", "1", "b", "x", "s", "xyz", "color", "red", "flag", "TRUE", "q", "it's")}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Compile(src)
		if err != nil {
			if e != nil {
				t.Fatalf("%q: an expression and an error", src)
			}
			return
		}
		if e.String() != src {
			t.Fatalf("String() = %q, want %q", e.String(), src)
		}
		for _, m := range msgs {
			e.Match(m)
		}
	})
}

// FuzzMatch evaluates seed expressions against arbitrary encoded properties.
func FuzzMatch(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(i, []byte(msg))
		f.Add(i, []byte("a\x01"+s+"\x02b\x01\x01\x02"))
	}
	var exprs []*Expr
	for _, s := range fuzzSeeds {
		if e, err := Compile(s); err == nil {
			exprs = append(exprs, e)
		}
	}
	if len(exprs) < len(fuzzSeeds)-2 { // two seeds are errors
		f.Fatalf("only %d of the %d seeds compile", len(exprs), len(fuzzSeeds))
	}
	f.Fuzz(func(t *testing.T, i int, props []byte) {
		if i < 0 {
			i = -i
		}
		exprs[i%len(exprs)].Match(props)
	})
}
