package broker

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // RocketMQ's signature algorithm
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// hostileACL: an application account that may use only TopicA (and any group), and an admin.
const hostileACL = `accounts:
  - accessKey: limited-ak
    secretKey: limited-sk
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - TopicA=PUB|SUB
  - accessKey: admin-ak
    secretKey: admin-sk
    admin: true
`

// signed adds the AccessKey and the Signature Java's AclClientRPCHook computes.
func signed(ext map[string]string, body []byte, ak, sk string) map[string]string {
	out := map[string]string{"AccessKey": ak}
	for k, v := range ext {
		out[k] = v
	}
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m := hmac.New(sha1.New, []byte(sk))
	for _, k := range keys {
		m.Write([]byte(out[k]))
	}
	m.Write(body)
	out["Signature"] = base64.StdEncoding.EncodeToString(m.Sum(nil))
	return out
}

// offsetMsgID is the offset message id of the record at off stored by the broker at addr.
func offsetMsgID(t *testing.T, addr string, off int64) string {
	t.Helper()
	ap, err := netip.ParseAddrPort(addr)
	must(t, err)
	var b [16]byte
	ip := ap.Addr().As4()
	copy(b[:4], ip[:])
	binary.BigEndian.PutUint32(b[4:8], uint32(ap.Port()))
	binary.BigEndian.PutUint64(b[8:], uint64(off))
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// TestACLReadsByOffset plays issue 7's row 3 and row 11's broker part. Before, with ACL on, an
// account allowed only TopicA read another topic's message with VIEW_MESSAGE_BY_ID at its offset,
// copied it into its own %RETRY% group with CONSUMER_SEND_MSG_BACK and read the broker's
// configuration, file paths included. Now each is refused with the AclException text, nothing is
// copied, and the account's own topic it reads as before.
func TestACLReadsByOffset(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	must(t, os.WriteFile(path, []byte(hostileACL), 0o600))
	c, b, _ := hostileCluster(t, map[string]string{"aclEnable": "true", "aclConfigPath": path})
	w := startWorkload(t, c, &primitive.Credentials{AccessKey: "admin-ak", SecretKey: "admin-sk"})
	admin, limited := dial(t, b.Addr), dial(t, b.Addr)
	asAdmin := func(code int, ext map[string]string, body []byte) *cluster.Response {
		return admin.call(code, signed(ext, body, "admin-ak", "admin-sk"), body)
	}
	asLimited := func(code int, ext map[string]string, body []byte) *cluster.Response {
		return limited.call(code, signed(ext, body, "limited-ak", "limited-sk"), body)
	}
	put := func(topic, text string) int64 {
		body := []byte(text)
		ext := map[string]string{"producerGroup": "PG_ACL", "topic": topic, "defaultTopic": "TBW102",
			"defaultTopicQueueNums": "1", "queueId": "0", "sysFlag": "0",
			"bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0", "properties": ""}
		resp := asAdmin(codeSendMessage, ext, body)
		requireAnswer(t, resp, respSuccess, "")
		id, err := hex.DecodeString(resp.ExtFields["msgId"])
		must(t, err)
		return int64(binary.BigEndian.Uint64(id[8:]))
	}
	secret, own := put("Secret", "the secret"), put("TopicA", "mine")

	const denied = "org.apache.rocketmq.acl.common.AclException: No default permission for topic:Secret"
	requireAnswer(t, asLimited(codeViewMessageByID, map[string]string{"offset": strconv.FormatInt(secret, 10)}, nil), respSystemError, denied)
	requireAnswer(t, asLimited(codeViewMessageByID, map[string]string{"offset": "0"}, nil), respSystemError,
		"No default permission for topic:"+w.topic)
	resp := asLimited(codeViewMessageByID, map[string]string{"offset": strconv.FormatInt(own, 10)}, nil)
	requireAnswer(t, resp, respSuccess, "")
	if !strings.Contains(string(resp.Body), "mine") {
		t.Fatalf("the account's own message: %s", resp)
	}
	requireAnswer(t, asLimited(codeConsumerSendMsgBack, map[string]string{"offset": strconv.FormatInt(secret, 10), "group": "LimitedG",
		"delayLevel": "-1"}, nil), respSystemError, denied)
	requireAnswer(t, asLimited(309, map[string]string{"consumerGroup": "LimitedG", "clientId": "x",
		"msgId": offsetMsgID(t, b.Addr, secret)}, nil), respSystemError, denied)
	for _, dest := range []string{"%RETRY%LimitedG", "%DLQ%LimitedG"} {
		resp := asAdmin(codeGetMaxOffset, map[string]string{"topic": dest, "queueId": "0"}, nil)
		if resp.ExtFields["offset"] != "0" {
			t.Fatalf("the secret message was copied to %s: %s", dest, resp)
		}
	}

	// The configuration (with its file paths) and the metadata dumps are for admins.
	for _, code := range []int{codeGetBrokerConfig, codeGetAllTopicConfig, codeGetAllSubGroups, 28, 43} {
		requireAnswer(t, asLimited(code, nil, nil), respSystemError,
			"Need admin permission for request code="+strconv.Itoa(code)+", but accessKey=limited-ak is not")
	}
	resp = asAdmin(codeGetBrokerConfig, nil, nil)
	requireAnswer(t, resp, respSuccess, "")
	if !strings.Contains(string(resp.Body), "storePathRootDir") {
		t.Fatalf("GET_BROKER_CONFIG for an admin: %s", resp)
	}
	w.check()
}
