package config

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

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
		require.Equal(t, []Property{{Key: kv[0], Value: kv[1], Line: 1}}, got, text)
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
			require.Equal(t, []Property{{Key: p.Key, Value: p.Value, Line: 1}}, again, "%q", text)
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
