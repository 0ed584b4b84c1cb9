package pop

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Every name a POP request carries is checked here before it reaches a table, the revive log, a
// file or a log line: the topic (a POP retry topic is a topic name too), the consumer group and
// the attempt id of an orderly pop, which consumerOrderInfo.json keeps.

// maxAttemptIDLength bounds an attempt id (clients send a UUID).
const maxAttemptIDLength = 255

// checkNames fails for a topic or group that is not a valid name.
func checkNames(group, topic string) error {
	if err := names.Topic(topic); err != nil {
		return outcome.Errorf(outcome.TopicNotExist, "topic %s is not a topic name: %v", names.Quote(topic), err)
	}
	if err := names.Group(group); err != nil {
		return outcome.Errorf(outcome.GroupNotExist, "subscription group does not exist: %v", err)
	}
	return nil
}

// checkAttemptID fails for an attempt id longer than 255 bytes or with a byte that is not
// printable ASCII; an empty one is none.
func checkAttemptID(id string) error {
	bad := len(id) > maxAttemptIDLength
	for i := 0; i < len(id) && !bad; i++ {
		bad = id[i] <= ' ' || id[i] > '~'
	}
	if bad {
		return outcome.Errorf(outcome.InvalidParameter, "attemptId %s is not 1 to %d printable ASCII characters",
			names.Quote(id), maxAttemptIDLength)
	}
	return nil
}
