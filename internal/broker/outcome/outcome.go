// Package outcome names the outcomes of the broker's operations without reference to any wire
// protocol: a Kind says what happened (the topic does not exist, the subscription is stale, the
// pull found nothing new ...) and an Error carries a Kind with the remark a client is shown.
// Services return them; each protocol adapter maps a Kind to its own status code in one table.
package outcome

import (
	"errors"
	"fmt"
)

// Kind is what an operation came to. Besides the failures, it holds the statuses a completed
// operation may report: a send that stored the message but did not flush it in time, a pull that
// found nothing new.
type Kind uint8

// The kinds, with the RocketMQ response each stands for.
const (
	OK                      Kind = iota // SUCCESS
	SystemError                         // SYSTEM_ERROR: anything without a kind of its own
	SystemBusy                          // SYSTEM_BUSY: the store is flow-controlling
	NoPermission                        // NO_PERMISSION: the broker, topic or group forbids it
	TopicNotExist                       // TOPIC_NOT_EXIST
	GroupNotExist                       // SUBSCRIPTION_GROUP_NOT_EXIST
	MessageIllegal                      // MESSAGE_ILLEGAL: a bad topic name, body or property
	SubscriptionNotExist                // SUBSCRIPTION_NOT_EXIST: no heartbeat subscription to pull by
	SubscriptionNotLatest               // SUBSCRIPTION_NOT_LATEST: the pull's subscription is newer
	SubscriptionParseFailed             // SUBSCRIPTION_PARSE_FAILED: the pull's expression is bad
	FilterDataNotExist                  // FILTER_DATA_NOT_EXIST: the heartbeat's expression is bad
	QueryNotFound                       // QUERY_NOT_FOUND: no offset or message matched
	ConsumerNotOnline                   // CONSUMER_NOT_ONLINE: the group has no member
	ClientTimeout                       // CONSUME_MSG_TIMEOUT: a relayed call to a client timed out
	SlaveNotAvailable                   // SLAVE_NOT_AVAILABLE
	FlushDiskTimeout                    // FLUSH_DISK_TIMEOUT: stored, not flushed in time
	FlushSlaveTimeout                   // FLUSH_SLAVE_TIMEOUT: stored, not replicated in time
	ServiceNotAvailable                 // SERVICE_NOT_AVAILABLE: the store cannot take writes
	PullNotFound                        // PULL_NOT_FOUND: nothing new in the queue yet
	PullRetryImmediately                // PULL_RETRY_IMMEDIATELY: nothing matched, try the next offsets
	PullOffsetMoved                     // PULL_OFFSET_MOVED: the requested offset is out of the queue
	IllegalOperation                    // ILLEGAL_OPERATION: a request the broker cannot honour (a bad recall handle)
	numKinds
)

var kindNames = [numKinds]string{
	"OK", "SystemError", "SystemBusy", "NoPermission", "TopicNotExist", "GroupNotExist",
	"MessageIllegal", "SubscriptionNotExist", "SubscriptionNotLatest", "SubscriptionParseFailed",
	"FilterDataNotExist", "QueryNotFound", "ConsumerNotOnline", "ClientTimeout",
	"SlaveNotAvailable", "FlushDiskTimeout", "FlushSlaveTimeout", "ServiceNotAvailable",
	"PullNotFound", "PullRetryImmediately", "PullOffsetMoved", "IllegalOperation",
}

// Kinds returns every kind, OK first.
func Kinds() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Error is a failed operation: its kind and the remark the client sees.
type Error struct {
	Kind   Kind
	Remark string
}

func (e *Error) Error() string { return e.Kind.String() + ": " + e.Remark }

// Errorf returns an *Error of kind k whose remark is formatted from format and args.
func Errorf(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Remark: fmt.Sprintf(format, args...)}
}

// Of returns the kind and remark of err: those of the *Error it wraps, or SystemError with the
// error's text. A nil err is OK.
func Of(err error) (Kind, string) {
	if err == nil {
		return OK, ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind, e.Remark
	}
	return SystemError, err.Error()
}

// Is reports whether err is an *Error of kind k.
func Is(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}
