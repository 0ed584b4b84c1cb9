package body

import (
	"encoding/json"
	"fmt"
	"time"
)

// Topic filter types.
const (
	SingleTag = "SINGLE_TAG"
	MultiTag  = "MULTI_TAG"
)

// DataVersion versions a broker's topic or group table; it is compared by timestamp and counter.
type DataVersion struct {
	Counter      int64 `json:"counter"`
	StateVersion int64 `json:"stateVersion,omitempty"`
	Timestamp    int64 `json:"timestamp"`
}

// NewDataVersion returns the version a fresh table starts with (counter 0, timestamp now).
func NewDataVersion(now time.Time) DataVersion {
	return DataVersion{Timestamp: now.UnixMilli()}
}

// Next returns the following version: counter + 1, timestamp now.
func (d DataVersion) Next(now time.Time) DataVersion {
	return DataVersion{Counter: d.Counter + 1, StateVersion: d.StateVersion, Timestamp: now.UnixMilli()}
}

// Equal compares timestamp, counter and state version, as Java's DataVersion.equals does.
func (d DataVersion) Equal(o DataVersion) bool {
	return d.Timestamp == o.Timestamp && d.Counter == o.Counter && d.StateVersion == o.StateVersion
}

// DecodeDataVersion parses a DataVersion body (QUERY_DATA_VERSION).
func DecodeDataVersion(data []byte) (*DataVersion, error) {
	var d DataVersion
	if err := Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("body: decode DataVersion: %w", err)
	}
	return &d, nil
}

// TopicConfig is one topic's configuration on a broker.
type TopicConfig struct {
	Attributes      map[string]string `json:"attributes,omitempty"`
	Order           bool              `json:"order"`
	Perm            int               `json:"perm"`
	ReadQueueNums   int               `json:"readQueueNums"`
	TopicFilterType string            `json:"topicFilterType"`
	TopicName       string            `json:"topicName"`
	TopicSysFlag    int               `json:"topicSysFlag"`
	WriteQueueNums  int               `json:"writeQueueNums"`
}

// NewTopicConfig returns Java's defaults: 16 read and write queues, perm RW, SINGLE_TAG.
func NewTopicConfig(name string) TopicConfig {
	return TopicConfig{
		TopicName:       name,
		ReadQueueNums:   16,
		WriteQueueNums:  16,
		Perm:            PermRead | PermWrite,
		TopicFilterType: SingleTag,
	}
}

// UnmarshalJSON fills fields the input omits with Java's defaults.
func (t *TopicConfig) UnmarshalJSON(data []byte) error {
	type plain TopicConfig
	p := plain(NewTopicConfig(""))
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*t = TopicConfig(p)
	return nil
}

// TopicConfigSerializeWrapper is topics.json and the topic part of RegisterBrokerBody.
type TopicConfigSerializeWrapper struct {
	DataVersion      DataVersion            `json:"dataVersion"`
	TopicConfigTable map[string]TopicConfig `json:"topicConfigTable"`
}

// MarshalJSON emits {} instead of null.
func (w TopicConfigSerializeWrapper) MarshalJSON() ([]byte, error) {
	type plain TopicConfigSerializeWrapper
	p := plain(w)
	if p.TopicConfigTable == nil {
		p.TopicConfigTable = map[string]TopicConfig{}
	}
	return Marshal(p)
}

// DecodeTopicConfigSerializeWrapper parses topics.json or a GET_ALL_TOPIC_CONFIG body.
func DecodeTopicConfigSerializeWrapper(data []byte) (*TopicConfigSerializeWrapper, error) {
	var w TopicConfigSerializeWrapper
	if err := Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("body: decode TopicConfigSerializeWrapper: %w", err)
	}
	return &w, nil
}

