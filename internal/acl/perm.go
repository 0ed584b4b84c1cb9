package acl

import (
	"strings"

	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Perm is a permission as plain_acl.yml spells it; the bits are Java's Permission constants.
type Perm uint8

// Permissions.
const (
	Deny Perm = 1      // DENY
	Any  Perm = 1 << 1 // PUB or SUB (Java's ANY; no 4.9 check asks for it)
	Pub  Perm = 1 << 2 // PUB
	Sub  Perm = 1 << 3 // SUB
)

// String spells p as plain_acl.yml does.
func (p Perm) String() string {
	switch p {
	case Pub:
		return "PUB"
	case Sub:
		return "SUB"
	case Pub | Sub:
		return "PUB|SUB"
	case Any:
		return "ANY"
	}
	return "DENY"
}

// ParsePerm reads PUB, SUB, PUB|SUB, SUB|PUB or DENY (surrounding blanks ignored, letters as
// written). Anything else is DENY, as in Java; ok reports whether s was one of those.
func ParsePerm(s string) (p Perm, ok bool) {
	switch strings.TrimSpace(s) {
	case "PUB":
		return Pub, true
	case "SUB":
		return Sub, true
	case "PUB|SUB", "SUB|PUB":
		return Pub | Sub, true
	case "DENY":
		return Deny, true
	}
	return Deny, false
}

// Allows reports whether owning p grants needed (Java Permission.checkPermission).
func (p Perm) Allows(needed Perm) bool {
	if p&Deny != 0 {
		return false
	}
	if needed&Any != 0 {
		return p&(Pub|Sub) != 0
	}
	return needed&p != 0
}

// resource is one topic or group a request needs a permission on.
type resource struct {
	name  string // the topic, or the group
	group bool
	perm  Perm
}

// topicRes is a topic resource; a retry topic (%RETRY%group) stands for its group, and sending
// to it (a consumer's fallback for CONSUMER_SEND_MSG_BACK) is consuming on behalf of that group:
// it needs SUB on the group, not PUB.
func topicRes(topic string, perm Perm) resource {
	if g, ok := systopic.RetryGroup(topic); ok {
		if perm == Pub {
			perm = Sub
		}
		return resource{name: g, group: true, perm: perm}
	}
	return resource{name: topic, perm: perm}
}

func groupRes(group string, perm Perm) resource {
	return resource{name: group, group: true, perm: perm}
}

// describe names r as Java's PlainAccessResource.printStr does.
func (r resource) describe() string {
	if r.group {
		return "group:" + r.name
	}
	return "topic:" + r.name
}
