package body

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/bits"
)

// BatchAck is one checkpoint's acks in a BATCH_ACK_MESSAGE (Java BatchAck): the messages whose
// offsets are StartOffset + i for every i set in BitSet. Java writes the short names below and
// also reads the long ones (consumerGroup, topic, retry, startOffset, queueId, reviveQueueId,
// popTime, invisibleTime, bitSet).
type BatchAck struct {
	ConsumerGroup string `json:"c"`
	Topic         string `json:"t"`
	// Retry is the RetryMark ("0", "1" or "2") of the topic the messages were popped from.
	Retry         string `json:"r"`
	StartOffset   int64  `json:"so"`
	QueueID       int32  `json:"q"`
	ReviveQueueID int32  `json:"rq"`
	PopTime       int64  `json:"pt"`
	InvisibleTime int64  `json:"it"`
	BitSet        BitSet `json:"b"`
}

// batchAckLong is BatchAck under Java's alternate (long) names.
type batchAckLong struct {
	ConsumerGroup *string `json:"consumerGroup"`
	Topic         *string `json:"topic"`
	Retry         *string `json:"retry"`
	StartOffset   *int64  `json:"startOffset"`
	QueueID       *int32  `json:"queueId"`
	ReviveQueueID *int32  `json:"reviveQueueId"`
	PopTime       *int64  `json:"popTime"`
	InvisibleTime *int64  `json:"invisibleTime"`
	BitSet        *BitSet `json:"bitSet"`
}

// UnmarshalJSON reads the short names and, where a short one is missing, the long one.
func (b *BatchAck) UnmarshalJSON(data []byte) error {
	type plain BatchAck
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	var l batchAckLong
	if err := json.Unmarshal(data, &l); err != nil {
		return err
	}
	*b = BatchAck(p)
	b.fillLong(&l)
	return nil
}

func (b *BatchAck) fillLong(l *batchAckLong) {
	set := func(dst *string, src *string) {
		if *dst == "" && src != nil {
			*dst = *src
		}
	}
	set(&b.ConsumerGroup, l.ConsumerGroup)
	set(&b.Topic, l.Topic)
	set(&b.Retry, l.Retry)
	setNum(&b.StartOffset, l.StartOffset)
	setNum(&b.QueueID, l.QueueID)
	setNum(&b.ReviveQueueID, l.ReviveQueueID)
	setNum(&b.PopTime, l.PopTime)
	setNum(&b.InvisibleTime, l.InvisibleTime)
	if len(b.BitSet) == 0 && l.BitSet != nil {
		b.BitSet = *l.BitSet
	}
}

func setNum[T int32 | int64](dst *T, src *T) {
	if *dst == 0 && src != nil {
		*dst = *src
	}
}

// BitSet is a java.util.BitSet as fastjson writes it: the base64 text of BitSet.toByteArray
// (little-endian: bit i is bit i%8 of byte i/8). A JSON array of byte values is read too.
type BitSet []byte

// MaxBitSetBytes bounds a decoded BitSet: a checkpoint covers at most 32 messages, but a batch
// ack may name offsets further apart; 8 KiB is 65536 offsets.
const MaxBitSetBytes = 8 << 10

// MarshalJSON writes the base64 text.
func (s BitSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(base64.StdEncoding.EncodeToString(s))
}

// UnmarshalJSON reads base64 text or an array of bytes.
func (s *BitSet) UnmarshalJSON(data []byte) error {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		raw, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return fmt.Errorf("body: bitSet is not base64: %w", err)
		}
		return s.set(raw)
	}
	var arr []int8
	if err := json.Unmarshal(data, &arr); err != nil {
		return fmt.Errorf("body: bitSet is neither base64 text nor an array of bytes")
	}
	raw := make([]byte, len(arr))
	for i, v := range arr {
		raw[i] = byte(v)
	}
	return s.set(raw)
}

func (s *BitSet) set(raw []byte) error {
	if len(raw) > MaxBitSetBytes {
		return fmt.Errorf("body: bitSet of %d bytes, more than %d", len(raw), MaxBitSetBytes)
	}
	*s = raw
	return nil
}

// Bits calls f with every set bit, in increasing order, until f returns false.
func (s BitSet) Bits(f func(i int) bool) {
	for i, b := range s {
		for b != 0 {
			n := bits.TrailingZeros8(b)
			if !f(i*8 + n) {
				return
			}
			b &= b - 1
		}
	}
}

// NewBitSet returns a BitSet with the given bits set.
func NewBitSet(set ...int) BitSet {
	var s BitSet
	for _, i := range set {
		for len(s) <= i/8 {
			s = append(s, 0)
		}
		s[i/8] |= 1 << (i % 8)
	}
	return s
}

