package topic

import (
	"errors"
	"strings"
)

// Sizes of topics (Java TopicValidator, TopicConfigManager); the system topics' names are in
// pkg/protocol/systopic.
const (
	ScheduleTopicQueueNums   = 18
	MaxTopicLength           = 127
	defaultSystemTopicQueues = 1
)

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
