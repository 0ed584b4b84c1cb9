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

// FuzzNameValidation: an accepted name holds only its allowed characters; a refusal's text is
// short and free of control characters, so that it is safe in a remark and a log line.
func FuzzNameValidation(f *testing.F) {
	for _, s := range []string{"TopicTest", "%RETRY%g", "a\nb", "10.0.0.1:10911", "[::1]:1", strings.Repeat("x", 600)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checks := []struct {
			err     error
			allowed charset
		}{
			{validateTopic(s), topicChar},
			{validateBrokerName("brokerName", s), nameChar},
			{validateKVName(s, s, true), kvChar},
			{validateAddr("brokerAddr", s), nil},
		}
		for _, c := range checks {
			if c.err == nil {
				for i := 0; c.allowed != nil && i < len(s); i++ {
					require.True(t, c.allowed(s[i]), "accepted %q with %q", s, s[i])
				}
				continue
			}
			msg := c.err.Error()
			require.Less(t, len(msg), 400, msg)
			for _, r := range msg {
				require.False(t, r < 0x20 || r == 0x7f, "control character in %q", msg)
			}
		}
	})
}
