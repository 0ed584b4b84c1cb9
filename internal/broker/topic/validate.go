package topic

import (
	"errors"
	"strings"
)

// Names of the built-in topics and prefixes (Java TopicValidator, MixAll).
const (
	AutoCreateTopicKey       = "TBW102"
	ScheduleTopic            = "SCHEDULE_TOPIC_XXXX"
	BenchmarkTopic           = "BenchmarkTest"
	TransHalfTopic           = "RMQ_SYS_TRANS_HALF_TOPIC"
	TransOpHalfTopic         = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	TransCheckMaxTimeTopic   = "TRANS_CHECK_MAX_TIME_TOPIC"
	TraceTopic               = "RMQ_SYS_TRACE_TOPIC"
	SelfTestTopic            = "SELF_TEST_TOPIC"
	OffsetMovedEventTopic    = "OFFSET_MOVED_EVENT"
	SystemTopicPrefix        = "rmq_sys_"
	RetryGroupTopicPrefix    = "%RETRY%"
	DLQGroupTopicPrefix      = "%DLQ%"
	ReplyTopicPostfix        = "REPLY_TOPIC"
	ScheduleTopicQueueNums   = 18
	MaxTopicLength           = 127
	defaultSystemTopicQueues = 1
)

// RetryTopic returns the retry topic of a consumer group.
func RetryTopic(group string) string { return RetryGroupTopicPrefix + group }

// DLQTopic returns the dead-letter topic of a consumer group.
func DLQTopic(group string) string { return DLQGroupTopicPrefix + group }

// ReplyTopic returns the request/reply topic of a cluster.
func ReplyTopic(cluster string) string { return cluster + "_" + ReplyTopicPostfix }

// Validation errors; their texts are Java's remarks.
var (
	ErrTopicBlank   = errors.New("The specified topic is blank.")
	ErrTopicChars   = errors.New("The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$")
	ErrTopicTooLong = errors.New("The specified topic is longer than topic max length.")
)

// ValidateTopic checks a topic name: not blank, only [%|a-zA-Z0-9_-], at most 127 characters.
func ValidateTopic(topic string) error {
	if strings.TrimSpace(topic) == "" {
		return ErrTopicBlank
	}
	if !ValidName(topic) {
		return ErrTopicChars
	}
	if len(topic) > MaxTopicLength {
		return ErrTopicTooLong
	}
	return nil
}

// ValidName reports whether s uses only the characters allowed in topic and group names.
func ValidName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '%' || c == '|' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// staticSystemTopics are system topics whatever the broker's names (Java TopicValidator).
var staticSystemTopics = map[string]bool{
	AutoCreateTopicKey:     true,
	ScheduleTopic:          true,
	BenchmarkTopic:         true,
	TransHalfTopic:         true,
	TraceTopic:             true,
	TransOpHalfTopic:       true,
	TransCheckMaxTimeTopic: true,
	SelfTestTopic:          true,
	OffsetMovedEventTopic:  true,
}

// notAllowedSendTopics refuse messages from clients (Java TopicValidator.isNotAllowedSendTopic).
var notAllowedSendTopics = map[string]bool{
	ScheduleTopic:          true,
	TransHalfTopic:         true,
	TransOpHalfTopic:       true,
	TransCheckMaxTimeTopic: true,
	SelfTestTopic:          true,
	OffsetMovedEventTopic:  true,
}

// IsNotAllowedSendTopic reports topics clients may not send to.
func IsNotAllowedSendTopic(topic string) bool { return notAllowedSendTopics[topic] }
