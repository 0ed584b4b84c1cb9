package transaction

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Half messages are stored in systopic.TransHalf (one queue), the op messages that settle them
// in systopic.TransOpHalf, and systopic.TransCheckGroup's offsets of both record how far the
// check-back loop got (Java TransactionalMessageUtil).
const (
	// RemoveTag is the tag of an op message: the half message it names was committed or rolled back.
	RemoveTag = "d"
)

// IsHalfSend reports whether a send with these properties and reconsume count is the first half
// of a transaction, as Java's SendMessageProcessor decides: TRAN_MSG parses as true (any case),
// unless the message is a retry that clients older than 4.6.1 re-send with TRAN_MSG still set
// (reconsumeTimes > 0 and a DELAY level).
func IsHalfSend(props string, reconsumeTimes int32) bool {
	v, ok := message.LookupPropertyString(props, message.PropertyTransactionPrepared)
	if !ok || !strings.EqualFold(v, "true") {
		return false
	}
	return !(reconsumeTimes > 0 && schedule.DelayLevel(props) > 0)
}

// toHalf rewrites m into its half form (Java parseHalfMessageInner): the real topic and queue move
// to REAL_TOPIC/REAL_QID, the transaction bits of sysFlag are reset to NOT so that the half queue
// and the index get entries for it, and m goes to the half topic's queue 0. A DELAY level stays in the
// properties and applies when the message is committed.
func toHalf(m *store.Message) {
	props := message.ParseProperties(m.Properties)
	props[message.PropertyRealTopic] = m.Topic
	props[message.PropertyRealQueueID] = strconv.Itoa(int(m.QueueID))
	m.Properties = message.EncodeProperties(props)
	m.SysFlag = message.SetTransactionType(m.SysFlag, message.SysFlagTransactionNot)
	m.Topic = systopic.TransHalf
	m.QueueID = 0
}

// realTarget reads where a half message belongs.
func realTarget(props map[string]string) (string, int32, error) {
	t := props[message.PropertyRealTopic]
	if t == "" {
		return "", 0, errors.New("the half message has no REAL_TOPIC property")
	}
	q, err := strconv.ParseInt(props[message.PropertyRealQueueID], 10, 32)
	if err != nil || q < 0 {
		return "", 0, fmt.Errorf("the half message's REAL_QID %q is not a queue id", props[message.PropertyRealQueueID])
	}
	return t, int32(q), nil
}

// committed builds the real message of a committed half (Java endMessageTransaction): the half's
// body, flag, born time and host, reconsume count and properties, in its real topic and queue, with
// REAL_TOPIC/REAL_QID dropped, the COMMIT transaction type and preparedTransactionOffset naming the
// half. TRAN_MSG and PGROUP stay, as in Java 4.9: consumers read TRAN_MSG to fill in the
// transaction id. A DELAY level sends it through the delay queues first.
func committed(half *message.MessageExt, maxDelayLevel int) (*store.Message, error) {
	realTopic, realQID, err := realTarget(half.Props)
	if err != nil {
		return nil, err
	}
	props := make(map[string]string, len(half.Props))
	for k, v := range half.Props {
		props[k] = v
	}
	delete(props, message.PropertyRealTopic)
	delete(props, message.PropertyRealQueueID)
	m := &store.Message{
		Topic:                     realTopic,
		QueueID:                   realQID,
		Flag:                      half.Flag,
		SysFlag:                   message.SetTransactionType(half.SysFlag, message.SysFlagTransactionCommit),
		BornTimestamp:             half.BornTimestamp,
		BornHost:                  half.BornHost,
		ReconsumeTimes:            half.ReconsumeTimes,
		PreparedTransactionOffset: half.PhysicalOffset,
		Body:                      half.Body,
		Properties:                message.EncodeProperties(props),
	}
	if level := schedule.DelayLevel(m.Properties); level > 0 {
		schedule.Defer(m, level, maxDelayLevel)
	}
	return m, nil
}

// opMessage is the op message that settles the half message at queue offset halfOffset of half
// queue queueID (Java addRemoveTagInTransactionOp): tag "d", the offset in decimal as its body,
// born and stored by the broker itself, with a fresh UNIQ_KEY.
func opMessage(queueID int32, halfOffset int64, host netip.AddrPort, bornMillis int64, uniqKey string) *store.Message {
	var props []byte
	props = message.AppendProperty(props, message.PropertyTags, RemoveTag)
	props = message.AppendProperty(props, message.PropertyWaitStoreMsgOK, "true")
	props = message.AppendProperty(props, message.PropertyUniqClientMessageID, uniqKey)
	return &store.Message{
		Topic:         systopic.TransOpHalf,
		QueueID:       queueID,
		BornTimestamp: bornMillis,
		BornHost:      host,
		Body:          strconv.AppendInt(nil, halfOffset, 10),
		Properties:    string(props),
	}
}

// renewed is the copy of a half message the check-back loop stores before asking its producer
// (Java renewHalfMessageInner): the same half message in the same half queue, with props.
func renewed(half *message.MessageExt, props map[string]string) *store.Message {
	return &store.Message{
		Topic:          half.Topic,
		QueueID:        half.QueueID,
		Flag:           half.Flag,
		SysFlag:        half.SysFlag,
		BornTimestamp:  half.BornTimestamp,
		BornHost:       half.BornHost,
		ReconsumeTimes: half.ReconsumeTimes,
		Body:           half.Body,
		Properties:     message.EncodeProperties(props),
	}
}

// copyProps returns a copy of props with key set to value.
func copyProps(props map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(props)+1)
	for k, v := range props {
		out[k] = v
	}
	out[key] = value
	return out
}

// discard moves a half message that will not be checked again to TRANS_CHECK_MAX_TIME_TOPIC (one
// queue, created on first use), as 4.9 does (resolveDiscardMsg): with its properties (REAL_TOPIC,
// PGROUP, TRANSACTION_CHECK_TIMES, ...) and body, where operators can find and read it. The half
// message counts as settled even if the move fails (logged).
func (s *Service) discard(half *message.MessageExt) {
	s.topics.CreateTopicInSendMessageBack(systopic.TransCheckMaxTime, 1, body.PermRead|body.PermWrite, 0)
	m := renewed(half, copyProps(half.Props, message.PropertyWaitStoreMsgOK, "false"))
	m.Topic, m.QueueID = systopic.TransCheckMaxTime, 0
	s.put(m, "half message discarded to "+systopic.TransCheckMaxTime)
}
