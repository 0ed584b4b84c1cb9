package acl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// plainACL49 is distribution/conf/plain_acl.yml of RocketMQ 4.9.8 (licence header cut), trailing
// blanks included.
const plainACL49 = `globalWhiteRemoteAddresses:
  - 10.10.103.*
  - 192.168.0.*

accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      # the group should convert to retry topic
      - groupA=DENY
      - groupB=PUB|SUB
      - groupC=SUB

  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    # if it is admin, it could access all resources
    admin: true
    
`

// snakeDump is the same kind of file as SnakeYAML's dumpAsMap writes it after an admin command
// (mqadmin updateAclConfig): lists in their key's column, dataVersion, keys sorted.
const snakeDump = `accounts:
- accessKey: RocketMQ
  admin: false
  defaultGroupPerm: SUB
  defaultTopicPerm: DENY
  groupPerms:
  - groupA=DENY
  secretKey: '12345678'
  topicPerms:
  - topicA=DENY
  - topicB=PUB|SUB
  whiteRemoteAddress: null
dataVersion:
- counter: 3
  timestamp: 1700000000000
globalWhiteRemoteAddresses:
- 10.10.103.*
`

// scalars flattens a node for comparisons: scalars as text, null as nil, lists and mappings as
// slices and maps.
func scalars(n *node) any {
	switch n.kind {
	case scalarNode:
		return n.value
	case seqNode:
		out := []any{}
		for _, it := range n.items {
			out = append(out, scalars(it))
		}
		return out
	case mapNode:
		out := map[string]any{}
		for i, k := range n.keys {
			out[k] = scalars(n.vals[i])
		}
		return out
	}
	return nil
}

func mustYAML(t *testing.T, src string) any {
	t.Helper()
	n, err := parseYAML([]byte(src))
	require.NoError(t, err)
	return scalars(n)
}

func TestYAMLReadsTheDistributedFile(t *testing.T) {
	require.Equal(t, map[string]any{
		"globalWhiteRemoteAddresses": []any{"10.10.103.*", "192.168.0.*"},
		"accounts": []any{
			map[string]any{
				"accessKey": "RocketMQ", "secretKey": "12345678", "whiteRemoteAddress": nil, "admin": "false",
				"defaultTopicPerm": "DENY", "defaultGroupPerm": "SUB",
				"topicPerms": []any{"topicA=DENY", "topicB=PUB|SUB", "topicC=SUB"},
				"groupPerms": []any{"groupA=DENY", "groupB=PUB|SUB", "groupC=SUB"},
			},
			map[string]any{"accessKey": "rocketmq2", "secretKey": "12345678", "whiteRemoteAddress": "192.168.1.*",
				"admin": "true"},
		},
	}, mustYAML(t, plainACL49))
}

func TestYAMLReadsSnakeYAMLDumps(t *testing.T) {
	require.Equal(t, map[string]any{
		"accounts": []any{map[string]any{
			"accessKey": "RocketMQ", "admin": "false", "defaultGroupPerm": "SUB", "defaultTopicPerm": "DENY",
			"groupPerms": []any{"groupA=DENY"}, "secretKey": "12345678",
			"topicPerms": []any{"topicA=DENY", "topicB=PUB|SUB"}, "whiteRemoteAddress": nil,
		}},
		"dataVersion":                []any{map[string]any{"counter": "3", "timestamp": "1700000000000"}},
		"globalWhiteRemoteAddresses": []any{"10.10.103.*"},
	}, mustYAML(t, snakeDump))
}

func TestYAMLScalarsAndComments(t *testing.T) {
	got := mustYAML(t, "---\r\n"+
		"# a comment line\r\n"+
		"plain: a b#c   # trailing comment\r\n"+
		"single: 'it''s # not a comment'\r\n"+
		`double: "tab\there \"q\" \u00e9 # kept"`+"\r\n"+
		"empty:\r\n"+
		"tilde: ~\r\n"+
		"flow: [a, 'b, c', \"d\" , ]\r\n"+
		"none: []\r\n"+
		"ipv6: 1050::5:600:300c:326b\r\n"+
		"star: *.*.*.*\r\n"+
		"braces: 192.168.0.{100,101}\r\n"+
		"'quoted key': v\r\n"+
		"apostrophe: it's\r\n"+
		"url: http://x/y\r\n"+
		"nested:\r\n"+
		"    -\r\n"+
		"      - deep\r\n"+
		"    - - deeper\r\n"+
		"      - too\r\n"+
		"    - scalar\r\n"+
		"lone:\r\n"+
		"  value on its own line\r\n")
	require.Equal(t, map[string]any{
		"plain": "a b#c", "single": "it's # not a comment", "double": "tab\there \"q\" é # kept",
		"empty": nil, "tilde": nil, "flow": []any{"a", "b, c", "d"}, "none": []any{},
		"ipv6": "1050::5:600:300c:326b", "star": "*.*.*.*", "braces": "192.168.0.{100,101}",
		"quoted key": "v", "apostrophe": "it's", "url": "http://x/y",
		"nested": []any{[]any{"deep"}, []any{"deeper", "too"}, "scalar"},
		"lone":   "value on its own line",
	}, got)
}

