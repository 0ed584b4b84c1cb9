package policy

// DefaultRetryDelayBase is added to a message's reconsume times to pick the delay level of a
// send-back that leaves it to the broker (Java: 3 + reconsumeTimes, 10 s for the first retry).
const DefaultRetryDelayBase = 3

// Failure describes a message whose consumer failed it, as a send-back or a send to a %RETRY%
// topic reports it.
type Failure struct {
	// ReconsumeTimes is how often the message has been delivered again so far.
	ReconsumeTimes int32
	// RequestMax is the client's maxReconsumeTimes; negative when the client sent none.
	RequestMax int32
	// GroupMax is the group's retryMaxTimes.
	GroupMax int
	// DelayLevel is the delay level asked for. Negative sends the message to the dead-letter
	// queue at once (a send-back's delayLevel -1).
	DelayLevel int
	// BrokerDelay says that a DelayLevel of 0 leaves the delay to the broker, which then picks
	// DefaultRetryDelayBase + ReconsumeTimes (a send-back). Without it 0 means no delay (a
	// message sent to a retry topic keeps the delay it carries).
	BrokerDelay bool
}

// Redelivery is what becomes of a failed message.
type Redelivery struct {
	// DLQ sends it to the group's dead-letter topic, from which it is never delivered again.
	DLQ bool
	// DelayLevel is the delay of the next delivery from the retry topic; 0 for none or for DLQ.
	DelayLevel int
	// MaxTimes is the reconsume limit that applied: the client's when it sent one, else the
	// group's. A send-back records it in the message (MAX_RECONSUME_TIMES).
	MaxTimes int32
}

// RetryOrDLQ decides whether a failed message is delivered again, and after which delay, or goes
// to the dead-letter queue: it goes there once it has been reconsumed MaxTimes times, or when
// its consumer asks for it with a negative delay level (Java handleRetryAndDLQ and
// asyncConsumerSendMsgBack).
func RetryOrDLQ(f Failure) Redelivery {
	maxTimes := int32(f.GroupMax)
	if f.RequestMax >= 0 {
		maxTimes = f.RequestMax
	}
	if f.ReconsumeTimes >= maxTimes || f.DelayLevel < 0 {
		return Redelivery{DLQ: true, MaxTimes: maxTimes}
	}
	level := f.DelayLevel
	if level == 0 && f.BrokerDelay {
		level = DefaultRetryDelayBase + int(f.ReconsumeTimes)
	}
	return Redelivery{DelayLevel: level, MaxTimes: maxTimes}
}

// DelayLevel is the level a message asking for level is delayed by on a broker with maxLevel
// levels (messageDelayLevel's entries): levels above maxLevel are clamped to it, and 0 means the
// message is not delayed (no level asked for, or delays off).
func DelayLevel(level, maxLevel int) int {
	if level <= 0 || maxLevel <= 0 {
		return 0
	}
	return min(level, maxLevel)
}
