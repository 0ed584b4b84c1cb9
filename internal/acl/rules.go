package acl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// rule is what requests with one code need when ACL is on, besides a valid signature: an admin
// account, permissions on the topics and groups the header or the body names, and, for reads by
// offset or id, a permission on the topic of the record the service read (checked by the service
// through MayRead or MayWrite, since that topic is known only after the read).
type rule struct {
	admin bool
	needs []need
	// body appends the resources the body names; the docs describe them with bodyDoc.
	body    func(b []byte, out []resource) ([]resource, error)
	bodyDoc string
	// after says what the service checks on the record it read ("" for nothing).
	after string
}

// need is one header field naming a topic or a group, and the permission it needs.
type need struct {
	field string
	group bool
	perm  Perm
	// optional: an absent field names nothing; otherwise an absent field is refused (the
	// handler would refuse it too; refusing here keeps the check from depending on that).
	optional bool
}

func topicNeed(field string, p Perm) need { return need{field: field, perm: p} }
func groupNeed(field string, p Perm) need { return need{field: field, group: true, perm: p} }

// Fields of the headers the table reads, beside the ones pkg/protocol names for ACL.
const (
	fieldTopic = protocol.ExtTopic
	fieldGroup = protocol.ExtGroup
	fieldCG    = protocol.ExtConsumerGroup
	fieldV2    = protocol.ExtSendTopicV2
)

// What the services check after their read, for the docs.
const (
	afterReadSub  = "SUB on the topic of the record read"
	afterReadPub  = "PUB on the real topic of the half message read"
	afterEachSub  = "SUB on the topic of every record read"
	consumerGroup = "consumer group"
)

// adminOnly is a rule of an admin-only code.
var adminOnly = rule{admin: true}

// rules is the one table of what every request code the broker serves needs when ACL is on.
// A code without an entry is refused (TestEveryServedCodeHasAnACLRule, in internal/broker, fails
// for a served code without one). docs/security.md §1.5 is rendered from it (RulesTable).
var rules = map[protocol.RequestCode]rule{
	// Producing.
	protocol.SendMessage:      {needs: []need{topicNeed(fieldTopic, Pub)}},
	protocol.SendMessageV2:    {needs: []need{topicNeed(fieldV2, Pub)}},
	protocol.SendBatchMessage: {needs: []need{topicNeed(fieldV2, Pub)}},
	protocol.EndTransaction:   {after: afterReadPub},
	protocol.RecallMessage:    {needs: []need{topicNeed(fieldTopic, Pub)}},

	// Consuming.
	protocol.PullMessage:          {needs: []need{topicNeed(fieldTopic, Sub), groupNeed(fieldCG, Sub)}},
	protocol.ConsumerSendMsgBack:  {needs: []need{groupNeed(fieldGroup, Sub)}, after: afterReadSub},
	protocol.QueryConsumerOffset:  {needs: []need{groupNeed(fieldCG, Sub), topicNeed(fieldTopic, Sub)}},
	protocol.UpdateConsumerOffset: {needs: []need{groupNeed(fieldCG, Sub), topicNeed(fieldTopic, Sub)}},
	protocol.LockBatchMQ:          {body: lockResources, bodyDoc: "SUB on the body's " + consumerGroup + " and on every queue's topic"},
	protocol.UnlockBatchMQ:        {body: lockResources, bodyDoc: "SUB on the body's " + consumerGroup + " and on every queue's topic"},

	// Membership.
	protocol.HeartBeat:              {body: heartbeatResources, bodyDoc: "SUB on every consumer group and every subscribed topic of the body"},
	protocol.UnregisterClient:       {needs: []need{{field: fieldCG, group: true, perm: Sub, optional: true}}},
	protocol.GetConsumerListByGroup: {needs: []need{groupNeed(fieldCG, Sub)}},

	// Queue offsets and times.
	protocol.GetMaxOffset:            {needs: []need{topicNeed(fieldTopic, Any)}},
	protocol.GetMinOffset:            {needs: []need{topicNeed(fieldTopic, Any)}},
	protocol.GetEarliestMsgStoreTime: {needs: []need{topicNeed(fieldTopic, Any)}},
	protocol.SearchOffsetByTimestamp: {needs: []need{topicNeed(fieldTopic, Any)}},

	// Reading stored messages.
	protocol.QueryMessage:    {needs: []need{topicNeed(fieldTopic, Sub)}, after: afterEachSub},
	protocol.ViewMessageByID: {after: afterReadSub},

	// State of topics and groups.
	protocol.GetTopicStatsInfo:         {needs: []need{topicNeed(fieldTopic, Any)}},
	protocol.QueryTopicConsumeByWho:    {needs: []need{topicNeed(fieldTopic, Any)}},
	protocol.GetConsumeStats:           {needs: []need{groupNeed(fieldCG, Sub), {field: fieldTopic, perm: Sub, optional: true}}},
	protocol.GetConsumerConnectionList: {needs: []need{groupNeed(fieldCG, Sub)}},
	protocol.QueryConsumeTimeSpan:      {needs: []need{topicNeed(fieldTopic, Sub), groupNeed(fieldGroup, Sub)}},

	// Relayed to a group's members.
	protocol.GetConsumerRunningInfo:          {needs: []need{groupNeed(fieldCG, Sub)}},
	protocol.ConsumeMessageDirectly:          {needs: []need{groupNeed(fieldCG, Sub)}, after: afterReadSub},
	protocol.InvokeBrokerToResetOffset:       {needs: []need{topicNeed(fieldTopic, Sub), groupNeed(fieldGroup, Sub)}},
	protocol.InvokeBrokerToGetConsumerStatus: {needs: []need{topicNeed(fieldTopic, Sub), groupNeed(fieldGroup, Sub)}},

	// Administration and the broker's own metadata: admin accounts only.
	protocol.UpdateAndCreateTopic:             adminOnly,
	protocol.DeleteTopicInBroker:              adminOnly,
	protocol.UpdateAndCreateSubscriptionGroup: adminOnly,
	protocol.DeleteSubscriptionGroup:          adminOnly,
	protocol.UpdateBrokerConfig:               adminOnly,
	protocol.GetBrokerConfig:                  adminOnly,
	protocol.GetBrokerRuntimeInfo:             adminOnly,
	protocol.GetAllTopicConfig:                adminOnly,
	protocol.GetAllSubscriptionGroupConfig:    adminOnly,
	protocol.GetAllConsumerOffset:             adminOnly,
	protocol.GetAllDelayOffset:                adminOnly,
	protocol.GetSystemTopicListFromBroker:     adminOnly,
	protocol.GetTimerCheckPoint:               adminOnly,
	protocol.GetTimerMetrics:                  adminOnly,
}

