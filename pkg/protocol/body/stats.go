package body

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Bodies keyed by MessageQueue have no standard JSON form. Java's fastjson writes the queue object
// itself as the key: {"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:{...}}}. Java tools
// and rocketmq-exporter read exactly that, and Go's ResetOffsetBody parser splits that text. Such
// bodies are therefore not json.Marshalers (encoding/json rejects the output); they have Encode
// methods and Decode functions instead.

// OffsetWrapper is one queue's entry in ConsumeStats.
type OffsetWrapper struct {
	BrokerOffset   int64 `json:"brokerOffset"`
	ConsumerOffset int64 `json:"consumerOffset"`
	LastTimestamp  int64 `json:"lastTimestamp"`
	PullOffset     int64 `json:"pullOffset"`
}

// ConsumeStats is the answer to GET_CONSUME_STATS.
type ConsumeStats struct {
	ConsumeTps  float64
	OffsetTable map[MessageQueue]OffsetWrapper
}

// Encode writes {"consumeTps":x,"offsetTable":{MQ:{...}}} with object keys.
func (c *ConsumeStats) Encode() ([]byte, error) {
	out := []byte(`{"consumeTps":`)
	out = appendFloat(out, c.ConsumeTps)
	out = append(out, `,"offsetTable":`...)
	out, err := appendQueueMap(out, c.OffsetTable)
	if err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// DecodeConsumeStats parses the fastjson form (and a standard-JSON variant with string keys).
func DecodeConsumeStats(data []byte) (*ConsumeStats, error) {
	var raw struct {
		ConsumeTps  float64                  `json:"consumeTps"`
		OffsetTable map[string]OffsetWrapper `json:"offsetTable"`
	}
	if err := Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("body: decode ConsumeStats: %w", err)
	}
	table, err := parseQueueKeys(raw.OffsetTable)
	if err != nil {
		return nil, fmt.Errorf("body: decode ConsumeStats: %w", err)
	}
	return &ConsumeStats{ConsumeTps: raw.ConsumeTps, OffsetTable: table}, nil
}

// TopicOffset is one queue's entry in TopicStatsTable.
type TopicOffset struct {
	LastUpdateTimestamp int64 `json:"lastUpdateTimestamp"`
	MaxOffset           int64 `json:"maxOffset"`
	MinOffset           int64 `json:"minOffset"`
}

// TopicStatsTable is the answer to GET_TOPIC_STATS_INFO.
type TopicStatsTable struct {
	OffsetTable map[MessageQueue]TopicOffset
	TopicPutTps float64
}

// Encode writes {"offsetTable":{MQ:{...}},"topicPutTps":x} with object keys.
func (t *TopicStatsTable) Encode() ([]byte, error) {
	out := []byte(`{"offsetTable":`)
	out, err := appendQueueMap(out, t.OffsetTable)
	if err != nil {
		return nil, err
	}
	out = append(out, `,"topicPutTps":`...)
	out = appendFloat(out, t.TopicPutTps)
	return append(out, '}'), nil
}

// DecodeTopicStatsTable parses the fastjson form.
func DecodeTopicStatsTable(data []byte) (*TopicStatsTable, error) {
	var raw struct {
		OffsetTable map[string]TopicOffset `json:"offsetTable"`
		TopicPutTps float64                `json:"topicPutTps"`
	}
	if err := Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("body: decode TopicStatsTable: %w", err)
	}
	table, err := parseQueueKeys(raw.OffsetTable)
	if err != nil {
		return nil, fmt.Errorf("body: decode TopicStatsTable: %w", err)
	}
	return &TopicStatsTable{OffsetTable: table, TopicPutTps: raw.TopicPutTps}, nil
}

// ResetOffsetBody is the body of RESET_CONSUMER_CLIENT_OFFSET: queue → offset to restart from.
type ResetOffsetBody struct {
	OffsetTable map[MessageQueue]int64
}

// Encode writes {"offsetTable":{MQ:offset,...}}: compact, keys in the order brokerName, queueId,
// topic, which Go's string-splitting parser needs.
func (r *ResetOffsetBody) Encode() ([]byte, error) {
	out := []byte(`{"offsetTable":`)
	out, err := appendQueueMap(out, r.OffsetTable)
	if err != nil {
		return nil, err
	}
	return append(out, '}'), nil
}

// DecodeResetOffsetBody parses the fastjson form.
func DecodeResetOffsetBody(data []byte) (*ResetOffsetBody, error) {
	var raw struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	if err := Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("body: decode ResetOffsetBody: %w", err)
	}
	table, err := parseQueueKeys(raw.OffsetTable)
	if err != nil {
		return nil, fmt.Errorf("body: decode ResetOffsetBody: %w", err)
	}
	return &ResetOffsetBody{OffsetTable: table}, nil
}

// ParseMessageQueueKey decodes a map key that held a MessageQueue object (see Unmarshal).
func ParseMessageQueueKey(key string) (MessageQueue, error) {
	var mq MessageQueue
	if err := json.Unmarshal([]byte(key), &mq); err != nil {
		return MessageQueue{}, fmt.Errorf("message queue key %q: %w", key, err)
	}
	return mq, nil
}

func parseQueueKeys[V any](in map[string]V) (map[MessageQueue]V, error) {
	out := make(map[MessageQueue]V, len(in))
	for k, v := range in {
		mq, err := ParseMessageQueueKey(k)
		if err != nil {
			return nil, err
		}
		out[mq] = v
	}
	return out, nil
}

// appendQueueMap writes {MQ:value,...} with queues sorted by topic, broker name and queue id.
func appendQueueMap[V any](out []byte, m map[MessageQueue]V) ([]byte, error) {
	keys := make([]MessageQueue, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, MessageQueue.Compare)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		kb, err := Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := Marshal(m[k])
		if err != nil {
			return nil, err
		}
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, vb...)
	}
	return append(out, '}'), nil
}

// appendFloat writes f as fastjson does for doubles (1.5, 0.0); NaN and infinities become 0.0.
func appendFloat(out []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	start := len(out)
	out = strconv.AppendFloat(out, f, 'f', -1, 64)
	for _, c := range out[start:] {
		if c == '.' {
			return out
		}
	}
	return append(out, '.', '0')
}

// Connection is one client connection of a consumer group.
type Connection struct {
	ClientAddr string `json:"clientAddr"`
	ClientID   string `json:"clientId"`
	Language   string `json:"language"`
	Version    int    `json:"version"`
}

// ConsumerConnection is the answer to GET_CONSUMER_CONNECTION_LIST.
type ConsumerConnection struct {
	ConnectionSet     []Connection                `json:"connectionSet"`
	ConsumeFromWhere  string                      `json:"consumeFromWhere,omitempty"`
	ConsumeType       string                      `json:"consumeType,omitempty"`
	MessageModel      string                      `json:"messageModel,omitempty"`
	SubscriptionTable map[string]SubscriptionData `json:"subscriptionTable"`
}

// MarshalJSON emits empty collections instead of null.
func (c ConsumerConnection) MarshalJSON() ([]byte, error) {
	type plain ConsumerConnection
	p := plain(c)
	if p.ConnectionSet == nil {
		p.ConnectionSet = []Connection{}
	}
	if p.SubscriptionTable == nil {
		p.SubscriptionTable = map[string]SubscriptionData{}
	}
	return Marshal(p)
}
