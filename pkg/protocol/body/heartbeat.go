package body

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Consume types, message models and expression types as clients spell them.
const (
	ConsumeActively  = "CONSUME_ACTIVELY"
	ConsumePassively = "CONSUME_PASSIVELY"
	ConsumePop       = "CONSUME_POP"

	Clustering   = "CLUSTERING"
	Broadcasting = "BROADCASTING"

	ExpressionTag   = "TAG"
	ExpressionSQL92 = "SQL92"

	// SubAll is the subscription expression that matches every tag.
	SubAll = "*"
)

// HeartbeatData is the body of HEART_BEAT.
type HeartbeatData struct {
	ClientID             string         `json:"clientID"`
	ConsumerDataSet      []ConsumerData `json:"consumerDataSet"`
	HeartbeatFingerprint int64          `json:"heartbeatFingerprint,omitempty"`
	ProducerDataSet      []ProducerData `json:"producerDataSet"`
	WithoutSub           bool           `json:"withoutSub,omitempty"`
}

// DecodeHeartbeatData parses a heartbeat from Java, Go (string codeSet, nanosecond subVersion) or
// ali-ons (numbers).
func DecodeHeartbeatData(data []byte) (*HeartbeatData, error) {
	var h HeartbeatData
	if err := Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("body: decode HeartbeatData: %w", err)
	}
	return &h, nil
}

// ProducerData names one producer group of a client.
type ProducerData struct {
	GroupName string `json:"groupName"`
}

// ConsumerData is one consumer group of a client with its subscriptions.
type ConsumerData struct {
	ConsumeFromWhere    string             `json:"consumeFromWhere"`
	ConsumeType         string             `json:"consumeType"`
	GroupName           string             `json:"groupName"`
	MessageModel        string             `json:"messageModel"`
	SubscriptionDataSet []SubscriptionData `json:"subscriptionDataSet"`
	UnitMode            bool               `json:"unitMode"`
}

// SubscriptionData is one topic subscription. CodeSet holds Java String.hashCode values of the tags.
type SubscriptionData struct {
	ClassFilterMode   bool     `json:"classFilterMode"`
	CodeSet           CodeSet  `json:"codeSet"`
	ExpressionType    string   `json:"expressionType,omitempty"`
	FilterClassSource string   `json:"filterClassSource,omitempty"`
	SubString         string   `json:"subString"`
	SubVersion        Int64    `json:"subVersion"`
	TagsSet           []string `json:"tagsSet"`
	Topic             string   `json:"topic"`
}

// MarshalJSON emits [] for empty sets, as Java does.
func (s SubscriptionData) MarshalJSON() ([]byte, error) {
	type plain SubscriptionData
	p := plain(s)
	if p.CodeSet == nil {
		p.CodeSet = CodeSet{}
	}
	if p.TagsSet == nil {
		p.TagsSet = []string{}
	}
	return Marshal(p)
}

// CodeSet is a set of tag hash codes. It decodes numbers (Java, ali-ons) and numeric strings (Go)
// and encodes numbers.
type CodeSet []int32

// UnmarshalJSON accepts [1,2], ["1","2"] and null.
func (c *CodeSet) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("body: codeSet: %w", err)
	}
	if raw == nil {
		*c = nil
		return nil
	}
	out := make(CodeSet, 0, len(raw))
	for _, r := range raw {
		var n Int64
		if err := n.UnmarshalJSON(r); err != nil {
			return fmt.Errorf("body: codeSet: %w", err)
		}
		if int64(int32(n)) != int64(n) {
			return fmt.Errorf("body: codeSet: %d out of int32 range", n)
		}
		out = append(out, int32(n))
	}
	*c = out
	return nil
}

// Contains reports whether code is in the set.
func (c CodeSet) Contains(code int32) bool {
	for _, v := range c {
		if v == code {
			return true
		}
	}
	return false
}

// Int64 is an integer that also decodes from a JSON string or a float with no fraction, as loosely
// typed clients send it. It encodes as a JSON number.
type Int64 int64

// UnmarshalJSON accepts 12, "12", 12.0 and null (0).
func (n *Int64) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*n = 0
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		data = []byte(s)
	}
	v, err := strconv.ParseInt(string(data), 10, 64)
	if err == nil {
		*n = Int64(v)
		return nil
	}
	f, ferr := strconv.ParseFloat(string(data), 64)
	if ferr != nil || f < -9.2e18 || f > 9.2e18 || f != float64(int64(f)) {
		return fmt.Errorf("body: %q is not an integer", data)
	}
	*n = Int64(int64(f))
	return nil
}

// CheckClientRequestBody is the body of CHECK_CLIENT_CONFIG: a push consumer asks, before it
// starts, whether the broker can filter by its subscription.
type CheckClientRequestBody struct {
	ClientID         string            `json:"clientId"`
	Group            string            `json:"group"`
	Namespace        string            `json:"namespace,omitempty"`
	SubscriptionData *SubscriptionData `json:"subscriptionData"`
}
