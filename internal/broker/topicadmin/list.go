package topicadmin

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Config is one topic's config (GET_TOPIC_CONFIG).
func (s *Service) Config(name string) (body.TopicConfig, error) {
	if err := names.Topic(name); err != nil {
		return body.TopicConfig{}, outcome.Errorf(outcome.SystemError, "%v", err)
	}
	tc, ok := s.topics.Get(name)
	if !ok {
		return tc, outcome.Errorf(outcome.TopicNotExist, "No topic in this broker. topic: %s", name)
	}
	return tc, nil
}

// MaxListEntries bounds the topics of one UPDATE_AND_CREATE_TOPIC_LIST.
const MaxListEntries = 1000

// UpdateList creates or replaces several topics (UPDATE_AND_CREATE_TOPIC_LIST): at most
// MaxListEntries, every config checked before any is written, so that a bad one changes
// nothing, and all written with one write of topics.json.
func (s *Service) UpdateList(list []body.TopicConfig) error {
	if len(list) == 0 {
		return outcome.Errorf(outcome.SystemError, "the topic config list is empty")
	}
	if len(list) > MaxListEntries {
		return outcome.Errorf(outcome.SystemError, "the topic config list holds %d topics, more than %d", len(list), MaxListEntries)
	}
	for i := range list {
		if err := s.check(list[i]); err != nil {
			return err
		}
	}
	return s.topics.PutAll(list)
}
