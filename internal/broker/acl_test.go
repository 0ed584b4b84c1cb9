package broker_test

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // RocketMQ's signature algorithm
	"encoding/base64"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/acl"
	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

const brokerACL = `globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: producer-ak
    secretKey: producer-sk
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - Orders=PUB|SUB
      - Secret=DENY
    groupPerms:
      - Blocked=DENY
  - accessKey: admin-ak
    secretKey: admin-sk
    admin: true
`

// aclBroker starts a broker with plain ACL over the given plain_acl.yml.
func aclBroker(t *testing.T, yml string) *brokertest.Broker {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plain_acl.yml")
	require.NoError(t, os.WriteFile(path, []byte(yml), 0o600))
	return brokertest.Start(t, func(o *broker.Options) { o.ACL = &acl.Options{Path: path} })
}

// sign adds AccessKey and a Signature computed as the Java client does: HmacSHA1 over the values
// of the ext fields in key order, then the body, Base64.
func sign(req *protocol.Command, ak, sk string) *protocol.Command {
	req.ExtFields.Set("AccessKey", ak)
	keys := make([]string, 0, req.ExtFields.Len())
	for k := range req.ExtFields.All() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m := hmac.New(sha1.New, []byte(sk))
	for _, k := range keys {
		m.Write([]byte(req.ExtFields.Get(k)))
	}
	m.Write(req.Body)
	req.ExtFields.Set("Signature", base64.StdEncoding.EncodeToString(m.Sum(nil)))
	return req
}

// requireACLDenied checks the 4.9 answer to a refused request: SYSTEM_ERROR with the
// AclException text.
func requireACLDenied(t *testing.T, resp *protocol.Command, msg string) {
	t.Helper()
	requireCode(t, resp, protocol.SystemError)
	require.Equal(t, "org.apache.rocketmq.acl.common.AclException: "+msg, resp.Remark)
}

func TestACLSignedRequestsAreServed(t *testing.T) {
	b := aclBroker(t, brokerACL)
	c := b.Dial(t)
	createTopic := sign(brokertest.CreateTopicRequest("Orders", 4), "admin-ak", "admin-sk")
	requireCode(t, c.Call(createTopic), protocol.Success)

	resp := c.Call(sign(brokertest.SendRequest(brokertest.Msg{Topic: "Orders", QueueID: 1, Body: []byte("o-1")}),
		"producer-ak", "producer-sk"))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "1", resp.ExtFields.Get("queueId"))
	require.Eventually(t, func() bool { return maxOffsetSigned(t, c, "Orders", 1) == 1 }, waitFor, tick)

	resp = c.Call(sign(brokertest.PullRequest(brokertest.Pull{Group: "G", Topic: "Orders", QueueID: 1,
		SysFlag: brokertest.PullSubscription, Sub: "*"}), "producer-ak", "producer-sk"))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, []string{"o-1"}, bodies(brokertest.Records(t, resp)))

	// A signed heartbeat of a consumer group with SUB on its group and topic.
	hb := sign(brokertest.HeartbeatRequest(t, "client-1", "G", map[string]string{"Orders": "*"}), "producer-ak", "producer-sk")
	requireCode(t, c.Call(hb), protocol.Success)
}

