package filter

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

func props(kv ...string) []byte {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return []byte(message.EncodeProperties(m))
}

// The message most cases run against.
var msg = props("a", "10", "b", "2.5", "color", "red", "TAGS", "TagA", "flag", "true", "neg", "-3",
	"big", "10000000000", "word", "abc", "empty", "x", "quote", "it's", "sp", " 7 ", "nan", "NaN",
	"KEYS", "k1 k2", "UNIQ_KEY", "7F0000010001", "s", "hello world")

// TestMatch is the evaluation table: each expression against msg, with Java's answer.
func TestMatch(t *testing.T) {
	cases := []struct {
		expr string
		want bool
	}{
		// Numbers: a property parses as the literal's type.
		{"a > 5", true},
		{"a > 10", false},
		{"a >= 10", true},
		{"a < 11", true},
		{"a <= 9", false},
		{"a = 10", true},
		{"a = 10.0", true},
		{"a <> 10", false},
		{"a <> 11", true},
		{"a = 10L", true},
		{"a > 5.5", true},
		{"b > 2", false},   // "2.5" is not an Integer: Java throws, so no match
		{"b > 2.4", true},  // a double literal parses the property as a Double
		{"b < 2.6", true},  //
		{"b = 2.5", true},  //
		{"big > 5", false}, // beyond int: Integer.valueOf throws
		{"big > 9999999999", true},
		{"big = 10000000000", true},
		{"neg < 0", true},
		{"neg = -3", true},
		{"neg = - 3", true},
		{"neg > -4", true},
		{"-neg = 3", false}, // negating a String gives null
		{"sp = 7", false},   // Integer.parseInt does not trim
		{"sp = 7.0", true},  // Double.valueOf does
		{"nan = 1.0", false},
		{"nan > 1e308", true}, // Java orders NaN above everything
		{"a > +5", true},
		{"a BETWEEN 5 AND 10", true},
		{"a BETWEEN 11 AND 20", false},
		{"a BETWEEN 10 AND 10", true},
		{"a BETWEEN -5 AND 9.5", false},
		{"a NOT BETWEEN 11 AND 20", true},
		{"a NOT BETWEEN 5 AND 10", false},
		{"a BETWEEN b AND 20", true}, // property bound: both strings as doubles
		{"a > b", true},              // two properties: both parsed as doubles
		{"b > a", false},
		{"a > word", false}, // "abc" is no double: throws
		{"a = word", false},

		// Strings.
		{"color = 'red'", true},
		{"color = 'RED'", false},
		{"color <> 'blue'", true},
		{"color = 'red' AND a > 5", true},
		{"quote = 'it''s'", true},
		{"color = 5", false}, // "red" is no Integer: throws
		{"10 = a", true},
		{"5 = a", false},
		{"'10' = 10", true},
		{"color IN ('blue', 'red')", true},
		{"color IN ('blue', 'green')", false},
		{"color NOT IN ('blue', 'green')", true},
		{"color NOT IN ('red')", false},
		{"color IN ('a','b','c','d','e','f','g','h','red')", true},
		{"color IN ('a','b','c','d','e','f','g','h','i')", false},
		{"color NOT IN ('a','b','c','d','e','f','g','h','i')", true},
		{"TAGS = 'TagA'", true},
		{"TAGS IN ('TagA', 'TagB')", true},
		{"KEYS = 'k1 k2'", true},
		{"UNIQ_KEY IS NOT NULL", true},

		// 5.x string tests.
		{"s CONTAINS 'lo w'", true},
		{"s CONTAINS 'xyz'", false},
		{"s NOT CONTAINS 'xyz'", true},
		{"s NOT CONTAINS 'hello'", false},
		{"s STARTSWITH 'hell'", true},
		{"s STARTSWITH 'world'", false},
		{"s NOT STARTSWITH 'world'", true},
		{"s ENDSWITH 'world'", true},
		{"s NOT ENDSWITH 'world'", false},
		{"s CONTAINS ''", false}, // an empty search is false, NOT or not
		{"s NOT CONTAINS ''", false},
		{"missing CONTAINS 'a'", false},
		{"missing NOT CONTAINS 'a'", false},
		{"NOT (missing CONTAINS 'a')", true}, // false, not null, for a missing property
		{"a CONTAINS '1'", true},

		// Booleans.
		{"TRUE", true},
		{"FALSE", false},
		{"NULL", false},
		{"flag = TRUE", true},
		{"flag = FALSE", false},
		{"color = TRUE", false}, // Boolean.valueOf("red") is false
		{"flag", false},         // a property as a condition is false when present...
		{"NOT flag", true},      // ...so NOT of it is true
		{"missing", false},      // ...and null when absent
		{"NOT missing", false},
		{"(a > 5) = TRUE", true},
		{"(a > 5) = (b < 1)", false},
		{"TRUE = TRUE", true},
		{"TRUE = flag", false}, // a Boolean on the left of a String: Java throws
		{"flag = TRUE AND TRUE = flag", false},
		{"a = 10 = 2 > 0", true}, // (a = 10) = (2 > 0)

		// Missing properties: comparisons are null, IS NULL is true.
		{"missing = 1", false},
		{"missing <> 1", false},
		{"missing > 1", false},
		{"NOT (missing > 1)", false},
		{"missing IN ('a')", false},
		{"missing NOT IN ('a')", false},
		{"missing IS NULL", true},
		{"missing IS NOT NULL", false},
		{"a IS NULL", false},
		{"a IS NOT NULL", true},
		{"missing BETWEEN 1 AND 2", false},
		{"missing NOT BETWEEN 1 AND 2", false},

		// Three-valued logic.
		{"missing = 1 OR a = 10", true},
		{"a = 10 OR missing = 1", true},
		{"missing = 1 AND a = 10", false},
		{"NOT (missing = 1 AND a = 11)", true}, // null AND false is false
		{"NOT (missing = 1 OR a = 10)", false},
		{"NOT (missing = 1 OR a = 11)", false}, // null OR false is null
		{"NOT (missing = 1 AND a = 10)", false},

		// An evaluation failure ends the evaluation, unless short-circuited before it.
		{"color > 1 OR a = 10", false},
		{"a = 10 OR color > 1", true},
		{"a = 11 AND color > 1", false},
		{"NOT (color > 1)", false},
		{"NOT (b > 2)", false},
		{"a = 10 AND (color = 5 OR TRUE)", false},

		// Precedence: AND before OR; NOT binds to the next operand.
		{"a = 1 OR a = 10 AND color = 'red'", true},
		{"(a = 1 OR a = 10) AND color = 'blue'", false},
		{"a = 1 OR a = 2 OR a = 3 OR a = 10", true},
		{"a > 1 AND a > 2 AND (a > 3 AND a > 4) AND a > 100", false},
		{"NOT NOT (a = 10)", true},
		{"NOT flag = TRUE", true}, // (NOT flag) = TRUE, and NOT of a present property is true
		{"NOT flag = FALSE", false},
		{"NOT missing IS NULL", true},

		// Keywords, case and layout.
		{"a > 5 and color = 'red'", true},
		{"A > 5", false}, // property names are case-sensitive
		{"color in ('red')", true},
		{"a between 5 and 10", true},
		{"missing is null", true},
		{"true", true},
		{"\ta\n>\r5\f", true},
		{"a > 5 /* comment */ AND color = 'red'", true},
		{"a > 5 -- comment\n AND color = 'red'", true},
		{"a > 5 AND --5 > -6", true}, // no line break: two minus signs
	}
	for _, c := range cases {
		e, err := Compile(c.expr)
		require.NoError(t, err, "compile %q", c.expr)
		require.Equal(t, c.want, e.Match(msg), "%q", c.expr)
	}
}

