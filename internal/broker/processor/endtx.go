package processor

import (
	"context"

	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// endTransaction serves END_TRANSACTION. Java answers nothing to state 0 (unknown) and to unknown
// states; the Go client sends the request without the oneway flag and drops whatever comes back,
// so an empty SUCCESS (unknown) or a SYSTEM_ERROR saying what was wrong is answered instead, and
// dropped by the remoting layer for real oneway requests.
func (p *Processor) endTransaction(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	var h protocol.EndTransactionRequestHeader
	if err := h.Decode(req.ExtFields); err != nil {
		return nil, err
	}
	err := p.svc.EndTx.End(transaction.EndRequest{
		ProducerGroup:        h.ProducerGroup,
		TranStateTableOffset: h.TranStateTableOffset,
		CommitLogOffset:      h.CommitLogOffset,
		CommitOrRollback:     h.CommitOrRollback,
		FromTransactionCheck: h.FromTransactionCheck.Or(false),
		MsgID:                h.MsgID,
		TransactionID:        h.TransactionID.Or(""),
		MayWrite:             p.mayWrite(c, req),
	})
	if err != nil {
		return nil, err
	}
	return success(req), nil
}
