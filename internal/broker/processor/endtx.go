package processor

import (
	"context"
	"errors"

	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// endTransaction commits or rolls back a half message (END_TRANSACTION). Java answers nothing to
// state 0 (unknown) and to unknown states; the Go client sends the request without the oneway flag
// and drops whatever comes back, so an empty SUCCESS (unknown) or a SYSTEM_ERROR saying what was
// wrong is answered instead, and dropped by the remoting layer for real oneway requests.
func (p *Processor) endTransaction(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	r := transaction.EndRequest{
		ProducerGroup:        f.String("producerGroup"),
		TranStateTableOffset: f.Int64("tranStateTableOffset"),
		CommitLogOffset:      f.Int64("commitLogOffset"),
		CommitOrRollback:     f.Int32("commitOrRollback"),
		FromTransactionCheck: f.OptBool("fromTransactionCheck", false),
		MsgID:                f.String("msgId"),
		TransactionID:        f.OptString("transactionId", ""),
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	if p.opts.Slave {
		return nil, fail(protocol.SlaveNotAvailable, "the broker[%s] is a slave: end transaction is forbidden", p.opts.BrokerName)
	}
	err := p.Transactions.End(r)
	var pe *transaction.CommitPutError
	switch {
	case err == nil:
		return success(req), nil
	case errors.As(err, &pe):
		return nil, fail(endPutCode(&pe.Result), "%s", err.Error())
	default:
		return nil, fail(protocol.SystemError, "%s", err.Error())
	}
}

// endPutCode maps a refused put of a committed message to END_TRANSACTION's answer (Java
// EndTransactionProcessor.sendFinalMessage).
func endPutCode(res *store.PutResult) protocol.ResponseCode {
	switch res.Status {
	case store.MessageIllegal, store.PropertiesSizeExceeded:
		return protocol.MessageIllegal
	case store.ServiceNotAvailable:
		return protocol.ServiceNotAvailable
	default:
		return protocol.SystemError
	}
}
