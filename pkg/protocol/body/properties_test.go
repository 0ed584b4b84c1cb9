package body

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPropertiesRoundTrip: what EncodeProperties writes, ParseProperties reads back (the fuzz
// test of the parser is in internal/config, with the Apache broker.conf files as seeds).
func TestPropertiesRoundTrip(t *testing.T) {
	props := []Property{{Key: "orderMessageEnable", Value: "true"}, {Key: "waitSecondsForService", Value: "45"}}
	got, err := ParseProperties([]byte(EncodeProperties(props)))
	require.NoError(t, err)
	require.Equal(t, []Property{{"orderMessageEnable", "true", 1}, {"waitSecondsForService", "45", 2}}, got)
	require.Empty(t, EncodeProperties(nil))
}

func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Property
	}{
		{"equals", "a=b", []Property{{"a", "b", 1}}},
		{"colon", "a:b", []Property{{"a", "b", 1}}},
		{"space", "a b", []Property{{"a", "b", 1}}},
		{"spaces around equals", "  brokerName = broker-a  ", []Property{{"brokerName", "broker-a  ", 1}}},
		{"tab and form feed", "\ta\t=\f b", []Property{{"a", "b", 1}}},
		{"space then colon", "a   :   b", []Property{{"a", "b", 1}}},
		{"only one separator skipped", "a = = b", []Property{{"a", "= b", 1}}},
		{"key only", "flag", []Property{{"flag", "", 1}}},
		{"empty value", "a=", []Property{{"a", "", 1}}},
		{"empty key", "=v", []Property{{"", "v", 1}}},
		{"comments and blanks", "# c\n! c\n\n   \n  # indented\na=1", []Property{{"a", "1", 6}}},
		{"hash inside value", "a=x#y", []Property{{"a", "x#y", 1}}},
		{"continuation", "a=1;\\\n   2;\\\n\t3\nb=4", []Property{{"a", "1;2;3", 1}, {"b", "4", 4}}},
		{"continuation line starting with hash is data", "a=x\\\n#y", []Property{{"a", "x#y", 1}}},
		{"comment never continues", "# c \\\na=1", []Property{{"a", "1", 2}}},
		{"even backslashes do not continue", "a=x\\\\\nb=y", []Property{{"a", `x\`, 1}, {"b", "y", 2}}},
		{"empty continuation ends line", "a=x\\\n\nb=y", []Property{{"a", "x", 1}, {"b", "y", 3}}},
		{"backslash at EOF dropped", "a=x\\", []Property{{"a", "x", 1}}},
		{"CRLF", "a=1\r\nb=2\r\n", []Property{{"a", "1", 1}, {"b", "2", 2}}},
		{"CR only", "a=1\rb=2", []Property{{"a", "1", 1}, {"b", "2", 2}}},
		{"CRLF continuation", "a=1\\\r\n 2", []Property{{"a", "12", 1}}},
		{"escaped separators in key", `a\=b\:c\ d=v`, []Property{{"a=b:c d", "v", 1}}},
		{"escapes", `a=\t\n\r\f\\\q`, []Property{{"a", "\t\n\r\f\\q", 1}}},
		{"unicode escape", `a=\u0041\u00e9`, []Property{{"a", "Aé", 1}}},
		{"surrogate pair", `a=\uD83D\uDE00`, []Property{{"a", "😀", 1}}},
		{"lone surrogate", `a=\uD83D`, []Property{{"a", "\uFFFD", 1}}},
		{"utf8 and BOM", "\uFEFFbrokerName=经纪人", []Property{{"brokerName", "经纪人", 1}}},
		{"repeated key kept twice", "a=1\na=2", []Property{{"a", "1", 1}, {"a", "2", 2}}},
		{"no trailing newline", "a=1", []Property{{"a", "1", 1}}},
		{"empty input", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProperties([]byte(tt.in))
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParsePropertiesMalformedUnicode(t *testing.T) {
	for _, in := range []string{`a=\u12`, `a=\uZZZZ`, "x=1\nk\\u00=v", `a=\u+123`} {
		_, err := ParseProperties([]byte(in))
		require.Error(t, err, in)
		require.Contains(t, err.Error(), "line")
		require.Contains(t, err.Error(), `\uxxxx`)
	}
}