func TestYAMLEmptyDocuments(t *testing.T) {
	for _, src := range []string{"", "\n\n", "# only a comment\n", "---\n", "\xef\xbb\xbf"} {
		n, err := parseYAML([]byte(src))
		require.NoError(t, err, "%q", src)
		require.Equal(t, nullNode, n.kind, "%q", src)
	}
}

func TestYAMLRefusesWhatItDoesNotRead(t *testing.T) {
	for src, want := range map[string]string{
		"a: 1\n\tb: 2\n":                       "line 2: tab in indentation",
		"a: &x 1\n":                            "line 1: anchors",
		"a: !!str 1\n":                         "line 1: tags",
		"a: |\n  text\n":                       "line 1: block scalars",
		"a: {b: 1}\n":                          "line 1: flow mappings",
		"a: 'open\n":                           "line 1: unterminated quoted value",
		"a: [x, y\n":                           "line 1: unterminated [ list",
		"a: [x, [y]]\n":                        "line 1: nested collections",
		"a: 1\n---\nb: 2\n":                    "line 2: a second YAML document",
		"a: 1\n  b: 2\n":                       "line 2: unexpected \"b: 2\" inside a mapping",
		"a:\n  - x\n    y\n":                   "line 3: unexpected \"y\" inside a list",
		"a:\n  - x\n b: 1\n":                   "line 3: unexpected \"b: 1\"",
		"  a: 1\n":                             "line 1: the document must start in column 1",
		"a: 1\nnot a key\n":                    "line 2: expected \"key: value\"",
		"? complex\n":                          "line 1: complex mapping keys",
		"a: 'x' y\n":                           "line 1: unexpected \"y\" after a quoted value",
		`a: "\q"` + "\n":                       `line 1: unknown escape \q`,
		`a: "\u12"` + "\n":                     `line 1: short \u escape`,
		"a: \xff\n":                            "not UTF-8",
		"%YAML 1.1\n---\na: 1\n":               "line 1: YAML directives",
		": v\n":                                "line 1: empty mapping key",
		strings.Repeat("- ", 40) + "x\n":       "nested more than 32 levels",
		"a: `cmd`\n":                           "line 1: a plain value cannot start",
		"a:\n  b:\n    c: 1\n   d: 2\n":        "line 4: unexpected \"d: 2\"",
		"a: x\n- item\n":                       "line 2: unexpected \"- item\"",
		"list:\n- a\n- b\n  - c\n":             "line 4: unexpected \"- c\" inside a list",
		"a: [x,, y]\n":                         "line 1: empty item",
		"a: [x] y\n":                           "line 1: unexpected \"y\" after a [ list",
		"a: \"x\\\"\n":                         "line 1: unterminated quoted value",
		"k: v\n...\nk2: v2\n":                  "", // "..." ends nothing here: tolerated
		"a:\n    - x\n  - y\n":                 "line 3: unexpected \"- y\"",
		"top:\n  inner: 1\nbad\n":              "line 3: expected \"key: value\"",
		"x: 1\ny:\n  - a: 1\n    b: 2\n   c\n": "line 5: unexpected \"c\"",
	} {
		_, err := parseYAML([]byte(src))
		if want == "" {
			require.NoError(t, err, "%q", src)
			continue
		}
		require.Error(t, err, "%q", src)
		require.Contains(t, err.Error(), want, "%q", src)
	}
}

func TestYAMLRepeatedKeyKeepsTheLast(t *testing.T) {
	n, err := parseYAML([]byte("a: 1\na: 2\n"))
	require.NoError(t, err)
	require.Equal(t, "2", n.get("a").value)
}