// HasRule reports whether requests with code have a rule; without one they are refused while
// ACL is on.
func HasRule(code protocol.RequestCode) bool {
	_, ok := rules[code]
	return ok
}

// NeedsAdmin reports whether requests with code need an admin account.
func NeedsAdmin(code protocol.RequestCode) bool { return rules[code].admin }

// resources appends what req needs permissions on under rule r. A required field that is absent
// is refused.
func (r rule) resources(req *protocol.Command, out []resource) ([]resource, error) {
	for _, n := range r.needs {
		v, ok := req.ExtFields.Lookup(n.field)
		switch {
		case ok && n.group:
			out = append(out, groupRes(v, n.perm))
		case ok:
			out = append(out, topicRes(v, n.perm))
		case !n.optional:
			return nil, denied("The request names no %s: the field %s is missing", n.kind(), n.field)
		}
	}
	if r.body != nil {
		return r.body(req.Body, out)
	}
	return out, nil
}

func (n need) kind() string {
	if n.group {
		return "group"
	}
	return "topic"
}

func heartbeatResources(b []byte, out []resource) ([]resource, error) {
	hb, err := body.DecodeHeartbeatData(b)
	if err != nil {
		return nil, denied("%v", err)
	}
	for _, cd := range hb.ConsumerDataSet {
		out = append(out, groupRes(cd.GroupName, Sub))
		for _, sd := range cd.SubscriptionDataSet {
			out = append(out, topicRes(sd.Topic, Sub))
		}
	}
	return out, nil
}

func lockResources(b []byte, out []resource) ([]resource, error) {
	lb, err := body.DecodeLockBatchRequest(b)
	if err != nil {
		return nil, denied("bad lock body: %v", err)
	}
	out = append(out, groupRes(lb.ConsumerGroup, Sub))
	for _, mq := range lb.MQSet {
		out = append(out, topicRes(mq.Topic, Sub))
	}
	return out, nil
}

// RulesTable renders the rule table as the Markdown of docs/security.md §1.5, one row per code
// in code order.
func RulesTable() string {
	codes := make([]protocol.RequestCode, 0, len(rules))
	for c := range rules {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	var b strings.Builder
	b.WriteString("| Code | Request | Needs |\n|---|---|---|\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", c, c, rules[c].describe())
	}
	return b.String()
}

// describe says what r needs, for the docs.
func (r rule) describe() string {
	var parts []string
	if r.admin {
		parts = append(parts, "admin account")
	}
	for _, n := range r.needs {
		s := fmt.Sprintf("%s on %s `%s`", n.perm.doc(), n.kind(), n.field)
		if n.optional {
			s += " (when present)"
		}
		parts = append(parts, s)
	}
	if r.bodyDoc != "" {
		parts = append(parts, r.bodyDoc)
	}
	if r.after != "" {
		parts = append(parts, "after the read: "+r.after)
	}
	if len(parts) == 0 {
		return "the signature only"
	}
	return strings.Join(parts, "; ")
}

// doc spells a needed permission for the docs.
func (p Perm) doc() string {
	if p == Any {
		return "PUB or SUB"
	}
	return p.String()
}
