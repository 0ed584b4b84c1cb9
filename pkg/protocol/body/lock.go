package body

import (
	"cmp"
	"fmt"
)

// MessageQueue identifies one queue of a topic on one broker group. Its JSON key order
// (brokerName, queueId, topic) is fastjson's, which Go's ResetOffsetBody parser depends on.
type MessageQueue struct {
	BrokerName string `json:"brokerName"`
	QueueID    int32  `json:"queueId"`
	Topic      string `json:"topic"`
}

// Compare orders queues by topic, broker name, then queue id.
func (m MessageQueue) Compare(o MessageQueue) int {
	if c := cmp.Compare(m.Topic, o.Topic); c != 0 {
		return c
	}
	if c := cmp.Compare(m.BrokerName, o.BrokerName); c != 0 {
		return c
	}
	return cmp.Compare(m.QueueID, o.QueueID)
}

// LockBatchRequestBody is the body of LOCK_BATCH_MQ.
type LockBatchRequestBody struct {
	ClientID       string         `json:"clientId"`
	ConsumerGroup  string         `json:"consumerGroup"`
	MQSet          []MessageQueue `json:"mqSet"`
	OnlyThisBroker bool           `json:"onlyThisBroker,omitempty"`
}

// UnlockBatchRequestBody is the body of UNLOCK_BATCH_MQ.
type UnlockBatchRequestBody = LockBatchRequestBody

// DecodeLockBatchRequest parses a LOCK_BATCH_MQ or UNLOCK_BATCH_MQ body.
func DecodeLockBatchRequest(data []byte) (*LockBatchRequestBody, error) {
	var b LockBatchRequestBody
	if err := Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("body: decode LockBatchRequestBody: %w", err)
	}
	return &b, nil
}

// LockBatchResponseBody is the answer to LOCK_BATCH_MQ.
type LockBatchResponseBody struct {
	LockOKMQSet []MessageQueue `json:"lockOKMQSet"`
}

// MarshalJSON emits [] instead of null.
func (b LockBatchResponseBody) MarshalJSON() ([]byte, error) {
	type plain LockBatchResponseBody
	p := plain(b)
	if p.LockOKMQSet == nil {
		p.LockOKMQSet = []MessageQueue{}
	}
	return Marshal(p)
}

// ConsumerIDList is the answer to GET_CONSUMER_LIST_BY_GROUP.
type ConsumerIDList struct {
	ConsumerIDList []string `json:"consumerIdList"`
}

// MarshalJSON emits [] instead of null.
func (c ConsumerIDList) MarshalJSON() ([]byte, error) {
	type plain ConsumerIDList
	p := plain(c)
	if p.ConsumerIDList == nil {
		p.ConsumerIDList = []string{}
	}
	return Marshal(p)
}

// GroupList is the answer to QUERY_TOPIC_CONSUME_BY_WHO.
type GroupList struct {
	GroupList []string `json:"groupList"`
}

// MarshalJSON emits [] instead of null.
func (g GroupList) MarshalJSON() ([]byte, error) {
	type plain GroupList
	p := plain(g)
	if p.GroupList == nil {
		p.GroupList = []string{}
	}
	return Marshal(p)
}