// BatchAckMessageRequestBody is the body of BATCH_ACK_MESSAGE.
type BatchAckMessageRequestBody struct {
	BrokerName string     `json:"brokerName"`
	Acks       []BatchAck `json:"acks"`
}

// DecodeBatchAckMessageRequestBody parses a BATCH_ACK_MESSAGE body.
func DecodeBatchAckMessageRequestBody(data []byte) (*BatchAckMessageRequestBody, error) {
	var b BatchAckMessageRequestBody
	if err := Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("body: decode BatchAckMessageRequestBody: %w", err)
	}
	return &b, nil
}

// Message request modes (Java MessageRequestMode): how a group's consumers of a topic fetch.
const (
	RequestModePull = "PULL"
	RequestModePop  = "POP"
)

// Message models (Java MessageModel).
const (
	MessageModelClustering   = "CLUSTERING"
	MessageModelBroadcasting = "BROADCASTING"
)

// QueryAssignmentRequestBody is the body of QUERY_ASSIGNMENT.
type QueryAssignmentRequestBody struct {
	Topic         string `json:"topic"`
	ConsumerGroup string `json:"consumerGroup"`
	ClientID      string `json:"clientId"`
	StrategyName  string `json:"strategyName"`
	MessageModel  string `json:"messageModel"`
}

// DecodeQueryAssignmentRequestBody parses a QUERY_ASSIGNMENT body.
func DecodeQueryAssignmentRequestBody(data []byte) (*QueryAssignmentRequestBody, error) {
	var b QueryAssignmentRequestBody
	if err := Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("body: decode QueryAssignmentRequestBody: %w", err)
	}
	return &b, nil
}

// MessageQueueAssignment is one queue given to a consumer and how it fetches from it. A POP
// assignment of queue -1 pops from every queue of the topic on that broker.
type MessageQueueAssignment struct {
	MessageQueue MessageQueue      `json:"messageQueue"`
	Mode         string            `json:"mode"`
	Attachments  map[string]string `json:"attachments,omitempty"`
}

// QueryAssignmentResponseBody answers QUERY_ASSIGNMENT. A nil set is Java's null: the client
// keeps its current queues.
type QueryAssignmentResponseBody struct {
	MessageQueueAssignments []MessageQueueAssignment `json:"messageQueueAssignments"`
}

// SetMessageRequestModeRequestBody is the body of SET_MESSAGE_REQUEST_MODE and an entry of
// messageRequestMode.json. PopShareQueueNum: a POP consumer also pops the queues of the next
// PopShareQueueNum consumers of the group; 0 or less, or as many as there are others, shares
// every queue.
type SetMessageRequestModeRequestBody struct {
	Topic            string `json:"topic"`
	ConsumerGroup    string `json:"consumerGroup"`
	Mode             string `json:"mode"`
	PopShareQueueNum int    `json:"popShareQueueNum"`
}

// DecodeSetMessageRequestModeRequestBody parses a SET_MESSAGE_REQUEST_MODE body; a missing mode
// is PULL, as in Java.
func DecodeSetMessageRequestModeRequestBody(data []byte) (*SetMessageRequestModeRequestBody, error) {
	b := SetMessageRequestModeRequestBody{Mode: RequestModePull}
	if err := Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("body: decode SetMessageRequestModeRequestBody: %w", err)
	}
	return &b, nil
}

// MessageRequestModeSerializeWrapper is messageRequestMode.json and the answer to
// GET_ALL_MESSAGE_REQUEST_MODE: topic → group → mode.
type MessageRequestModeSerializeWrapper struct {
	MessageRequestModeMap map[string]map[string]SetMessageRequestModeRequestBody `json:"messageRequestModeMap"`
}

// MarshalJSON emits {} instead of null.
func (w MessageRequestModeSerializeWrapper) MarshalJSON() ([]byte, error) {
	type plain MessageRequestModeSerializeWrapper
	p := plain(w)
	if p.MessageRequestModeMap == nil {
		p.MessageRequestModeMap = map[string]map[string]SetMessageRequestModeRequestBody{}
	}
	return Marshal(p)
}

// DecodeMessageRequestModeSerializeWrapper parses messageRequestMode.json.
func DecodeMessageRequestModeSerializeWrapper(data []byte) (*MessageRequestModeSerializeWrapper, error) {
	var w MessageRequestModeSerializeWrapper
	if err := Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("body: decode MessageRequestModeSerializeWrapper: %w", err)
	}
	return &w, nil
}
