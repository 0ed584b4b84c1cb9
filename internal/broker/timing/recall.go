package timing

import (
	"net/netip"
	"strconv"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// recallTag is the TAGS of a recall record's message (Java RECALL_MESSAGE_TAG).
const recallTag = "_RECALL_TAG_"

// Property names of a recall message Java sets and message does not name.
const (
	propBornTimestamp = "BORN_TIMESTAMP"
	propTraceContext  = "TRACE_CONTEXT"
)

// RecallRequest is one RECALL_MESSAGE.
type RecallRequest struct {
	ProducerGroup string
	Topic         string
	Handle        string
	BornHost      netip.AddrPort
}

// Recall withdraws a timer message not delivered yet (Java RecallMessageProcessor): it stores a
// recall message, a timer message due in the same slot that names the message, and the slot
// leaves that message out. It answers the message id (the handle's), whether or not the message
// was still pending. Refusals, as Java: recall disabled (NO_PERMISSION), a slave
// (SLAVE_NOT_AVAILABLE), a broker that cannot write (SERVICE_NOT_AVAILABLE, unless
// allowRecallWhenBrokerNotWriteable), an unknown topic (TOPIC_NOT_EXIST), a handle that does not
// decode, names another topic or broker, or a time already passed or beyond timerMaxDelaySec
// (ILLEGAL_OPERATION), a failed write (SYSTEM_ERROR). Names from the wire are checked first: a
// topic that is not a topic name is TOPIC_NOT_EXIST, a producer group that is not a group name
// ILLEGAL_OPERATION (Java stores either as it came; here both reach a message's properties).
func (s *Service) Recall(r RecallRequest) (string, error) {
	h, err := s.checkRecall(r)
	if err != nil {
		return "", err
	}
	m := s.recallMessage(r, h)
	if ok, err := s.Divert(&m); err != nil || !ok {
		return "", outcome.Errorf(outcome.SystemError, "recall failed, execute error")
	}
	if res := s.st.PutMessage(&m); !res.Status.Stored() {
		return "", outcome.Errorf(outcome.SystemError, "recall failed, execute error")
	}
	return h.MessageID, nil
}

// checkRecall makes Java's checks, in Java's order.
func (s *Service) checkRecall(r RecallRequest) (Handle, error) {
	unavailable := outcome.Errorf(outcome.ServiceNotAvailable, "recall failed, broker service not available")
	switch {
	case !s.opts.RecallEnable:
		return Handle{}, outcome.Errorf(outcome.NoPermission, "recall failed, operation is forbidden")
	case s.opts.Slave:
		return Handle{}, outcome.Errorf(outcome.SlaveNotAvailable, "recall failed, broker service not available")
	case s.opts.BrokerPermission&body.PermWrite == 0 && !s.opts.AllowRecallWhenNotWriteable:
		return Handle{}, unavailable
	}
	if err := names.Topic(r.Topic); err != nil {
		return Handle{}, outcome.Errorf(outcome.TopicNotExist, "recall failed, the topic%s not exist: %v", names.Quote(r.Topic), err)
	}
	if r.ProducerGroup != "" {
		if err := names.Group(r.ProducerGroup); err != nil {
			return Handle{}, outcome.Errorf(outcome.IllegalOperation, "recall failed, bad producer group: %v", err)
		}
	}
	if _, ok := s.topics.Get(r.Topic); !ok {
		return Handle{}, outcome.Errorf(outcome.TopicNotExist, "recall failed, the topic[%s] not exist", r.Topic)
	}
	h, err := DecodeHandle(r.Handle)
	switch {
	case err != nil:
		return Handle{}, outcome.Errorf(outcome.IllegalOperation, "%s", err.Error())
	case h.Topic != r.Topic:
		return Handle{}, outcome.Errorf(outcome.IllegalOperation, "recall failed, topic not match")
	case h.BrokerName != s.opts.BrokerName:
		return Handle{}, outcome.Errorf(outcome.IllegalOperation, "recall failed, broker service not available")
	}
	ts, err := strconv.ParseInt(h.Timestamp, 10, 64)
	if left := ts - s.now(); err != nil || left <= 0 || left >= s.opts.MaxDelaySec*1000 {
		return Handle{}, outcome.Errorf(outcome.IllegalOperation, "recall failed, timestamp invalid")
	}
	return h, nil
}

// recallMessage is the message a recall stores (Java RecallMessageProcessor.buildMessage).
func (s *Service) recallMessage(r RecallRequest, h Handle) store.Message {
	now := strconv.FormatInt(s.now(), 10)
	props := map[string]string{
		message.PropertyTags:                recallTag,
		message.PropertyTimerDelUniqKey:     DeleteKey(h.Topic, h.MessageID),
		message.PropertyUniqClientMessageID: h.MessageID,
		message.PropertyTimerDeliverMS:      h.Timestamp,
		propBornTimestamp:                   now,
		propTraceContext:                    "",
		message.PropertyProducerGroup:       r.ProducerGroup,
	}
	return store.Message{Topic: h.Topic, QueueID: 0, Body: []byte("0"), BornTimestamp: s.now(), BornHost: r.BornHost,
		Properties: message.EncodeProperties(props)}
}
