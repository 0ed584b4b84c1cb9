package schedule

import (
	"strconv"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// DelayLevel reads a message's DELAY property: 0 when it has none (or not a number).
func DelayLevel(props string) int {
	v, ok := message.LookupPropertyString(props, message.PropertyDelayTimeLevel)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Defer turns m into its delayed form (Java's rewrite on put): the real topic and queue move to
// REAL_TOPIC and REAL_QID, and m goes to SCHEDULE_TOPIC_XXXX, queue level−1. Levels above
// maxLevel are clamped to it. Transaction halves and rollbacks are never delayed.
func Defer(m *store.Message, level, maxLevel int) {
	if level <= 0 || maxLevel <= 0 {
		return
	}
	switch message.TransactionType(m.SysFlag) {
	case message.SysFlagTransactionPrep, message.SysFlagTransactionRoll:
		return
	}
	level = min(level, maxLevel)
	props := message.ParseProperties(m.Properties)
	props[message.PropertyRealTopic] = m.Topic
	props[message.PropertyRealQueueID] = strconv.Itoa(int(m.QueueID))
	props[message.PropertyDelayTimeLevel] = strconv.Itoa(level)
	m.Properties = message.EncodeProperties(props)
	m.Topic = systopic.Schedule
	m.QueueID = int32(level - 1)
}
