package policy

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
)

// PutOutcome is what a put's status means for the sender, with the remark it sees: the store's
// own remark where it gave one, else a default (Java handlePutMessageResult). FlushDiskTimeout,
// FlushSlaveTimeout and SlaveNotAvailable are reported for messages that were stored.
func PutOutcome(st store.PutStatus, remark string) (outcome.Kind, string) {
	switch st {
	case store.PutOK:
		return outcome.OK, ""
	case store.FlushDiskTimeout:
		return outcome.FlushDiskTimeout, "flush disk timeout"
	case store.FlushSlaveTimeout:
		return outcome.FlushSlaveTimeout, "flush slave timeout"
	case store.SlaveNotAvailable:
		return outcome.SlaveNotAvailable, "slave not available"
	case store.MessageIllegal, store.PropertiesSizeExceeded:
		return outcome.MessageIllegal, or(remark, "the message is illegal: body or properties too long")
	case store.ServiceNotAvailable:
		return outcome.ServiceNotAvailable, or(remark, "service not available now: the message store is not writable")
	case store.CreateMappedFileFailed:
		return outcome.ServiceNotAvailable, or(remark, "create mapped file failed, the disk may be full")
	case store.OSPageCacheBusy:
		return outcome.SystemBusy, "[PC_SYNCHRONIZED]broker busy, start flow control for a while"
	default:
		return outcome.SystemError, or(remark, "unknown error storing the message")
	}
}

// PutFailure is the error of a put that did not store its message, nil for one that did.
func PutFailure(res *store.PutResult) error {
	if res.Status.Stored() {
		return nil
	}
	k, remark := PutOutcome(res.Status, res.Remark)
	return &outcome.Error{Kind: k, Remark: remark}
}

// CommitPutKind is what a refused put of a committed transaction message means for
// END_TRANSACTION (Java EndTransactionProcessor.sendFinalMessage).
func CommitPutKind(st store.PutStatus) outcome.Kind {
	switch st {
	case store.MessageIllegal, store.PropertiesSizeExceeded:
		return outcome.MessageIllegal
	case store.ServiceNotAvailable:
		return outcome.ServiceNotAvailable
	default:
		return outcome.SystemError
	}
}

// PullStatus is what a read's status means for the puller (docs/protocol.md §2.6). An empty
// queue, or one the broker does not have, is PullNotFound for a pull from offset 0 and
// PullOffsetMoved for a pull from anywhere else.
func PullStatus(st store.GetStatus, requested int64) outcome.Kind {
	switch st {
	case store.Found:
		return outcome.OK
	case store.MessageWasRemoving, store.NoMatchedMessage:
		return outcome.PullRetryImmediately
	case store.NoMatchedLogicQueue, store.NoMessageInQueue:
		if requested != 0 {
			return outcome.PullOffsetMoved
		}
		return outcome.PullNotFound
	case store.OffsetFoundNull, store.OffsetOverflowOne:
		return outcome.PullNotFound
	case store.OffsetOverflowBadly, store.OffsetTooSmall:
		return outcome.PullOffsetMoved
	default:
		return outcome.SystemError
	}
}

func or(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
