// Package transaction implements RocketMQ 4.9's transactional messages on the broker.
//
// A producer first sends a half message (property TRAN_MSG=true): Prepare rewrites it into
// RMQ_SYS_TRANS_HALF_TOPIC queue 0 with its real topic and queue kept in REAL_TOPIC/REAL_QID,
// where consumers of the real topic cannot see it. END_TRANSACTION (End) then commits it — the
// real message is stored in its topic — or rolls it back; either way an op message with tag "d"
// and the half message's queue offset as its body goes to RMQ_SYS_TRANS_OP_HALF_TOPIC.
//
// Service also owns the check-back loop (Java's TransactionalMessageCheckService): every check
// interval it reads the half queue from the offset of group CID_RMQ_SYS_TRANS, skips half messages
// an op message settled, and for each one older than the transaction timeout stores a copy with
// TRANSACTION_CHECK_TIMES raised and asks one connection of its producer group
// (CHECK_TRANSACTION_STATE) to end it. A half message checked transactionCheckMax times is
// discarded to TRANS_CHECK_MAX_TIME_TOPIC. docs/transactions.md describes the whole protocol.
package transaction
