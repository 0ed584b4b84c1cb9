// Package names holds RocketMQ's rules for the names requests carry — topics, consumer and
// producer groups, client ids — so that every name from the wire is checked against one rule
// before it reaches a file, a map or a log. Topics and groups use TopicValidator's character set
// ^[%|a-zA-Z0-9_-]+$; a topic is at most 127 characters (TopicValidator), a group at most 255
// (Validators.CHARACTER_MAX_LENGTH, which 5.x's SubscriptionGroupManager applies to groups it
// creates). Quote shows a name that failed in a remark or a log without repeating all of it. It
// imports only the standard library.
package names

import (
	"errors"
	"fmt"
	"strconv"
)

// Lengths (Java TopicValidator.TOPIC_MAX_LENGTH, Validators.CHARACTER_MAX_LENGTH).
const (
	MaxTopicLength    = 127
	MaxGroupLength    = 255
	MaxClientIDLength = 255
)

// The topic errors; their texts are Java's remarks (TopicValidator.validateTopic).
var (
	ErrTopicBlank   = errors.New("The specified topic is blank.")
	ErrTopicChars   = errors.New("The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$")
	ErrTopicTooLong = errors.New("The specified topic is longer than topic max length.")
)

// Topic checks a topic name: not blank, only [%|a-zA-Z0-9_-], at most 127 characters. The errors
// are ErrTopicBlank, ErrTopicChars and ErrTopicTooLong, whose texts are Java's.
func Topic(topic string) error {
	switch {
	case isBlank(topic):
		return ErrTopicBlank
	case !ValidChars(topic):
		return ErrTopicChars
	case len(topic) > MaxTopicLength:
		return ErrTopicTooLong
	}
	return nil
}

// Group checks a consumer or producer group name: not blank, only [%|a-zA-Z0-9_-], at most 255
// characters. The error says which rule the name broke and shows it (Quote).
func Group(group string) error {
	switch {
	case isBlank(group):
		return errors.New("The specified group is blank.")
	case len(group) > MaxGroupLength:
		return fmt.Errorf("The specified group %s is longer than group max length %d.", Quote(group), MaxGroupLength)
	case !ValidChars(group):
		return fmt.Errorf("The specified group %s contains illegal characters, allowing only ^[%%|a-zA-Z0-9_-]+$", Quote(group))
	}
	return nil
}

// ClientID checks a client id (ip@instance[@unit], as clients build it): 1 to 255 printable
// ASCII characters, no blank.
func ClientID(id string) error {
	if id == "" {
		return errors.New("The client id is empty.")
	}
	if len(id) > MaxClientIDLength {
		return fmt.Errorf("The client id %s is longer than %d characters.", Quote(id), MaxClientIDLength)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("The client id %s contains a character that is not printable ASCII: only '!' to '~' are allowed.", Quote(id))
		}
	}
	return nil
}

// ValidChars reports whether s uses only the characters allowed in topic and group names,
// [%|a-zA-Z0-9_-] (an empty s does).
func ValidChars(s string) bool {
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

// quoteMax is how much of a name Quote shows.
const quoteMax = 64

// Quote returns name for a remark or a log: Go-quoted (control characters escaped), cut to its
// first 64 bytes with its length when it is longer.
func Quote(name string) string {
	if len(name) <= quoteMax {
		return strconv.Quote(name)
	}
	return strconv.Quote(name[:quoteMax]) + "... (" + strconv.Itoa(len(name)) + " bytes)"
}

// isBlank is Java's StringUtils.isBlank for ASCII: empty or only whitespace.
func isBlank(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			return false
		}
	}
	return true
}
