package acl

import (
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// DeniedError is a request the ACL refuses. Its message is the AclException text of RocketMQ
// 4.9's PlainPermissionManager.
type DeniedError struct {
	Msg string
}

func (e *DeniedError) Error() string { return e.Msg }

// Remark is the SYSTEM_ERROR remark a 4.9 broker answers with: the exception as Java prints it.
func (e *DeniedError) Remark() string { return "org.apache.rocketmq.acl.common.AclException: " + e.Msg }

func denied(format string, args ...any) *DeniedError {
	return &DeniedError{Msg: fmt.Sprintf(format, args...)}
}

// Check decides whether c lets req, from remoteAddr ("ip:port"), through, in the order of 4.9's
// PlainPermissionManager.validate:
//  1. a remote address in globalWhiteRemoteAddresses passes;
//  2. the request must name a known AccessKey;
//  3. a remote address in that account's whiteRemoteAddress passes;
//  4. the Signature must match (Java's rule, or the Go client's);
//  5. a send to RMQ_SYS_TRACE_TOPIC passes;
//  6. admin-only codes need an admin account; an admin without topicPerms and groupPerms passes;
//  7. every topic and group the request names needs its permission (docs/security.md).
//
// It returns nil or a *DeniedError.
func (c *Config) Check(remoteAddr string, req *protocol.Command) error {
	ip := remoteIP(remoteAddr)
	for _, p := range c.GlobalWhiteRemoteAddresses {
		if p.Match(ip) {
			return nil
		}
	}
	var cred protocol.SessionCredentials
	_ = cred.Decode(req.ExtFields) // every field is optional: no error
	if !cred.AccessKey.Valid {
		return denied("No accessKey is configured")
	}
	ak := cred.AccessKey.V
	a := c.Accounts[ak]
	if a == nil {
		return denied("No acl config for %s", ak)
	}
	if a.WhiteRemoteAddress.Match(ip) {
		return nil
	}
	if !a.verify(req) {
		return denied("Check signature failed for accessKey=%s", ak)
	}
	var buf [4]resource
	needs, err := resources(req, buf[:0])
	if err != nil {
		return err
	}
	for _, r := range needs {
		if !r.group && r.name == systopic.Trace && r.perm == Pub { // traces need no permission
			return nil
		}
	}
	if NeedsAdmin(req.RequestCode()) && !a.Admin {
		return denied("Need admin permission for request code=%d, but accessKey=%s is not", req.Code, ak)
	}
	if a.Admin && len(a.TopicPerms) == 0 && len(a.GroupPerms) == 0 {
		return nil
	}
	for _, r := range needs {
		if owned, _ := a.owned(r); !owned.Allows(r.perm) {
			return denied("No default permission for %s", r.describe())
		}
	}
	return nil
}

// resources appends what req needs permissions on (Java PlainAccessValidator.parse, plus
// SEND_BATCH_MESSAGE as RocketMQ 5 checks it). A field that is missing names nothing.
func resources(req *protocol.Command, out []resource) ([]resource, error) {
	ext := req.ExtFields
	topic := func(key string, p Perm) {
		if v, ok := ext.Lookup(key); ok {
			out = append(out, topicRes(v, p))
		}
	}
	group := func(key string, p Perm) {
		if v, ok := ext.Lookup(key); ok {
			out = append(out, groupRes(v, p))
		}
	}
	switch req.RequestCode() {
	case protocol.SendMessage:
		topic(protocol.ExtTopic, Pub) // a retry topic %RETRY%g needs SUB on g instead, below
	case protocol.SendMessageV2, protocol.SendBatchMessage:
		topic(protocol.ExtSendTopicV2, Pub)
	case protocol.ConsumerSendMsgBack:
		group(protocol.ExtGroup, Sub)
	case protocol.PullMessage:
		topic(protocol.ExtTopic, Sub)
		group(protocol.ExtConsumerGroup, Sub)
	case protocol.QueryMessage:
		topic(protocol.ExtTopic, Sub)
	case protocol.HeartBeat:
		hb, err := body.DecodeHeartbeatData(req.Body)
		if err != nil {
			return nil, denied("%v", err)
		}
		for _, cd := range hb.ConsumerDataSet {
			out = append(out, groupRes(cd.GroupName, Sub))
			for _, sd := range cd.SubscriptionDataSet {
				out = append(out, topicRes(sd.Topic, Sub))
			}
		}
	case protocol.UnregisterClient, protocol.GetConsumerListByGroup:
		group(protocol.ExtConsumerGroup, Sub)
	case protocol.UpdateConsumerOffset:
		group(protocol.ExtConsumerGroup, Sub)
		topic(protocol.ExtTopic, Sub)
	}
	// Sending to a group's retry topic (a consumer's fallback for CONSUMER_SEND_MSG_BACK) is
	// consuming on behalf of that group: SUB on the group, not PUB.
	for i := range out {
		if out[i].group && out[i].perm == Pub {
			out[i].perm = Sub
		}
	}
	return out, nil
}