// TestMatchEmptyProperties evaluates against a message without properties.
func TestMatchEmptyProperties(t *testing.T) {
	for expr, want := range map[string]bool{
		"a IS NULL": true, "a = 1": false, "TRUE": true, "a NOT IN ('x')": false, "NOT (a IN ('x'))": false,
	} {
		e, err := Compile(expr)
		require.NoError(t, err)
		require.Equal(t, want, e.Match(nil), expr)
		require.Equal(t, want, e.Match([]byte{}), expr)
	}
}

// TestMatchPropertyEncoding checks property lookup over the encoded form: the last duplicate wins
// and a pair without a value is absent, as Java decodes properties.
func TestMatchPropertyEncoding(t *testing.T) {
	e, err := Compile("k = 'new'")
	require.NoError(t, err)
	require.True(t, e.Match([]byte("k\x01old\x02k\x01new\x02")))
	require.False(t, e.Match([]byte("k\x01new\x02k\x01old\x02")))
	isNull, err := Compile("k IS NULL")
	require.NoError(t, err)
	require.True(t, isNull.Match([]byte("k\x01\x02")))
	require.True(t, isNull.Match([]byte("kk\x01v\x02")))
	require.False(t, isNull.Match([]byte("k\x01v")), "the last pair needs no separator")
}

