package policy

// SendQueue picks the queue a send lands in. requested is the producer's queue id: one beyond
// the topic's queues (the larger of its read and write counts) is illegal (ok false); a negative
// one lets the broker choose among the write queues with pick(n), which returns a number in
// [0, n).
func SendQueue(requested int32, readQueues, writeQueues int, pick func(n int32) int32) (queueID int32, ok bool) {
	if requested >= int32(max(readQueues, writeQueues)) {
		return requested, false
	}
	if requested < 0 {
		return pick(int32(max(writeQueues, 1))), true
	}
	return requested, true
}

// PullQueueOK reports whether a pull may read queueID of a topic with readQueues read queues.
func PullQueueOK(queueID int32, readQueues int) bool {
	return queueID >= 0 && int(queueID) < readQueues
}

// ResetTarget is where a reset moves one queue's committed offset: to target (the offset of the
// time asked for, never below 0), unless force is off and that is not behind committed, which
// then stays (a reset without force only moves consumers back).
func ResetTarget(target, committed int64, force bool) int64 {
	target = max(target, 0)
	if !force && target >= committed {
		return committed
	}
	return target
}