func TestACLRefusals(t *testing.T) {
	b := aclBroker(t, brokerACL)
	c := b.Dial(t)
	requireCode(t, c.Call(sign(brokertest.CreateTopicRequest("Orders", 4), "admin-ak", "admin-sk")), protocol.Success)
	send := func() *protocol.Command {
		return brokertest.SendRequest(brokertest.Msg{Topic: "Orders", Body: []byte("x")})
	}

	t.Run("bad signature", func(t *testing.T) {
		requireACLDenied(t, c.Call(sign(send(), "producer-ak", "not-the-secret")),
			"Check signature failed for accessKey=producer-ak")
		// A body changed after signing.
		req := sign(send(), "producer-ak", "producer-sk")
		req.Body = []byte("y")
		requireACLDenied(t, c.Call(req), "Check signature failed for accessKey=producer-ak")
	})
	t.Run("unknown access key", func(t *testing.T) {
		requireACLDenied(t, c.Call(sign(send(), "stranger-ak", "producer-sk")), "No acl config for stranger-ak")
	})
	t.Run("not whitelisted and unsigned", func(t *testing.T) {
		requireACLDenied(t, c.Call(send()), "No accessKey is configured")
		requireACLDenied(t, c.Call(brokertest.QueueRequest(protocol.GetMaxOffset, "Orders", 0)), "No accessKey is configured")
	})
	t.Run("topic DENY", func(t *testing.T) {
		req := sign(brokertest.SendRequest(brokertest.Msg{Topic: "Secret", Body: []byte("x")}), "producer-ak", "producer-sk")
		requireACLDenied(t, c.Call(req), "No default permission for topic:Secret")
		// Not listed: defaultTopicPerm DENY.
		req = sign(brokertest.SendV2Request(brokertest.Msg{Topic: "Other", Body: []byte("x")}), "producer-ak", "producer-sk")
		requireACLDenied(t, c.Call(req), "No default permission for topic:Other")
	})
	t.Run("group DENY", func(t *testing.T) {
		req := sign(brokertest.PullRequest(brokertest.Pull{Group: "Blocked", Topic: "Orders", SysFlag: brokertest.PullSubscription,
			Sub: "*"}), "producer-ak", "producer-sk")
		requireACLDenied(t, c.Call(req), "No default permission for group:Blocked")
		hb := sign(brokertest.HeartbeatRequest(t, "client-2", "Blocked", map[string]string{"Orders": "*"}), "producer-ak", "producer-sk")
		requireACLDenied(t, c.Call(hb), "No default permission for group:Blocked")
	})
	t.Run("admin-only code", func(t *testing.T) {
		req := sign(brokertest.CreateTopicRequest("Sneaky", 4), "producer-ak", "producer-sk")
		requireACLDenied(t, c.Call(req), "Need admin permission for request code=17, but accessKey=producer-ak is not")
	})
	// Nothing refused was stored or created.
	require.Equal(t, int64(0), maxOffsetSigned(t, c, "Orders", 0)+maxOffsetSigned(t, c, "Orders", 1)+
		maxOffsetSigned(t, c, "Orders", 2)+maxOffsetSigned(t, c, "Orders", 3))
	resp := c.Call(sign(brokertest.QueueRequest(protocol.GetMaxOffset, "Sneaky", 0), "admin-ak", "admin-sk"))
	requireCode(t, resp, protocol.Success)
	require.Equal(t, "0", resp.ExtFields.Get("offset"))
}

// maxOffsetSigned is maxOffset for a broker with ACL on.
func maxOffsetSigned(t *testing.T, c *brokertest.Conn, topic string, queueID int32) int64 {
	t.Helper()
	resp := c.Call(sign(brokertest.QueueRequest(protocol.GetMaxOffset, topic, queueID), "admin-ak", "admin-sk"))
	requireCode(t, resp, protocol.Success)
	return brokertest.ExtInt(t, resp, "offset")
}

func TestACLGlobalWhitelistSkipsEverything(t *testing.T) {
	b := aclBroker(t, strings.Replace(brokerACL, "10.10.103.*", "127.0.0.*", 1))
	c := b.Dial(t)
	// From a whitelisted address: no signature, a DENY topic, an admin code; all served.
	requireCode(t, c.Call(brokertest.CreateTopicRequest("Secret", 2)), protocol.Success)
	s := mustSend(t, c, brokertest.SendRequest(brokertest.Msg{Topic: "Secret", QueueID: 1, Body: []byte("x")}))
	require.Equal(t, int64(0), s.queueOffset)
	require.Equal(t, int64(1), maxOffsetSigned(t, c, "Secret", 1))
}

func TestACLOnewayRefusalIsSilent(t *testing.T) {
	b := aclBroker(t, brokerACL)
	c := b.Dial(t)
	req := brokertest.SendRequest(brokertest.Msg{Topic: "Orders", Body: []byte("x")})
	req.Flag = protocol.FlagOneway
	op := c.Send(req)
	for range 2 { // round trips after it: a stray answer would have been read by now
		maxOffsetSigned(t, c, "Orders", 0)
	}
	require.False(t, c.Answered(op), "a oneway request gets no answer, refused or not")
}

func TestACLFileMustExist(t *testing.T) {
	o := brokertest.Options(t.TempDir())
	o.ACL = &acl.Options{Path: filepath.Join(t.TempDir(), "plain_acl.yml")}
	_, err := broker.New(o, nil)
	require.ErrorContains(t, err, "plain_acl.yml")
}

