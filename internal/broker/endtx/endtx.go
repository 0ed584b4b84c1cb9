// Package endtx ends transactions: it commits or rolls back a half message for its producer
// (END_TRANSACTION) through the transaction service, refusing on a slave, and says what a failure
// means for the producer.
package endtx

import (
	"errors"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
)

// Transactions ends a transaction.
type Transactions interface {
	End(r transaction.EndRequest) error
}

// Options are the broker settings ending a transaction depends on.
type Options struct {
	BrokerName string
	Slave      bool
}

// Service ends transactions.
type Service struct {
	opts Options
	tx   Transactions
}

// New returns a Service.
func New(opts Options, tx Transactions) *Service { return &Service{opts: opts, tx: tx} }

// End commits, rolls back or (state unknown) leaves a half message. A commit whose message the
// store refuses takes the store's kind (Java sendFinalMessage); anything else wrong is
// SystemError saying what.
func (s *Service) End(r transaction.EndRequest) error {
	if s.opts.Slave {
		return outcome.Errorf(outcome.SlaveNotAvailable, "the broker[%s] is a slave: end transaction is forbidden", s.opts.BrokerName)
	}
	err := s.tx.End(r)
	if err == nil {
		return nil
	}
	var oe *outcome.Error
	if errors.As(err, &oe) {
		return oe // a refusal with its kind already (MayWrite; a committed timer message's)
	}
	var pe *transaction.CommitPutError
	if errors.As(err, &pe) {
		return &outcome.Error{Kind: policy.CommitPutKind(pe.Result.Status), Remark: err.Error()}
	}
	return &outcome.Error{Kind: outcome.SystemError, Remark: err.Error()}
}
