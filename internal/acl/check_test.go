package acl

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

const checkACL = `
globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: user-0001
    secretKey: secret-0001
    whiteRemoteAddress: 192.168.1.7
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
      - topicP=PUB
    groupPerms:
      - groupA=DENY
      - groupB=PUB|SUB
  - accessKey: admin-0001
    secretKey: secret-0002
    admin: true
  - accessKey: admin-0002
    secretKey: secret-0003
    admin: true
    defaultTopicPerm: SUB
    defaultGroupPerm: SUB
    topicPerms: [secret=DENY]
`

// signedReq builds a request signed by ak with sk, the content assembled here by hand: values
// of the sorted ext fields, then the body.
func signedReq(ak, sk string, code protocol.RequestCode, ext map[string]string, body string) *protocol.Command {
	all := map[string]string{"AccessKey": ak}
	for k, v := range ext {
		all[k] = v
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var content strings.Builder
	for _, k := range keys {
		content.WriteString(all[k])
	}
	all["Signature"] = hmacB64(sk, content.String()+body)
	return &protocol.Command{Code: int32(code), ExtFields: protocol.NewExt(all), Body: []byte(body)}
}

func user(code protocol.RequestCode, ext map[string]string, body string) *protocol.Command {
	return signedReq("user-0001", "secret-0001", code, ext, body)
}

const client = "127.0.0.1:40000"

func mustConfig(t *testing.T, src string) *Config {
	t.Helper()
	c, err := ParseConfig([]byte(src))
	require.NoError(t, err)
	return c
}

// requireDenied checks that err is a denial whose message is msg.
func requireDenied(t *testing.T, err error, msg string) {
	t.Helper()
	require.Error(t, err)
	d, ok := err.(*DeniedError)
	require.True(t, ok, "want *DeniedError, got %T %v", err, err)
	require.Equal(t, msg, d.Msg)
	require.Equal(t, "org.apache.rocketmq.acl.common.AclException: "+msg, d.Remark())
}

func TestCheckIdentity(t *testing.T) {
	c := mustConfig(t, checkACL)
	send := map[string]string{"topic": "topicB", "producerGroup": "PG"}

	require.NoError(t, c.Check(client, user(protocol.SendMessage, send, "body")))

	// Whitelisted addresses need nothing at all.
	anon := &protocol.Command{Code: int32(protocol.SendMessage), ExtFields: protocol.NewExt(map[string]string{"topic": "topicA"})}
	require.NoError(t, c.Check("10.10.103.9:1234", anon), "global whitelist")
	require.NoError(t, c.Check("[::ffff:10.10.103.9]:1234", anon), "global whitelist, IPv4-mapped")
	requireDenied(t, c.Check(client, anon), "No accessKey is configured")
	requireDenied(t, c.Check(client, &protocol.Command{Code: 34}), "No accessKey is configured")

	unknown := signedReq("nobody-01", "secret-0001", protocol.SendMessage, send, "body")
	requireDenied(t, c.Check(client, unknown), "No acl config for nobody-01")

	forged := signedReq("user-0001", "not-the-secret", protocol.SendMessage, send, "body")
	requireDenied(t, c.Check(client, forged), "Check signature failed for accessKey=user-0001")
	// The account's own whitelist skips the signature and the permissions (4.9).
	require.NoError(t, c.Check("192.168.1.7:5555", forged))
	deniedTopic := signedReq("user-0001", "x", protocol.SendMessage, map[string]string{"topic": "topicA"}, "")
	require.NoError(t, c.Check("192.168.1.7:5555", deniedTopic))
	requireDenied(t, c.Check("192.168.1.8:5555", deniedTopic), "Check signature failed for accessKey=user-0001")

	tampered := user(protocol.SendMessage, send, "body")
	tampered.Body = []byte("BODY")
	requireDenied(t, c.Check(client, tampered), "Check signature failed for accessKey=user-0001")
}

func TestCheckPermissions(t *testing.T) {
	c := mustConfig(t, checkACL)
	ok := func(req *protocol.Command) { t.Helper(); require.NoError(t, c.Check(client, req)) }
	no := func(req *protocol.Command, msg string) { t.Helper(); requireDenied(t, c.Check(client, req), msg) }

	// Sends need PUB on the topic.
	ok(user(protocol.SendMessage, map[string]string{"topic": "topicB"}, ""))
	ok(user(protocol.SendMessage, map[string]string{"topic": "topicP"}, ""))
	no(user(protocol.SendMessage, map[string]string{"topic": "topicA"}, ""), "No default permission for topic:topicA")
	no(user(protocol.SendMessage, map[string]string{"topic": "topicC"}, ""), "No default permission for topic:topicC")
	no(user(protocol.SendMessage, map[string]string{"topic": "other"}, ""), "No default permission for topic:other")
	ok(user(protocol.SendMessageV2, map[string]string{"a": "PG", "b": "topicB"}, ""))
	no(user(protocol.SendMessageV2, map[string]string{"a": "PG", "b": "topicC"}, ""), "No default permission for topic:topicC")
	no(user(protocol.SendBatchMessage, map[string]string{"a": "PG", "b": "topicA"}, ""), "No default permission for topic:topicA")
	// A group's retry topic is the group, and sending to it is consuming: SUB on the group.
	ok(user(protocol.SendMessage, map[string]string{"topic": "%RETRY%groupB"}, ""))
	ok(user(protocol.SendMessageV2, map[string]string{"b": "%RETRY%anyGroup"}, "")) // defaultGroupPerm SUB
	no(user(protocol.SendMessage, map[string]string{"topic": "%RETRY%groupA"}, ""), "No default permission for group:groupA")
	// The trace topic is always writable once signed.
	ok(user(protocol.SendMessage, map[string]string{"topic": "RMQ_SYS_TRACE_TOPIC"}, ""))

	// Pulls need SUB on the topic and on the group.
	ok(user(protocol.PullMessage, map[string]string{"topic": "topicC", "consumerGroup": "groupB"}, ""))
	ok(user(protocol.PullMessage, map[string]string{"topic": "topicB", "consumerGroup": "someGroup"}, ""))
	no(user(protocol.PullMessage, map[string]string{"topic": "topicP", "consumerGroup": "groupB"}, ""), "No default permission for topic:topicP")
	no(user(protocol.PullMessage, map[string]string{"topic": "topicC", "consumerGroup": "groupA"}, ""), "No default permission for group:groupA")
	ok(user(protocol.PullMessage, map[string]string{"topic": "%RETRY%groupB", "consumerGroup": "groupB"}, ""))

	ok(user(protocol.UpdateConsumerOffset, map[string]string{"topic": "topicC", "consumerGroup": "groupB", "queueId": "0", "commitOffset": "5"}, ""))
	no(user(protocol.UpdateConsumerOffset, map[string]string{"topic": "topicA", "consumerGroup": "groupB"}, ""), "No default permission for topic:topicA")
	no(user(protocol.ConsumerSendMsgBack, map[string]string{"group": "groupA", "offset": "1"}, ""), "No default permission for group:groupA")
	ok(user(protocol.ConsumerSendMsgBack, map[string]string{"group": "groupB", "offset": "1"}, ""))
	no(user(protocol.GetConsumerListByGroup, map[string]string{"consumerGroup": "groupA"}, ""), "No default permission for group:groupA")
	no(user(protocol.UnregisterClient, map[string]string{"clientID": "c", "consumerGroup": "groupA"}, ""), "No default permission for group:groupA")
	ok(user(protocol.UnregisterClient, map[string]string{"clientID": "c", "producerGroup": "PG"}, ""))
	no(user(protocol.QueryMessage, map[string]string{"topic": "topicA", "key": "k"}, ""), "No default permission for topic:topicA")

	// Heartbeats: every consumer group and every subscribed topic.
	hb := func(group, topic string) string {
		return `{"clientID":"c","producerDataSet":[{"groupName":"PG"}],"consumerDataSet":[{"groupName":"` + group +
			`","subscriptionDataSet":[{"topic":"` + topic + `","subString":"*"}]}]}`
	}
	ok(user(protocol.HeartBeat, nil, hb("groupB", "topicC")))
	ok(user(protocol.HeartBeat, nil, hb("groupB", "%RETRY%groupB")))
	no(user(protocol.HeartBeat, nil, hb("groupA", "topicC")), "No default permission for group:groupA")
	no(user(protocol.HeartBeat, nil, hb("groupB", "topicA")), "No default permission for topic:topicA")
	ok(user(protocol.HeartBeat, nil, `{"clientID":"c","producerDataSet":[{"groupName":"PG"}]}`))
	err := c.Check(client, user(protocol.HeartBeat, nil, `{"consumerDataSet":`))
	require.ErrorContains(t, err, "HeartbeatData")

	// Offset lookups need PUB or SUB on the topic.
	ok(user(protocol.GetMaxOffset, map[string]string{"topic": "topicP", "queueId": "0"}, ""))
	ok(user(protocol.SearchOffsetByTimestamp, map[string]string{"topic": "topicC", "queueId": "0"}, ""))
	no(user(protocol.GetMaxOffset, map[string]string{"topic": "topicA", "queueId": "0"}, ""), "No default permission for topic:topicA")
	no(user(protocol.GetMinOffset, map[string]string{"queueId": "0"}, ""), "The request names no topic: the field topic is missing")

	// Orderly consumers' locks: the body's group and every queue's topic.
	lock := func(group, topic string) string {
		return `{"consumerGroup":"` + group + `","clientId":"c","mqSet":[{"topic":"topicC","brokerName":"b","queueId":0},` +
			`{"topic":"` + topic + `","brokerName":"b","queueId":1}]}`
	}
	ok(user(protocol.LockBatchMQ, nil, lock("groupB", "topicB")))
	no(user(protocol.LockBatchMQ, nil, lock("groupA", "topicB")), "No default permission for group:groupA")
	no(user(protocol.UnlockBatchMQ, nil, lock("groupB", "topicA")), "No default permission for topic:topicA")

	// A code the table has no rule for is refused, even from a whitelisted address.
	no(user(protocol.GetRouteinfoByTopic, map[string]string{"topic": "topicB"}, ""),
		"No ACL rule for request code=105: it is refused while ACL is on")
	anon := &protocol.Command{Code: int32(protocol.RequestCode(200999))}
	requireDenied(t, c.Check("10.10.103.9:1234", anon), "No ACL rule for request code=200999: it is refused while ACL is on")
}

// TestMayReadChecksTheTopicRead: the check a service makes once it knows the topic of the
// record it read by offset or id.
func TestMayReadChecksTheTopicRead(t *testing.T) {
	c := mustConfig(t, checkACL)
	view := user(protocol.ViewMessageByID, map[string]string{"offset": "0"}, "")
	require.NoError(t, c.Check(client, view), "the header names nothing: the signature is enough")
	require.NoError(t, c.MayRead(client, view, "topicC"))
	require.NoError(t, c.MayRead(client, view, "%RETRY%groupB"))
	requireDenied(t, c.MayRead(client, view, "topicA"), "No default permission for topic:topicA")
	requireDenied(t, c.MayRead(client, view, "topicP"), "No default permission for topic:topicP")
	requireDenied(t, c.MayRead(client, view, "%RETRY%groupA"), "No default permission for group:groupA")
	requireDenied(t, c.MayWrite(client, view, "topicC"), "No default permission for topic:topicC")
	require.NoError(t, c.MayWrite(client, view, "topicP"))

	// Whitelists exempt reads as they exempt requests; a forged request is refused again.
	anon := &protocol.Command{Code: int32(protocol.ViewMessageByID)}
	require.NoError(t, c.MayRead("10.10.103.9:1234", anon, "topicA"))
	requireDenied(t, c.MayRead(client, anon, "topicC"), "No accessKey is configured")
	forged := signedReq("user-0001", "not-the-secret", protocol.ViewMessageByID, nil, "")
	requireDenied(t, c.MayRead(client, forged, "topicC"), "Check signature failed for accessKey=user-0001")
	admin := signedReq("admin-0001", "secret-0002", protocol.ViewMessageByID, nil, "")
	require.NoError(t, c.MayRead(client, admin, "topicA"), "an admin without perms reads everything")
	admin2 := signedReq("admin-0002", "secret-0003", protocol.ViewMessageByID, nil, "")
	requireDenied(t, c.MayRead(client, admin2, "secret"), "No default permission for topic:secret")
}

// TestAdminOnlyCodes: administration and the broker's own metadata (configuration with its file
// paths, every topic, group and offset) need an admin account.
func TestAdminOnlyCodes(t *testing.T) {
	c := mustConfig(t, checkACL)
	for _, code := range []protocol.RequestCode{protocol.GetBrokerConfig, protocol.GetBrokerRuntimeInfo,
		protocol.GetAllTopicConfig, protocol.GetAllSubscriptionGroupConfig, protocol.GetAllConsumerOffset,
		protocol.GetAllDelayOffset, protocol.GetSystemTopicListFromBroker} {
		requireDenied(t, c.Check(client, user(code, nil, "")),
			"Need admin permission for request code="+strconv.Itoa(int(code))+", but accessKey=user-0001 is not")
		require.NoError(t, c.Check(client, signedReq("admin-0001", "secret-0002", code, nil, "")))
	}
}

func TestCheckAdmin(t *testing.T) {
	c := mustConfig(t, checkACL)
	create := map[string]string{"topic": "T", "readQueueNums": "8"}
	for _, code := range []protocol.RequestCode{protocol.UpdateAndCreateTopic, protocol.UpdateBrokerConfig,
		protocol.DeleteTopicInBroker, protocol.UpdateAndCreateSubscriptionGroup, protocol.DeleteSubscriptionGroup} {
		requireDenied(t, c.Check(client, user(code, create, "")),
			"Need admin permission for request code="+strconv.Itoa(int(code))+", but accessKey=user-0001 is not")
		require.NoError(t, c.Check(client, signedReq("admin-0001", "secret-0002", code, create, "")))
	}
	// An admin without topicPerms and groupPerms may do anything; one with them is checked.
	require.NoError(t, c.Check(client, signedReq("admin-0001", "secret-0002", protocol.SendMessage,
		map[string]string{"topic": "anything"}, "")))
	admin2 := func(topic string) *protocol.Command {
		return signedReq("admin-0002", "secret-0003", protocol.PullMessage, map[string]string{"topic": topic, "consumerGroup": "g"}, "")
	}
	require.NoError(t, c.Check(client, admin2("anything")))
	requireDenied(t, c.Check(client, admin2("secret")), "No default permission for topic:secret")
}

// TestSignatureCoversValuesOnly pins what docs/security.md §3.4 says RocketMQ's scheme cannot
// prevent: a signature covers the values, not the keys nor the code, so one captured from an
// admin's GET_CONSUMER_LIST_BY_GROUP verifies on DELETE_SUBSCRIPTIONGROUP with the key renamed,
// and a request can be replayed. (Kept as RocketMQ's own scheme: every client signs this way.)
func TestSignatureCoversValuesOnly(t *testing.T) {
	c := mustConfig(t, checkACL)
	captured := signedReq("admin-0001", "secret-0002", protocol.GetConsumerListByGroup, map[string]string{"consumerGroup": "G"}, "")
	renamed := &protocol.Command{Code: int32(protocol.DeleteSubscriptionGroup), ExtFields: protocol.NewExt(map[string]string{
		"AccessKey": "admin-0001", "groupName": "G", "Signature": captured.ExtFields.Get("Signature")})}
	require.NoError(t, c.Check(client, renamed), "the replayed signature verifies: a known limit of the scheme")
	require.NoError(t, c.Check(client, captured))
	require.NoError(t, c.Check(client, captured), "and replays are not detected")
	renamed.ExtFields.Set("groupName", "H")
	requireDenied(t, c.Check(client, renamed), "Check signature failed for accessKey=admin-0001")
}
