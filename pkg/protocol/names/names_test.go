package names

import (
	"strings"
	"testing"
)

func TestTopic(t *testing.T) {
	for name, want := range map[string]error{
		"T": nil, "%RETRY%a|b_c-D9": nil, strings.Repeat("a", 127): nil,
		"": ErrTopicBlank, " ": ErrTopicBlank, "\t\n": ErrTopicBlank,
		"..": ErrTopicChars, "../../victim": ErrTopicChars, "a/b": ErrTopicChars, "a b": ErrTopicChars,
		"a\x00": ErrTopicChars, "é": ErrTopicChars, "a.b": ErrTopicChars,
		strings.Repeat("a", 128): ErrTopicTooLong,
	} {
		if got := Topic(name); got != want {
			t.Errorf("Topic(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestGroup(t *testing.T) {
	for _, ok := range []string{"G", "CID_RMQ_SYS_TRANS", "%RETRY%x", strings.Repeat("g", 255)} {
		if err := Group(ok); err != nil {
			t.Errorf("Group(%q): %v", ok, err)
		}
	}
	for name, want := range map[string]string{
		"":                       "The specified group is blank.",
		" ":                      "The specified group is blank.",
		"a/b":                    `The specified group "a/b" contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`,
		"..":                     `The specified group ".." contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`,
		strings.Repeat("g", 256): `The specified group "` + strings.Repeat("g", 64) + `"... (256 bytes) is longer than group max length 255.`,
	} {
		if err := Group(name); err == nil || err.Error() != want {
			t.Errorf("Group(%.20q) = %v, want %s", name, err, want)
		}
	}
}

func TestClientID(t *testing.T) {
	for _, ok := range []string{"10.0.0.1@12345", "10.0.0.1@DEFAULT@unit", "[::1]@1#2", "192.168.0.2@28411#96553437851204"} {
		if err := ClientID(ok); err != nil {
			t.Errorf("ClientID(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a b", "a\nb", "é", strings.Repeat("c", 256)} {
		if err := ClientID(bad); err == nil {
			t.Errorf("ClientID(%.20q) passed", bad)
		}
	}
}

func TestQuote(t *testing.T) {
	if got := Quote("a\x1bb"); got != `"a\x1bb"` {
		t.Errorf("Quote escapes: %s", got)
	}
	long := strings.Repeat("x", 1000)
	if got := Quote(long); len(got) > 100 || !strings.HasSuffix(got, "(1000 bytes)") {
		t.Errorf("Quote cuts: %s", got)
	}
}

// FuzzNames: the checks never panic, and a name that passes Topic or Group uses only the
// allowed characters within the length.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"T", "..", "", "%RETRY%G", strings.Repeat("a", 300), "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if Topic(s) == nil && (!ValidChars(s) || len(s) > MaxTopicLength || s == "") {
			t.Fatalf("Topic(%q) passed", s)
		}
		if Group(s) == nil && (!ValidChars(s) || len(s) > MaxGroupLength || s == "") {
			t.Fatalf("Group(%q) passed", s)
		}
		_ = ClientID(s)
		if q := Quote(s); len(q) > 4*quoteMax+32 {
			t.Fatalf("Quote too long: %d", len(q))
		}
	})
}
