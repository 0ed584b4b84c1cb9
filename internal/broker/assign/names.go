package assign

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// checkNames fails for a topic or group that is not a valid name, before either reaches the
// modes table, messageRequestMode.json, the route cache or a log.
func checkNames(group, topic string) error {
	if err := names.Topic(topic); err != nil {
		return outcome.Errorf(outcome.TopicNotExist, "topic %s is not a topic name: %v", names.Quote(topic), err)
	}
	if err := names.Group(group); err != nil {
		return outcome.Errorf(outcome.GroupNotExist, "subscription group does not exist: %v", err)
	}
	return nil
}
