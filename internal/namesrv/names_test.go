package namesrv

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNameValidation(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		what string
		err  error
		want string // "" accepted, else a part of the error
	}{
		{"topic", validateTopic("TopicTest"), ""},
		{"topic", validateTopic("%RETRY%" + long(255)), ""},
		{"topic", validateTopic("%DLQ%g"), ""},
		{"topic", validateTopic("ns%T|x_y-z"), ""},
		{"topic", validateTopic(long(127)), ""},
		{"topic", validateTopic(long(128)), "128 bytes, at most 127"},
		{"topic", validateTopic(""), "empty"},
		{"topic", validateTopic("../../victim"), `character '.' at 0`},
		{"topic", validateTopic("a\nb"), `"a\nb"`},
		{"topic", validateTopic("x y"), "character ' '"},
		{"brokerName", validateBrokerName("brokerName", "ip-10-0-0-1.ec2.internal"), ""},
		{"brokerName", validateBrokerName("brokerName", "broker-a@1"), ""},
		{"brokerName", validateBrokerName("brokerName", "b/../x"), "character '/'"},
		{"brokerName", validateBrokerName("brokerName", long(300)), `…(300 bytes)`},
		{"addr", validateAddr("brokerAddr", "10.0.0.1:10911"), ""},
		{"addr", validateAddr("brokerAddr", "[::1]:10911"), ""},
		{"addr", validateAddr("brokerAddr", "broker.example.com:10911"), ""},
		{"addr", validateAddr("brokerAddr", "10.0.0.1"), "want host:port"},
		{"addr", validateAddr("brokerAddr", "10.0.0.1:70000"), "port must be"},
		{"addr", validateAddr("brokerAddr", ":10911"), "no host"},
		{"addr", validateAddr("brokerAddr", "a\x1bb:1"), `character '\x1b'`},
		{"kv", validateKVName("ORDER_TOPIC_CONFIG", "TopicOrder", true), ""},
		{"kv", validateKVName("ns", "a/b#c:1", true), ""},
		{"kv", validateKVName("ns", "", true), "invalid key"},
		{"kv", validateKVName("", "k", true), "invalid namespace"},
		{"kv", validateKVName("ns", "k\r\nFAKE LOG LINE", true), `"k\r\nFAKE LOG LINE"`},
	} {
		if tc.want == "" {
			require.NoError(t, tc.err, tc.what)
			continue
		}
		require.ErrorContains(t, tc.err, tc.want, tc.what)
	}
}

func TestValuePreviewIsShort(t *testing.T) {
	require.Equal(t, `"abc"`, valuePreview("abc"))
	p := valuePreview(strings.Repeat("x", 100<<10))
	require.Less(t, len(p), 40)
}
