package acl

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAddrPatterns(t *testing.T) {
	cases := []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"", nil, []string{"127.0.0.1", "::1"}},
		{"*", []string{"1.2.3.4", "::1"}, nil},
		{"*.*.*.*", []string{"10.0.0.1", "fe80::1"}, nil},
		{"*:*:*:*:*:*:*:*", []string{"10.0.0.1", "2001:db8::1"}, nil},
		{"192.168.0.1", []string{"192.168.0.1", "::ffff:192.168.0.1"}, []string{"192.168.0.2", "192.168.0.10"}},
		{"192.168.*.*", []string{"192.168.0.1", "192.168.255.255"}, []string{"192.169.0.1", "10.168.0.1"}},
		{"192.168.*", []string{"192.168.7.9"}, []string{"192.167.7.9"}},
		{"10.10.103.*", []string{"10.10.103.0", "10.10.103.255"}, []string{"10.10.104.1"}},
		{"192.168.100-200.10-20", []string{"192.168.100.10", "192.168.200.20", "192.168.150.15"},
			[]string{"192.168.99.15", "192.168.201.15", "192.168.150.9", "192.168.150.21"}},
		{"192.168.1.1,10.0.0.1, 10.0.0.2", []string{"192.168.1.1", "10.0.0.1", "10.0.0.2"}, []string{"10.0.0.3"}},
		{"192.168.0.{100,101}", []string{"192.168.0.100", "192.168.0.101"}, []string{"192.168.0.102", "192.168.1.100"}},
		{"1050:0000:0000:0000:0005:0600:300c:326b", []string{"1050::5:600:300c:326b", "1050:0:0:0:5:600:300C:326B"},
			[]string{"1050::5:600:300c:326c"}},
		{"::1", []string{"::1"}, []string{"127.0.0.1", "::2"}},
		{"1050::5:600:300c:1-ff", []string{"1050::5:600:300c:1", "1050::5:600:300c:ff"},
			[]string{"1050::5:600:300c:100", "1050::5:600:300d:1"}},
		{"2001:db8:*", []string{"2001:db8::1", "2001:db8:ffff::"}, []string{"2001:db9::1", "10.0.0.1"}},
		{"2::ac5:78:1-200:*", []string{"2::ac5:78:1:0", "2::ac5:78:200:ffff", "2:0:0:0:ac5:78:150:9"},
			[]string{"2::ac5:78:201:0", "3::ac5:78:1:0"}},
		{"1050::5:600:300c:{326b,326c}", []string{"1050::5:600:300c:326b", "1050::5:600:300c:326c"},
			[]string{"1050::5:600:300c:326d"}},
		{"10.0.0.1,2001:db8::1", []string{"10.0.0.1", "2001:db8::1"}, []string{"2001:db8::2"}},
	}
	for _, tc := range cases {
		p, err := ParseAddrPattern(tc.pattern)
		require.NoError(t, err, tc.pattern)
		for _, a := range tc.match {
			require.True(t, p.Match(netip.MustParseAddr(a)), "%q must match %s", tc.pattern, a)
		}
		for _, a := range tc.miss {
			require.False(t, p.Match(netip.MustParseAddr(a)), "%q must not match %s", tc.pattern, a)
		}
		if !p.all { // Java's "*" matches whatever the address
			require.False(t, p.Match(netip.Addr{}), "%q must not match an unknown address", tc.pattern)
		}
	}
}

func TestAddrPatternErrors(t *testing.T) {
	for _, s := range []string{
		"192.168.0.256", "192.168.0", "192.168.0.1.5", "300.*.*.*", "192.168.5-1.*", "192.168.-1.*",
		"192.168.a.*", "192.168.1-.*", "192.168.0.{}", "{1,2}", "192.168.{1,2}.3", "1.2.3.4,bogus",
		"fe80::1%eth0", "1::2::3-4", "1:2:3:4:5:6:7:8:9-a", "1:2:3-x::", "host.example", "*.*.*.*.*",
		"1:2:3:4:5:6:7-8", "192.168.+1.*", ",",
	} {
		_, err := ParseAddrPattern(s)
		require.Error(t, err, "%q must be refused", s)
	}
}

func TestRemoteIP(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:5678": "127.0.0.1", "[::1]:5678": "::1", "[::ffff:10.0.0.1]:1": "10.0.0.1",
		"[fe80::1%eth0]:9": "fe80::1", "10.0.0.2": "10.0.0.2",
	} {
		require.Equal(t, want, remoteIP(in).String(), in)
	}
	require.False(t, remoteIP("not an address").IsValid())
}
