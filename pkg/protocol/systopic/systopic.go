// Package systopic names RocketMQ's system topics and groups, and the prefixes that derive a
// group's retry and dead-letter topics, in one place (Java TopicValidator, MixAll,
// PopAckConstants, TimerMessageStore). It imports nothing, so every package can use it.
package systopic

import (
	"slices"
	"strings"
)

// Built-in topics.
const (
	// AutoCreate is the template topic new topics are created from when auto-creation is on;
	// producers send it as defaultTopic (AUTO_CREATE_TOPIC_KEY_TOPIC).
	AutoCreate = "TBW102"
	// Schedule holds delayed messages, one queue per delay level.
	Schedule = "SCHEDULE_TOPIC_XXXX"
	// ScheduleGroup is the group the delayed delivery reads Schedule as (SCHEDULE_CONSUMER).
	ScheduleGroup = "SCHEDULE_CONSUMER"
	// Benchmark is the topic of Java's benchmark tools.
	Benchmark = "BenchmarkTest"
	// TransHalf holds the half messages of transactions; TransOpHalf the op messages that
	// settle them; TransCheckMaxTime the half messages checked too often.
	TransHalf         = "RMQ_SYS_TRANS_HALF_TOPIC"
	TransOpHalf       = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
	TransCheckMaxTime = "TRANS_CHECK_MAX_TIME_TOPIC"
	// Trace is the default topic of message traces.
	Trace = "RMQ_SYS_TRACE_TOPIC"
	// SelfTest and OffsetMovedEvent are Java's self-test and offset-moved event topics.
	SelfTest         = "SELF_TEST_TOPIC"
	OffsetMovedEvent = "OFFSET_MOVED_EVENT"
	// Checkpoint is RocketMQ 5's RocksDB consume-queue checkpoint topic (a system topic there,
	// not in 4.9).
	Checkpoint = "CHECKPOINT_TOPIC"
)

// Prefixes and the names built from them.
const (
	// SystemPrefix starts every topic a RocketMQ 5 broker keeps for itself.
	SystemPrefix = "rmq_sys_"
	// RevivePrefix starts the revive topics of RocketMQ 5's POP consumption (one per cluster).
	RevivePrefix = SystemPrefix + "REVIVE_LOG_"
	// Timer is RocketMQ 5's timer-wheel topic.
	Timer = SystemPrefix + "wheel_timer"
	// RetryPrefix and DLQPrefix start a consumer group's retry and dead-letter topics.
	RetryPrefix = "%RETRY%"
	DLQPrefix   = "%DLQ%"
	// LMQPrefix starts the light message queues of RocketMQ 5.
	LMQPrefix = "%LMQ%"
	// ReplyPostfix ends a cluster's request/reply topic.
	ReplyPostfix = "REPLY_TOPIC"
)

// System consumer groups.
const (
	// SystemGroupPrefix starts the groups a broker keeps for itself (CID_RMQ_SYS_PREFIX).
	SystemGroupPrefix = "CID_RMQ_SYS_"
	// TransCheckGroup's offsets of TransHalf and TransOpHalf record how far the transaction
	// check-back got (CID_SYS_RMQ_TRANS).
	TransCheckGroup = SystemGroupPrefix + "TRANS"
)

// Retry returns the retry topic of a consumer group.
func Retry(group string) string { return RetryPrefix + group }

// DLQ returns the dead-letter topic of a consumer group.
func DLQ(group string) string { return DLQPrefix + group }

// Reply returns the request/reply topic of a cluster.
func Reply(cluster string) string { return cluster + "_" + ReplyPostfix }

// RetryGroup returns the group whose retry topic topic is.
func RetryGroup(topic string) (string, bool) { return strings.CutPrefix(topic, RetryPrefix) }

// IsRetry reports a retry topic.
func IsRetry(topic string) bool { return strings.HasPrefix(topic, RetryPrefix) }

// IsDLQ reports a dead-letter topic.
func IsDLQ(topic string) bool { return strings.HasPrefix(topic, DLQPrefix) }

// IsLMQ reports a light message queue.
func IsLMQ(topic string) bool { return strings.HasPrefix(topic, LMQPrefix) }

// IsSystemGroup reports a group the broker keeps for itself.
func IsSystemGroup(group string) bool { return strings.HasPrefix(group, SystemGroupPrefix) }

// static are RocketMQ 4.9's built-in system topics, in Java's order (TopicValidator's
// SYSTEM_TOPIC_SET).
var static = [...]string{AutoCreate, Schedule, Benchmark, TransHalf, Trace, TransOpHalf, TransCheckMaxTime,
	SelfTest, OffsetMovedEvent}

// Static returns RocketMQ 4.9's built-in system topics, in Java's order. A broker adds its
// cluster and broker names to them.
func Static() []string { return append([]string(nil), static[:]...) }

// IsStatic reports one of Static's topics.
func IsStatic(topic string) bool { return slices.Contains(static[:], topic) }

// IsSystem reports a system topic as RocketMQ 4.9's TopicValidator.isSystemTopic does: a
// built-in topic or one that starts with SystemPrefix. (A broker also counts its cluster and
// broker names.)
func IsSystem(topic string) bool { return IsStatic(topic) || strings.HasPrefix(topic, SystemPrefix) }

// IsNotAllowedSend reports the system topics clients may not send to
// (TopicValidator.isNotAllowedSendTopic), and rmq_sys_wheel_timer, which Java leaves open: a
// message there is delivered to whatever REAL_TOPIC it names.
func IsNotAllowedSend(topic string) bool {
	switch topic {
	case Schedule, TransHalf, TransOpHalf, TransCheckMaxTime, SelfTest, OffsetMovedEvent, Timer:
		return true
	}
	return false
}

// Predefined groups (Java MixAll's PREDEFINE_GROUP_SET): groups of RocketMQ's own clients and
// tools, left out of what admin tools export.
const (
	// ToolsConsumerGroup is the group admin tools pull with (TOOLS_CONSUMER).
	ToolsConsumerGroup = "TOOLS_CONSUMER"
)

var predefinedGroups = [...]string{"DEFAULT_CONSUMER", "DEFAULT_PRODUCER", ToolsConsumerGroup, "SCHEDULE_CONSUMER",
	"FILTERSRV_CONSUMER", "__MONITOR_CONSUMER", "CLIENT_INNER_PRODUCER", "SELF_TEST_P_GROUP", "SELF_TEST_C_GROUP",
	"CID_ONS-HTTP-PROXY", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_ONSAPI_PULL", "CID_SYS_RMQ_TRANS"}

// IsPredefinedGroup reports one of RocketMQ's own groups (MixAll.isPredefinedGroup).
func IsPredefinedGroup(group string) bool { return slices.Contains(predefinedGroups[:], group) }
