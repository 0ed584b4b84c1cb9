package namesrv

import (
	"fmt"
	"net"
	"strconv"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Limits of the names the name server accepts from the wire. Topics follow RocketMQ's
// TopicValidator (^[%|a-zA-Z0-9_-]+$, at most 127 characters), except that retry and DLQ topics
// may carry a group name of up to 255 characters after their prefix, as the broker creates them.
// Cluster and broker names are host-name-like; KV namespaces and keys are names or topics.
const (
	maxTopicLength      = 127
	maxGroupLength      = 255
	maxBrokerNameLength = 255
	maxKVNamespaceLen   = 255
	maxKVKeyLen         = 512
	maxAddrLength       = 262 // a host name of 255 and ":65535"
	quotedNameMax       = 48  // how much of a bad name a remark or log line shows
)

// invalidNameError says which name from a request is not acceptable, and why. Its text quotes
// (and clips) the name, so that it is safe in a remark and a log line.
type invalidNameError struct {
	what   string // "topic", "brokerName", ...
	value  string
	reason string
}

func (e invalidNameError) Error() string {
	return fmt.Sprintf("invalid %s %s: %s", e.what, quoteName(e.value), e.reason)
}

// quoteName quotes s for a remark or a log line: control characters escaped, at most
// quotedNameMax bytes of it shown.
func quoteName(s string) string {
	if len(s) > quotedNameMax {
		return strconv.Quote(s[:quotedNameMax]) + "…(" + strconv.Itoa(len(s)) + " bytes)"
	}
	return strconv.Quote(s)
}

type charset func(c byte) bool

func topicChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '%' || c == '|' ||
		c == '_' || c == '-'
}

// nameChar: topic characters and '.', ':', '@' (host names, "broker-a@1").
func nameChar(c byte) bool { return topicChar(c) || c == '.' || c == ':' || c == '@' }

// kvChar: name characters and '/', '#' for KV namespaces and keys.
func kvChar(c byte) bool { return nameChar(c) || c == '/' || c == '#' }

const (
	topicChars = "letters, digits and %|_-"
	nameChars  = "letters, digits and %|_-.:@"
	kvChars    = "letters, digits and %|_-.:@/#"
)

// checkName checks a non-empty name of at most maxLen bytes from allowed.
func checkName(what, s string, maxLen int, allowed charset, allowedDoc string) error {
	switch {
	case s == "":
		return invalidNameError{what, s, "empty"}
	case len(s) > maxLen:
		return invalidNameError{what, s, fmt.Sprintf("%d bytes, at most %d", len(s), maxLen)}
	}
	for i := 0; i < len(s); i++ {
		if !allowed(s[i]) {
			return invalidNameError{what, s, fmt.Sprintf("character %q at %d; allowed are %s", s[i], i, allowedDoc)}
		}
	}
	return nil
}

// validateTopic checks a topic name.
func validateTopic(topic string) error {
	limit := maxTopicLength
	if systopic.IsRetry(topic) {
		limit = len(systopic.RetryPrefix) + maxGroupLength
	} else if systopic.IsDLQ(topic) {
		limit = len(systopic.DLQPrefix) + maxGroupLength
	}
	return checkName("topic", topic, limit, topicChar, topicChars)
}

// validateBrokerName checks a cluster or broker name (what says which).
func validateBrokerName(what, name string) error {
	return checkName(what, name, maxBrokerNameLength, nameChar, nameChars)
}

// validateOptionalBrokerName checks a cluster or broker name that may be left out.
func validateOptionalBrokerName(what, name string) error {
	if name == "" {
		return nil
	}
	return validateBrokerName(what, name)
}

// validateAddr checks a host:port address (brokerAddr, haServerAddr, a filter server).
func validateAddr(what, addr string) error {
	if len(addr) > maxAddrLength {
		return invalidNameError{what, addr, fmt.Sprintf("%d bytes, at most %d", len(addr), maxAddrLength)}
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return invalidNameError{what, addr, "want host:port"}
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return invalidNameError{what, addr, "port must be 0-65535"}
	}
	if host == "" {
		return invalidNameError{what, addr, "no host"}
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':' || c == '_') {
			return invalidNameError{what, addr, fmt.Sprintf("character %q in the host", c)}
		}
	}
	return nil
}

// Bounds of a registered topic's numbers: clients build one queue object per queue a route lists,
// so a registration must not make them build millions; perm holds RocketMQ's four permission bits.
const (
	maxQueueNums = 1 << 16
	maxPerm      = 15
)

// validateQueues checks the queue counts and permission of a registered topic.
func validateQueues(topic string, tc body.TopicConfig) error {
	for _, n := range []int{tc.ReadQueueNums, tc.WriteQueueNums} {
		if n < 0 || n > maxQueueNums {
			return fmt.Errorf("topic %s: %d queues, want 0-%d", quoteName(topic), n, maxQueueNums)
		}
	}
	if tc.Perm < 0 || tc.Perm > maxPerm {
		return fmt.Errorf("topic %s: perm %d, want 0-%d", quoteName(topic), tc.Perm, maxPerm)
	}
	return nil
}

// validateKVName checks a KV namespace and, when withKey, its key.
func validateKVName(namespace, key string, withKey bool) error {
	if err := checkName("namespace", namespace, maxKVNamespaceLen, kvChar, kvChars); err != nil {
		return err
	}
	if !withKey {
		return nil
	}
	return checkName("key", key, maxKVKeyLen, kvChar, kvChars)
}

// valuePreview is what a log line shows of a KV value: its first bytes, quoted.
func valuePreview(v string) string {
	const n = 32
	if len(v) > n {
		return strconv.Quote(v[:n]) + "…"
	}
	return strconv.Quote(v)
}
