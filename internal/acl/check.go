package acl

import (
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
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
// PlainPermissionManager.validate, after a first step of its own:
//  0. a code without a rule in the rule table (rules.go) is refused;
//  1. a remote address in globalWhiteRemoteAddresses passes;
//  2. the request must name a known AccessKey;
//  3. a remote address in that account's whiteRemoteAddress passes;
//  4. the Signature must match (Java's rule, or the Go client's);
//  5. a send to RMQ_SYS_TRACE_TOPIC passes;
//  6. admin-only codes need an admin account; an admin without topicPerms and groupPerms passes;
//  7. every topic and group the request names needs its permission (docs/security.md).
//
// It returns nil or a *DeniedError. Reads by offset or id are checked again by their service,
// on the topic of the record read (MayRead, MayWrite).
func (c *Config) Check(remoteAddr string, req *protocol.Command) error {
	r, ok := rules[req.RequestCode()]
	if !ok {
		return denied("No ACL rule for request code=%d: it is refused while ACL is on", req.Code)
	}
	a, exempt, err := c.authenticate(remoteAddr, req)
	if exempt || err != nil {
		return err
	}
	var buf [4]resource
	needs, err := r.resources(req, buf[:0])
	if err != nil {
		return err
	}
	for _, r := range needs {
		if !r.group && r.name == systopic.Trace && r.perm == Pub { // traces need no permission
			return nil
		}
	}
	if r.admin && !a.Admin {
		return denied("Need admin permission for request code=%d, but accessKey=%s is not", req.Code, a.AccessKey)
	}
	return a.allows(needs)
}

// authenticate finds the account that signed req: exempt when a whitelist lets req through
// unchecked, else the account whose signature req carries, or a *DeniedError.
func (c *Config) authenticate(remoteAddr string, req *protocol.Command) (a *Account, exempt bool, err error) {
	ip := remoteIP(remoteAddr)
	for _, p := range c.GlobalWhiteRemoteAddresses {
		if p.Match(ip) {
			return nil, true, nil
		}
	}
	var cred protocol.SessionCredentials
	_ = cred.Decode(req.ExtFields) // every field is optional: no error
	if !cred.AccessKey.Valid {
		return nil, false, denied("No accessKey is configured")
	}
	ak := cred.AccessKey.V
	if a = c.Accounts[ak]; a == nil {
		return nil, false, denied("No acl config for %s", ak)
	}
	if a.WhiteRemoteAddress.Match(ip) {
		return a, true, nil
	}
	if !a.verify(req) {
		return nil, false, denied("Check signature failed for accessKey=%s", ak)
	}
	return a, false, nil
}

// allows checks the account's permission on each resource; an admin without topicPerms and
// groupPerms has every permission.
func (a *Account) allows(needs []resource) error {
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

// MayRead is the check a service makes after a read by offset or id (VIEW_MESSAGE_BY_ID,
// CONSUMER_SEND_MSG_BACK, CONSUME_MESSAGE_DIRECTLY, QUERY_MESSAGE), once the topic of the record
// is known: nil when the account that signed req may subscribe to topic (a retry topic stands for
// its group), else a *DeniedError. req is authenticated again, as Check does.
func (c *Config) MayRead(remoteAddr string, req *protocol.Command, topic string) error {
	return c.may(remoteAddr, req, topicRes(topic, Sub))
}

// MayWrite is MayRead for a record the request writes on behalf of its producer (the half
// message an END_TRANSACTION commits): PUB on topic.
func (c *Config) MayWrite(remoteAddr string, req *protocol.Command, topic string) error {
	return c.may(remoteAddr, req, topicRes(topic, Pub))
}

func (c *Config) may(remoteAddr string, req *protocol.Command, r resource) error {
	a, exempt, err := c.authenticate(remoteAddr, req)
	if exempt || err != nil {
		return err
	}
	return a.allows([]resource{r})
}
