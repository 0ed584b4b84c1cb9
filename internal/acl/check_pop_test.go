package acl

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestCheckPOPPermissions: the POP codes need SUB on the header's topic and consumer group; a
// POP retry topic (%RETRY%group_topic or %RETRY%group+topic) stands for its origin topic, so an
// ACK of a revived message needs what the POP of it needed; batch acks and assignment queries
// need the same of every group and topic their body names; the request-mode codes are admin's.
func TestCheckPOPPermissions(t *testing.T) {
	c := mustConfig(t, checkACL)
	ok := func(req *protocol.Command) { t.Helper(); require.NoError(t, c.Check(client, req)) }
	no := func(req *protocol.Command, msg string) { t.Helper(); requireDenied(t, c.Check(client, req), msg) }
	hdr := func(topic, group string) map[string]string {
		return map[string]string{"topic": topic, "consumerGroup": group, "queueId": "-1"}
	}
	for _, code := range []protocol.RequestCode{protocol.PopMessage, protocol.PeekMessage, protocol.AckMessage,
		protocol.ChangeMessageInvisibleTime, protocol.Notification} {
		ok(user(code, hdr("topicC", "groupB"), ""))
		no(user(code, hdr("topicP", "groupB"), ""), "No default permission for topic:topicP")
		no(user(code, hdr("topicC", "groupA"), ""), "No default permission for group:groupA")
		ok(user(code, hdr("%RETRY%groupB_topicC", "groupB"), ""))
		ok(user(code, hdr("%RETRY%groupB+topicC", "groupB"), ""))
		no(user(code, hdr("%RETRY%groupB_topicA", "groupB"), ""), "No default permission for topic:topicA")
		no(user(code, hdr("%RETRY%groupA_topicC", "groupA"), ""), "No default permission for group:groupA")
		no(user(code, map[string]string{"consumerGroup": "groupB"}, ""), "The request names no topic: the field topic is missing")
		no(user(code, map[string]string{"topic": "topicC"}, ""), "The request names no group: the field consumerGroup is missing")
	}
	// POLLING_INFO reads a count: PUB or SUB on the topic.
	ok(user(protocol.PollingInfo, hdr("topicP", "groupB"), ""))
	no(user(protocol.PollingInfo, hdr("topicA", "groupB"), ""), "No default permission for topic:topicA")

	batch := func(group, topic string) string {
		return `{"brokerName":"b","acks":[{"c":"groupB","t":"topicC","r":"0","so":0,"q":0,"rq":0,"pt":1,"it":1,"b":[1]},` +
			`{"c":"` + group + `","t":"` + topic + `","r":"1","so":0,"q":0,"rq":0,"pt":1,"it":1,"b":[1]}]}`
	}
	ok(user(protocol.BatchAckMessage, nil, batch("groupB", "%RETRY%groupB_topicC")))
	no(user(protocol.BatchAckMessage, nil, batch("groupA", "topicC")), "No default permission for group:groupA")
	no(user(protocol.BatchAckMessage, nil, batch("groupB", "topicA")), "No default permission for topic:topicA")
	require.ErrorContains(t, c.Check(client, user(protocol.BatchAckMessage, nil, `{"acks":`)), "bad batch ack body")

	assign := func(group, topic string) string {
		return `{"topic":"` + topic + `","consumerGroup":"` + group + `","clientId":"c","strategyName":"AVG","messageModel":"CLUSTERING"}`
	}
	ok(user(protocol.QueryAssignment, nil, assign("groupB", "topicC")))
	ok(user(protocol.QueryAssignment, nil, assign("groupB", "%RETRY%groupB")))
	no(user(protocol.QueryAssignment, nil, assign("groupA", "topicC")), "No default permission for group:groupA")
	no(user(protocol.QueryAssignment, nil, assign("groupB", "topicP")), "No default permission for topic:topicP")

	mode := `{"topic":"topicC","consumerGroup":"groupB","mode":"POP","popShareQueueNum":0}`
	no(user(protocol.SetMessageRequestMode, nil, mode), "Need admin permission for request code=401, but accessKey=user-0001 is not")
	no(user(protocol.GetAllMessageRequestMode, nil, ""), "Need admin permission for request code=402, but accessKey=user-0001 is not")
	require.NoError(t, c.Check(client, signedReq("admin-0001", "secret-0002", protocol.SetMessageRequestMode, nil, mode)))
}