// TestEveryServedCodeHasAnACLRule: every request code the broker serves maps to a rule of the
// ACL's table (a resource check or admin-only); a code without one would be refused while ACL is
// on, so a new handler must come with its rule.
func TestEveryServedCodeHasAnACLRule(t *testing.T) {
	codes := processor.Codes()
	require.NotEmpty(t, codes)
	for _, code := range codes {
		require.True(t, acl.HasRule(code), "request code %d (%s) is served but has no ACL rule in internal/acl/rules.go", code, code)
	}
}

// TestACLReadsByOffsetCheckTheRecordsTopic: an account that may read only Orders cannot read a
// Secret message by its offset (VIEW_MESSAGE_BY_ID), nor copy it into its own retry topic
// (CONSUMER_SEND_MSG_BACK), nor ask for it by message id (CONSUME_MESSAGE_DIRECTLY); its own
// topic's messages it reads as before.
func TestACLReadsByOffsetCheckTheRecordsTopic(t *testing.T) {
	b := aclBroker(t, brokerACL)
	c := b.Dial(t)
	for _, topic := range []string{"Orders", "Secret"} {
		requireCode(t, c.Call(sign(brokertest.CreateTopicRequest(topic, 1), "admin-ak", "admin-sk")), protocol.Success)
	}
	put := func(topic string) int64 {
		resp := c.Call(sign(brokertest.SendRequest(brokertest.Msg{Topic: topic, Body: []byte("body of " + topic)}), "admin-ak", "admin-sk"))
		requireCode(t, resp, protocol.Success)
		_, off, err := message.ParseOffsetMsgID(resp.ExtFields.Get("msgId"))
		require.NoError(t, err)
		return off
	}
	secret, orders := put("Secret"), put("Orders")
	require.Eventually(t, func() bool { return maxOffsetSigned(t, c, "Orders", 0) == 1 }, waitFor, tick)
	const denied = "No default permission for topic:Secret"
	view := func(off int64) *protocol.Command {
		return sign(protocol.NewHeaderRequest(protocol.ViewMessageByID, &protocol.ViewMessageRequestHeader{Offset: off}, nil),
			"producer-ak", "producer-sk")
	}
	requireACLDenied(t, c.Call(view(secret)), denied)
	resp := c.Call(view(orders))
	requireCode(t, resp, protocol.Success)
	require.Contains(t, string(resp.Body), "body of Orders")

	back := sign(protocol.NewHeaderRequest(protocol.ConsumerSendMsgBack, &protocol.ConsumerSendMsgBackRequestHeader{
		Offset: secret, Group: "G", DelayLevel: -1}, nil), "producer-ak", "producer-sk")
	requireACLDenied(t, c.Call(back), denied)
	direct := sign(protocol.NewHeaderRequest(protocol.ConsumeMessageDirectly, &protocol.ConsumeMessageDirectlyResultRequestHeader{
		ConsumerGroup: "G", ClientID: protocol.Some("c"), MsgID: protocol.Some(message.OffsetMsgID(brokertest.StoreHost, secret))}, nil),
		"producer-ak", "producer-sk")
	requireACLDenied(t, c.Call(direct), denied)
	for _, dest := range []string{"%RETRY%G", "%DLQ%G"} {
		resp := c.Call(sign(brokertest.QueueRequest(protocol.GetMaxOffset, dest, 0), "admin-ak", "admin-sk"))
		require.Equal(t, "0", resp.ExtFields.Get("offset"), "nothing was copied to %s", dest)
	}
}

// TestACLMetadataIsAdminOnly: the broker's configuration (with its file paths) and its metadata
// dumps need an admin account.
func TestACLMetadataIsAdminOnly(t *testing.T) {
	b := aclBroker(t, brokerACL)
	c := b.Dial(t)
	for _, code := range []protocol.RequestCode{protocol.GetBrokerConfig, protocol.GetAllTopicConfig,
		protocol.GetAllSubscriptionGroupConfig, protocol.GetAllConsumerOffset, protocol.GetBrokerRuntimeInfo} {
		req := sign(protocol.NewRequest(code, nil, nil), "producer-ak", "producer-sk")
		requireACLDenied(t, c.Call(req), "Need admin permission for request code="+strconv.Itoa(int(code))+", but accessKey=producer-ak is not")
		requireCode(t, c.Call(sign(protocol.NewRequest(code, nil, nil), "admin-ak", "admin-sk")), protocol.Success)
	}
}
