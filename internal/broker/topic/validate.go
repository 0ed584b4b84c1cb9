package topic

import "github.com/rocketgo/rocketgo/pkg/protocol/names"

// Sizes of topics (Java TopicValidator, TopicConfigManager); the system topics' names are in
// pkg/protocol/systopic.
const (
	ScheduleTopicQueueNums   = 18
	MaxTopicLength           = names.MaxTopicLength
	defaultSystemTopicQueues = 1
)

// Validation errors; their texts are Java's remarks (pkg/protocol/names).
var (
	ErrTopicBlank   = names.ErrTopicBlank
	ErrTopicChars   = names.ErrTopicChars
	ErrTopicTooLong = names.ErrTopicTooLong
)

// ValidateTopic checks a topic name: not blank, only [%|a-zA-Z0-9_-], at most 127 characters.
func ValidateTopic(topic string) error { return names.Topic(topic) }
