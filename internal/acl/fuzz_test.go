package acl

import (
	"testing"
)

// FuzzParseConfig feeds plain_acl.yml variations to the parser: it must answer every input with a
// configuration or an error, never a panic or a hang, and what it accepts must hold up.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{plainACL49, snakeDump, checkACL, oneAccount, "", "a: [x, 'y', \"z\"]\n",
		"accounts:\n- accessKey: abcdefg\n  secretKey: 'h''ijklmn'\n  whiteRemoteAddress: 192.168.0.{1,2}\n",
		"globalWhiteRemoteAddresses:\n  - 1050::5:600:300c:1-ff\n  - 10.1.100-200.*\n", "a:\n  - - - x\n",
		"k: \"\\u00e9\\x41\\U0001F600\"\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if c != nil {
				t.Fatal("a configuration together with an error")
			}
			return
		}
		for ak, a := range c.Accounts {
			if ak != a.AccessKey || len(a.AccessKey) < minKeyLen || len(a.SecretKey) < minKeyLen {
				t.Fatalf("accepted account %q with secret %q", a.AccessKey, a.SecretKey)
			}
		}
		// Parsing is deterministic.
		again, err := ParseConfig(data)
		if err != nil || len(again.Accounts) != len(c.Accounts) || len(again.Warnings) != len(c.Warnings) {
			t.Fatalf("second parse differs: %v", err)
		}
	})
}

// FuzzAddrPattern: any whitelist entry parses or fails cleanly, and matching never panics.
func FuzzAddrPattern(f *testing.F) {
	for _, seed := range []string{"*", "192.168.*.*", "10.1.100-200.1-20", "192.168.0.{100,101}", "::1",
		"2::ac5:78:1-200:*", "1.2.3.4,5.6.7.8", "1050:0000:0000:0000:0005:0600:300c:326b"} {
		f.Add(seed, "192.168.0.100")
	}
	f.Fuzz(func(t *testing.T, pattern, addr string) {
		p, err := ParseAddrPattern(pattern)
		if err != nil {
			return
		}
		p.Match(remoteIP(addr))
	})
}