// TestNumberConversions covers Java's parsing of property values.
func TestNumberConversions(t *testing.T) {
	cases := []struct {
		value, expr string
		want        bool
	}{
		{"2147483647", "v = 2147483647", true},
		{"2147483648", "v = 2147483647", false}, // Integer overflow throws
		{"2147483648", "v = 2147483648", true},  // a Long literal parses a Long
		{"-2147483648", "v = -2147483648", true},
		{"9223372036854775807", "v = 9223372036854775807", true},
		{"9223372036854775808", "v = 9223372036854775807", false},
		{"-9223372036854775808", "v < -9223372036854775807", true},
		{"+5", "v = 5", true},
		{"-", "v = 5", false},
		{"", "v IS NULL", true},
		{"05", "v = 5", true},
		{"5.0", "v = 5", false},
		{"1e3", "v = 1000.0", true},
		{"1E+3", "v = 1000.0", true},
		{"1.", "v = 1.0", true},
		{".5", "v = 0.5", true},
		{"0.5f", "v = 0.5", true},
		{"0.5D", "v = 0.5", true},
		{"0.5x", "v = 0.5", false},
		{"e5", "v = 0.5", false},
		{"1e", "v = 1.0", false},
		{"Infinity", "v > 1e300", true},
		{"-Infinity", "v < -1e300", true},
		{"inf", "v > 1.0", false},
		{"1e400", "v > 1e300", true}, // Java: Infinity
		{"0x1p4", "v = 16.0", true},
		{"0x1.8p1", "v = 3.0", true},
		{"0x10", "v = 16.0", false}, // a hex double needs its exponent
		{"0x1_0p0", "v = 16.0", false},
		{"\t2.5\n", "v = 2.5", true},
		{"-0.0", "v < 0.0", true}, // Double.compare puts -0.0 below 0.0
		{"-0.0", "v = 0.0", false},
		{"-0", "v = 0", true},
		{"TRUE", "v = TRUE", true},
		{"True", "v = TRUE", true},
		{"yes", "v = FALSE", true},
		{"３", "v = 3", false}, // only ASCII digits (Java also takes other Unicode digits)
	}
	for _, c := range cases {
		e, err := Compile(c.expr)
		require.NoError(t, err, c.expr)
		p := []byte("v\x01" + c.value + "\x02")
		require.Equal(t, c.want, e.Match(p), "v=%q: %s", c.value, c.expr)
	}
}

// TestCompileErrors lists expressions Java's parser refuses.
func TestCompileErrors(t *testing.T) {
	for _, expr := range []string{
		"", "   ", "/* only a comment */",
		"a >", "a > 5 AND", "(a > 5", "a > 5)", "a >> 5", "a == 5", "a != 5", "a = 'x",
		"5", "'abc'", "a + 5 > 1", "-a", "a > 5 b", "a.b = 1", "a = \"x\"", "1a = 1",
		"a > 'x'", "a >= TRUE", "a < NULL", "'x' < a", "(a > 1) > 0", "0>0>0>0", "NOT a > 5",
		"a = NULL", "NULL = a", "a <> NULL", "TRUE = 5", "FALSE = 'x'",
		"a BETWEEN 10 AND 5", "a BETWEEN NULL AND 5", "a BETWEEN 'a' AND 'b'", "a BETWEEN 1 AND 'x'",
		"a BETWEEN 1", "a NOT BETWEEN 'a' AND 5",
		"5 IN ('a')", "-a IN ('a')", "a IN ()", "a IN (1, 2)", "a IN ('x',)", "a IN 'x'", "(a = 1) IN ('x')",
		"a CONTAINS 5", "a CONTAINS b", "a NOT LIKE 'x'", "a LIKE 'x%'",
		"a IS 5", "a IS NOT 5", "a IS", "NOT", "NOT 5", "5 AND TRUE", "a = 1 OR 'x'",
		"a = 9223372036854775808", "a = 1e400", "a = 0L", "a = 5.5L", "a = 05",
		"a = 1 /* unterminated", "a = 1 # x", "prop\u00e9 = 1", "a\u00a0= 1",
	} {
		_, err := Compile(expr)
		require.Error(t, err, "%q must not compile", expr)
	}
}