// SubscriptionGroupConfig is one consumer group's configuration on a broker.
type SubscriptionGroupConfig struct {
	Attributes                     map[string]string `json:"attributes,omitempty"`
	BrokerID                       int64             `json:"brokerId"`
	ConsumeBroadcastEnable         bool              `json:"consumeBroadcastEnable"`
	ConsumeEnable                  bool              `json:"consumeEnable"`
	ConsumeFromMinEnable           bool              `json:"consumeFromMinEnable"`
	ConsumeMessageOrderly          bool              `json:"consumeMessageOrderly"`
	ConsumeTimeoutMinute           int               `json:"consumeTimeoutMinute"`
	GroupName                      string            `json:"groupName"`
	GroupRetryPolicy               json.RawMessage   `json:"groupRetryPolicy,omitempty"`
	GroupSysFlag                   int               `json:"groupSysFlag"`
	NotifyConsumerIdsChangedEnable bool              `json:"notifyConsumerIdsChangedEnable"`
	RetryMaxTimes                  int               `json:"retryMaxTimes"`
	RetryQueueNums                 int               `json:"retryQueueNums"`
	WhichBrokerWhenConsumeSlowly   int64             `json:"whichBrokerWhenConsumeSlowly"`
}

// NewSubscriptionGroupConfig returns Java's defaults for a group.
func NewSubscriptionGroupConfig(group string) SubscriptionGroupConfig {
	return SubscriptionGroupConfig{
		GroupName:                      group,
		ConsumeEnable:                  true,
		ConsumeFromMinEnable:           true,
		ConsumeBroadcastEnable:         true,
		RetryQueueNums:                 1,
		RetryMaxTimes:                  16,
		BrokerID:                       MasterID,
		WhichBrokerWhenConsumeSlowly:   1,
		NotifyConsumerIdsChangedEnable: true,
		ConsumeTimeoutMinute:           15,
	}
}

// UnmarshalJSON fills fields the input omits with Java's defaults.
func (c *SubscriptionGroupConfig) UnmarshalJSON(data []byte) error {
	type plain SubscriptionGroupConfig
	p := plain(NewSubscriptionGroupConfig(""))
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*c = SubscriptionGroupConfig(p)
	return nil
}

// SubscriptionGroupWrapper is subscriptionGroup.json and the GET_ALL_SUBSCRIPTIONGROUP_CONFIG body.
type SubscriptionGroupWrapper struct {
	DataVersion            DataVersion                        `json:"dataVersion"`
	ForbiddenTable         map[string]map[string]int          `json:"forbiddenTable,omitempty"`
	SubscriptionGroupTable map[string]SubscriptionGroupConfig `json:"subscriptionGroupTable"`
}

// MarshalJSON emits {} instead of null.
func (w SubscriptionGroupWrapper) MarshalJSON() ([]byte, error) {
	type plain SubscriptionGroupWrapper
	p := plain(w)
	if p.SubscriptionGroupTable == nil {
		p.SubscriptionGroupTable = map[string]SubscriptionGroupConfig{}
	}
	return Marshal(p)
}

// DecodeSubscriptionGroupWrapper parses subscriptionGroup.json or its wire form.
func DecodeSubscriptionGroupWrapper(data []byte) (*SubscriptionGroupWrapper, error) {
	var w SubscriptionGroupWrapper
	if err := Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("body: decode SubscriptionGroupWrapper: %w", err)
	}
	return &w, nil
}

// ConsumerOffsetSerializeWrapper is consumerOffset.json and the GET_ALL_CONSUMER_OFFSET body:
// "topic@group" → queue id → next offset to consume.
type ConsumerOffsetSerializeWrapper struct {
	DataVersion *DataVersion               `json:"dataVersion,omitempty"`
	OffsetTable map[string]map[int32]int64 `json:"offsetTable"`
}

// MarshalJSON emits {} instead of null.
func (w ConsumerOffsetSerializeWrapper) MarshalJSON() ([]byte, error) {
	type plain ConsumerOffsetSerializeWrapper
	p := plain(w)
	if p.OffsetTable == nil {
		p.OffsetTable = map[string]map[int32]int64{}
	}
	return Marshal(p)
}

// DecodeConsumerOffsetSerializeWrapper parses consumerOffset.json, including Java's unquoted
// queue id keys ({"T@G":{0:12}}).
func DecodeConsumerOffsetSerializeWrapper(data []byte) (*ConsumerOffsetSerializeWrapper, error) {
	var w ConsumerOffsetSerializeWrapper
	if err := Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("body: decode ConsumerOffsetSerializeWrapper: %w", err)
	}
	return &w, nil
}
