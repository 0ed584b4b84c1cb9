package config

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

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

func TestEscapePropertyRoundTrip(t *testing.T) {
	for _, kv := range [][2]string{
		{"plain", "value"},
		{"with space", " leading and trailing "},
		{"a=b:c", "x=y:z#!"},
		{"#hash", "!bang"},
		{"tab\t", "line\nbreak\r\f"},
		{`back\slash`, `\`},
	} {
		text := escapeProperty(kv[0], true) + "=" + escapeProperty(kv[1], false)
		got, err := ParseProperties([]byte(text))
		require.NoError(t, err)
		require.Equal(t, []Property{{kv[0], kv[1], 1}}, got, text)
	}
}

func FuzzParseProperties(f *testing.F) {
	for _, seed := range []string{
		"brokerClusterName = DefaultCluster\nbrokerName = broker-a\nbrokerId = 0\n",
		"# comment\n! bang\na:b\nc d\ne\\\n  f=g\\\\\n",
		"a=\\u0041\\uD83D\\uDE00\\t\r\nb=\\\r\n",
		"\uFEFFk\\=ey\\ x=v\\",
		"a=\\u12",
	} {
		f.Add([]byte(seed))
	}
	for _, path := range []string{"testdata/apache-broker.conf", "testdata/apache-broker-a-s.properties",
		"testdata/crlf.conf", "../../configs/broker.conf", "../../configs/namesrv.conf"} {
		data, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		props, err := ParseProperties(data)
		if err != nil {
			require.Contains(t, err.Error(), `\uxxxx`)
			return
		}
		for _, p := range props {
			require.Positive(t, p.Line)
			// Every parsed pair written back escaped must read back the same.
			if !utf8.ValidString(p.Key) || !utf8.ValidString(p.Value) {
				continue
			}
			text := escapeProperty(p.Key, true) + "=" + escapeProperty(p.Value, false)
			again, err := ParseProperties([]byte(text))
			require.NoError(t, err)
			if strings.HasPrefix(p.Key, "\uFEFF") {
				continue // a leading BOM is dropped by design
			}
			require.Equal(t, []Property{{p.Key, p.Value, 1}}, again, "%q", text)
		}
	})
}

func TestCodecEncodeReadsBack(t *testing.T) {
	c := &propertiesCodec{}
	text, err := c.Encode(map[string]any{"brokerName": "broker a", "namesrvAddr": "a:1;b:2", "listenPort": 10911})
	require.NoError(t, err)
	out := map[string]any{}
	require.NoError(t, c.Decode(text, out))
	require.Equal(t, map[string]any{"brokername": "broker a", "namesrvaddr": "a:1;b:2", "listenport": "10911"}, out)
	require.Equal(t, "brokerName", c.seen["brokername"].Key)
}