func TestCompileErrorsDescribePosition(t *testing.T) {
	_, err := Compile("a > 5 AND color = ")
	var se *SyntaxError
	require.True(t, errors.As(err, &se), "%v", err)
	require.Equal(t, 18, se.Pos)
	require.Contains(t, err.Error(), "position 18")

	_, err = Compile("  ")
	require.ErrorIs(t, err, ErrEmpty)
}

// TestAcceptedBeyondJava: literals Java's parser refuses by accident and this one accepts.
func TestAcceptedBeyondJava(t *testing.T) {
	e, err := Compile("a > 0.0")
	require.NoError(t, err)
	require.True(t, e.Match(props("a", "1")))
}

func TestLimits(t *testing.T) {
	_, err := Compile(strings.Repeat("(", MaxNesting+1) + "a" + strings.Repeat(")", MaxNesting+1) + " = 1")
	require.ErrorContains(t, err, "nested")
	_, err = Compile(strings.Repeat("NOT ", MaxNesting+1) + "TRUE")
	require.ErrorContains(t, err, "nested")
	_, err = Compile(strings.Repeat("- ", MaxNesting+1) + "1 = a")
	require.ErrorContains(t, err, "nested")
	e, err := Compile(strings.Repeat("(", MaxNesting) + "a" + strings.Repeat(")", MaxNesting) + " = 10")
	require.NoError(t, err)
	require.True(t, e.Match(msg))

	// Chains of = nest to the left; the tree depth is bounded too.
	_, err = Compile("a = 10" + strings.Repeat(" = TRUE", MaxDepth))
	require.ErrorContains(t, err, "nested")
	e, err = Compile("a = 10" + strings.Repeat(" = TRUE", 100))
	require.NoError(t, err)
	require.True(t, e.Match(msg))

	// Long AND / OR chains are flat.
	long := "a = 1" + strings.Repeat(" OR a = 1", 5000) + " OR a = 10"
	e, err = Compile(long)
	require.NoError(t, err)
	require.True(t, e.Match(msg))

	_, err = Compile("a = '" + strings.Repeat("x", MaxExpressionLen) + "'")
	require.ErrorContains(t, err, "exceeds")
}

func TestCache(t *testing.T) {
	c := NewCache(3)
	e1, err := c.Compile("a > 1")
	require.NoError(t, err)
	e2, err := c.Compile("a > 1")
	require.NoError(t, err)
	require.Same(t, e1, e2, "compiled once")
	_, err1 := c.Compile("a >")
	_, err2 := c.Compile("a >")
	require.Error(t, err1)
	require.Same(t, err1, err2, "failures are cached too")
	for i := range 10 {
		_, _ = c.Compile(fmt.Sprintf("a > %d", i))
	}
	require.Equal(t, 3, c.Len())
}

func TestMatchDoesNotAllocate(t *testing.T) {
	e, err := Compile("(a > 5 AND color = 'red' OR b BETWEEN 1.5 AND 3.5) AND TAGS IN ('TagA','TagB','c','d','e','f','g','h','i') " +
		"AND s CONTAINS 'world' AND missing IS NULL AND NOT (flag = FALSE) AND big > 1000000000.5 AND a <> b")
	require.NoError(t, err)
	require.True(t, e.Match(msg))
	allocs := testing.AllocsPerRun(200, func() {
		if !e.Match(msg) {
			panic("no match")
		}
	})
	require.Zero(t, allocs)
}

func BenchmarkMatch(b *testing.B) {
	e, err := Compile("a > 5 AND color = 'red' AND TAGS IN ('TagA', 'TagB')")
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if !e.Match(msg) {
			b.Fatal("no match")
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("a > 5 AND color = 'red' AND TAGS IN ('TagA', 'TagB')"); err != nil {
			b.Fatal(err)
		}
	}
}
