package transaction

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// States a producer ends a transaction with (END_TRANSACTION commitOrRollback): the transaction
// bits of MessageSysFlag.
const (
	StateUnknown  = message.SysFlagTransactionNot    // 0: the producer does not know yet
	StateCommit   = message.SysFlagTransactionCommit // 8
	StateRollback = message.SysFlagTransactionRoll   // 12
)

// EndRequest is END_TRANSACTION's header.
type EndRequest struct {
	ProducerGroup string
	// TranStateTableOffset is the half message's queue offset in the half queue.
	TranStateTableOffset int64
	// CommitLogOffset is the half message's CommitLog offset.
	CommitLogOffset      int64
	CommitOrRollback     int32
	FromTransactionCheck bool
	MsgID                string
	TransactionID        string
	// MayWrite, if set, is asked about the real topic of the half message before it is committed
	// or rolled back (ACL: the offsets are the producer's, the half message may be another's).
	MayWrite func(topic string) error
}

// EndError is an END_TRANSACTION that names no half message of its producer group, or an invalid
// state: answered SYSTEM_ERROR with Error() as the remark.
type EndError struct{ Reason string }

func (e *EndError) Error() string { return e.Reason }

// CommitPutError is a commit whose real message the store refused; the half message stays, to be
// checked back later.
type CommitPutError struct{ Result store.PutResult }

func (e *CommitPutError) Error() string {
	return fmt.Sprintf("storing the committed message failed: %s %s", e.Result.Status, e.Result.Remark)
}

// End commits or rolls back the half message r names (Java EndTransactionProcessor). It checks
// that the record at r.CommitLogOffset is a half message of r.ProducerGroup at queue offset
// r.TranStateTableOffset; a commit stores the real message, and then either writes the op message
// that settles the half. StateUnknown changes nothing. Errors are *EndError or *CommitPutError.
func (s *Service) End(r EndRequest) error {
	switch r.CommitOrRollback {
	case StateUnknown:
		s.lg.Debug("producer does not know the transaction's state yet", zap.String("group", r.ProducerGroup),
			zap.String("msgId", r.MsgID), zap.Bool("fromCheck", r.FromTransactionCheck))
		return nil
	case StateCommit, StateRollback:
	default:
		return &EndError{Reason: fmt.Sprintf("commitOrRollback %d is none of 0 (unknown), 8 (commit) and 12 (rollback)", r.CommitOrRollback)}
	}
	half := s.st.LookMessageByOffset(r.CommitLogOffset)
	if half == nil {
		return &EndError{Reason: fmt.Sprintf("Find prepared transaction message failed: no message at commitLogOffset %d", r.CommitLogOffset)}
	}
	if err := matchHalf(half, r); err != nil {
		return err
	}
	if r.MayWrite != nil {
		if err := r.MayWrite(half.Props[message.PropertyRealTopic]); err != nil {
			return err
		}
	}
	if r.CommitOrRollback == StateCommit {
		m, err := committed(half, s.opts.MaxDelayLevel)
		if err != nil {
			return &EndError{Reason: err.Error()}
		}
		if s.opts.Timers != nil {
			if _, err := s.opts.Timers.Divert(m); err != nil {
				return err // the timer's refusal, with its kind and remark
			}
		}
		if res, ok := s.put(m, "committed message"); !ok {
			return &CommitPutError{Result: res}
		}
	}
	s.settle(half)
	if m := s.opts.Metrics; m != nil {
		m.TransactionEnded(half.Props[message.PropertyRealTopic], r.CommitOrRollback == StateCommit, half.BornTimestamp)
	}
	s.lg.Debug("transaction ended", zap.String("group", r.ProducerGroup), zap.String("msgId", r.MsgID),
		zap.Bool("commit", r.CommitOrRollback == StateCommit), zap.Bool("fromCheck", r.FromTransactionCheck),
		zap.Int64("halfOffset", half.QueueOffset))
	return nil
}

// matchHalf checks the record an END_TRANSACTION names (Java checkPrepareMessage), and, beyond
// Java, that it is a half message at all.
func matchHalf(half *message.MessageExt, r EndRequest) error {
	switch {
	case half.Topic != systopic.TransHalf:
		return &EndError{Reason: fmt.Sprintf("the message at commitLogOffset %d is in topic %s, not a half message", r.CommitLogOffset, half.Topic)}
	case half.Props[message.PropertyProducerGroup] != r.ProducerGroup:
		return &EndError{Reason: fmt.Sprintf("The producer group wrong: the half message's is %q, the request's %q",
			half.Props[message.PropertyProducerGroup], r.ProducerGroup)}
	case half.QueueOffset != r.TranStateTableOffset:
		return &EndError{Reason: fmt.Sprintf("The transaction state table offset wrong: the half message's queue offset is %d, the request's %d",
			half.QueueOffset, r.TranStateTableOffset)}
	case half.PhysicalOffset != r.CommitLogOffset:
		return &EndError{Reason: fmt.Sprintf("The commit log offset wrong: the half message's is %d, the request's %d",
			half.PhysicalOffset, r.CommitLogOffset)}
	}
	return nil
}

// settle writes the op message of a committed or rolled back half message. A failure is logged
// only: the half message will be checked back.
func (s *Service) settle(half *message.MessageExt) {
	m := opMessage(half.QueueID, half.QueueOffset, s.opts.StoreHost, s.nowMillis(), s.uniq.New())
	s.put(m, "op message")
}
