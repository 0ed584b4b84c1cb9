package acl

import (
	"testing"

	"github.com/rocketgo/rocketgo/pkg/protocol"
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

// FuzzCheck: any request (code, header fields, body) is let through or refused with a
// *DeniedError, never a panic; the rule table decodes heartbeat and lock bodies from it. A
// request signed by an account that may use nothing but topicB is never let through naming
// another topic in a field its rule checks.
func FuzzCheck(f *testing.F) {
	c, err := ParseConfig([]byte(checkACL))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(int32(protocol.PullMessage), "topic", "topicB", "consumerGroup", "groupB", "")
	f.Add(int32(protocol.HeartBeat), "", "", "", "", `{"clientID":"c","consumerDataSet":[{"groupName":"g","subscriptionDataSet":[{"topic":"t"}]}]}`)
	f.Add(int32(protocol.LockBatchMQ), "", "", "", "", `{"consumerGroup":"g","clientId":"c","mqSet":[{"topic":"topicA"}]}`)
	f.Add(int32(protocol.ViewMessageByID), "offset", "0", "", "", "")
	f.Add(int32(200050), "topic", "x", "", "", "")
	f.Fuzz(func(t *testing.T, code int32, k1, v1, k2, v2, body string) {
		ext := map[string]string{}
		if k1 != "" {
			ext[k1] = v1
		}
		if k2 != "" {
			ext[k2] = v2
		}
		req := user(protocol.RequestCode(code), ext, body)
		err := c.Check(client, req)
		if _, isDenial := err.(*DeniedError); err != nil && !isDenial {
			t.Fatalf("not a denial: %T %v", err, err)
		}
		if err == nil && protocol.RequestCode(code) == protocol.PullMessage && req.ExtFields.Get("topic") == "topicA" {
			t.Fatal("a pull of a DENY topic was let through")
		}
		_ = c.MayRead(client, req, v1)
	})
}
