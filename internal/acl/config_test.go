package acl

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseConfigDistributedFile(t *testing.T) {
	c := mustConfig(t, plainACL49)
	require.Empty(t, c.Warnings)
	require.Len(t, c.GlobalWhiteRemoteAddresses, 2)
	require.True(t, c.GlobalWhiteRemoteAddresses[1].Match(netip.MustParseAddr("192.168.0.77")))

	rm := c.Accounts["RocketMQ"]
	require.NotNil(t, rm)
	require.Equal(t, "12345678", rm.SecretKey)
	require.False(t, rm.Admin)
	require.Equal(t, Deny, rm.DefaultTopicPerm)
	require.Equal(t, Sub, rm.DefaultGroupPerm)
	require.Equal(t, map[string]Perm{"topicA": Deny, "topicB": Pub | Sub, "topicC": Sub}, rm.TopicPerms)
	require.Equal(t, map[string]Perm{"groupA": Deny, "groupB": Pub | Sub, "groupC": Sub}, rm.GroupPerms)
	require.False(t, rm.WhiteRemoteAddress.Match(netip.MustParseAddr("192.168.1.1")), "blank whitelist matches nothing")

	rm2 := c.Accounts["rocketmq2"]
	require.True(t, rm2.Admin)
	require.Equal(t, Deny, rm2.DefaultTopicPerm, "no defaultTopicPerm is DENY")
	require.True(t, rm2.WhiteRemoteAddress.Match(netip.MustParseAddr("192.168.1.200")))

	dump := mustConfig(t, snakeDump)
	require.Empty(t, dump.Warnings, "dataVersion is known")
	require.Equal(t, "12345678", dump.Accounts["RocketMQ"].SecretKey)
}

func TestParseConfigEdgeCases(t *testing.T) {
	c := mustConfig(t, "")
	require.Empty(t, c.Accounts)
	require.Empty(t, c.GlobalWhiteRemoteAddresses)

	c = mustConfig(t, `
globalWhiteRemoteAddresses:
accounts:
  - accessKey: "key-with # hash"
    secretKey: 'secret: colon'
    admin: yes
    defaultTopicPerm: " SUB|PUB "
    defaultGroupPerm: sub
    topicPerms:
      - topicX=pub
      - " spaced = PUB "
      - "%RETRY%groupZ=PUB"
    groupPerms: [groupZ=DENY, groupY==SUB]
    color: blue
  - accessKey: key-with # hash
    secretKey: another-secret
extra: 1
`)
	a := c.Accounts["key-with # hash"]
	require.NotNil(t, a)
	require.Equal(t, "secret: colon", a.SecretKey)
	require.True(t, a.Admin)
	require.Equal(t, Pub|Sub, a.DefaultTopicPerm)
	require.Equal(t, Deny, a.DefaultGroupPerm, "perms are upper case; anything else is DENY")
	require.Equal(t, map[string]Perm{"topicX": Deny, "spaced": Pub}, a.TopicPerms)
	// Java keys groups by retry topic, so topicPerms' %RETRY%groupZ (read last) wins over groupZ.
	require.Equal(t, map[string]Perm{"groupZ": Pub, "groupY": Sub}, a.GroupPerms)
	require.Equal(t, "another-secret", c.Accounts["key-with"].SecretKey, "a plain value ends at ' #'")
	joined := strings.Join(c.Warnings, "\n")
	for _, w := range []string{`defaultGroupPerm: "sub"`, `"topicX=pub"`, `unknown account key "color"`, `unknown key "extra"`} {
		require.Contains(t, joined, w)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for src, want := range map[string]string{
		"- a\n- b\n":                                    "line 1: the file must be a mapping",
		"accounts: x\n":                                 "line 1: accounts must be a list",
		"accounts:\n  - x\n":                            "line 2: each account must be a mapping",
		"globalWhiteRemoteAddresses: x\n":               "line 1: globalWhiteRemoteAddresses must be a list",
		"globalWhiteRemoteAddresses:\n  - [a]\n":        "line 2: globalWhiteRemoteAddresses: each item must be a single value",
		"globalWhiteRemoteAddresses:\n  - 10.0.0.300\n": "line 2: globalWhiteRemoteAddresses: address",
		"accounts:\n  - accessKey: short\n    secretKey: long-enough\n":                                       "line 2: accessKey \"short\"",
		"accounts:\n  - accessKey: long-enough\n":                                                             "must both be given",
		"accounts:\n  - accessKey: long-enough\n    secretKey: long-enough\n    admin: maybe\n":               "line 4: admin: want true or false",
		"accounts:\n  - accessKey: long-enough\n    secretKey: long-enough\n    topicPerms:\n      - a=b=c\n": "line 5: topicPerms: \"a=b=c\" is not name=PERM",
		"accounts:\n  - accessKey: long-enough\n    secretKey: long-enough\n    groupPerms:\n      - alone\n": "line 5: groupPerms: \"alone\"",
		"accounts:\n  - accessKey: long-enough\n    secretKey: [a]\n":                                         "line 3: secretKey must be a single value",
		"accounts:\n  - accessKey: long-enough\n    secretKey: long-enough\n    whiteRemoteAddress: 1.2.3\n":  "line 4: whiteRemoteAddress",
		"accounts:\n  - accessKey: long-enough\n    secretKey: long-enough\n    topicPerms: a=PUB\n":          "line 4: topicPerms must be a list",
	} {
		_, err := ParseConfig([]byte(src))
		require.Error(t, err, "%q", src)
		require.Contains(t, err.Error(), want, "%q", src)
	}
}

func TestPerm(t *testing.T) {
	for s, want := range map[string]Perm{"PUB": Pub, "SUB": Sub, "PUB|SUB": Pub | Sub, "SUB|PUB": Pub | Sub, "DENY": Deny} {
		p, ok := ParsePerm(s)
		require.True(t, ok, s)
		require.Equal(t, want, p, s)
	}
	for _, s := range []string{"", "pub", "PUB | SUB", "ANY", "RW"} {
		p, ok := ParsePerm(s)
		require.False(t, ok, s)
		require.Equal(t, Deny, p, s)
	}
	// Java Permission.checkPermission.
	require.True(t, (Pub | Sub).Allows(Pub))
	require.True(t, Sub.Allows(Sub))
	require.False(t, Sub.Allows(Pub))
	require.False(t, Deny.Allows(Sub))
	require.False(t, (Deny | Pub).Allows(Pub), "DENY wins")
	require.True(t, Pub.Allows(Any))
	require.False(t, Deny.Allows(Any))
	require.Equal(t, "PUB|SUB", (Pub | Sub).String())
}
