package body

import (
	"maps"
	"slices"
	"strconv"
)

// ProducerConnection is the answer to GET_PRODUCER_CONNECTION_LIST: a producer group's
// connections.
type ProducerConnection struct {
	ConnectionSet []Connection `json:"connectionSet"`
}

// MarshalJSON emits [] instead of null.
func (p ProducerConnection) MarshalJSON() ([]byte, error) {
	type plain ProducerConnection
	q := plain(p)
	if q.ConnectionSet == nil {
		q.ConnectionSet = []Connection{}
	}
	return Marshal(q)
}

// ProducerInfo is one producer connection of GET_ALL_PRODUCER_INFO. RemoteIP is Java's
// SocketAddress.toString(), "/ip:port".
type ProducerInfo struct {
	ClientID            string `json:"clientId"`
	RemoteIP            string `json:"remoteIP"`
	Language            string `json:"language"`
	Version             int    `json:"version"`
	LastUpdateTimestamp int64  `json:"lastUpdateTimestamp"`
}

// ProducerTableInfo is the answer to GET_ALL_PRODUCER_INFO: producer group → connections.
type ProducerTableInfo struct {
	Data map[string][]ProducerInfo `json:"data"`
}

// BrokerStatsItem is one window of a broker statistic: the count in it, per second and per call.
type BrokerStatsItem struct {
	Avgpt float64 `json:"avgpt"`
	Sum   int64   `json:"sum"`
	Tps   float64 `json:"tps"`
}

// MarshalJSON writes the doubles as fastjson does (0.0, never NaN).
func (b BrokerStatsItem) MarshalJSON() ([]byte, error) {
	out := append([]byte(nil), `{"avgpt":`...)
	out = appendFloat(out, b.Avgpt)
	out = append(out, `,"sum":`...)
	out = strconv.AppendInt(out, b.Sum, 10)
	out = append(out, `,"tps":`...)
	out = appendFloat(out, b.Tps)
	return append(out, '}'), nil
}

// BrokerStatsData is the answer to VIEW_BROKER_STATS_DATA.
type BrokerStatsData struct {
	StatsDay    BrokerStatsItem `json:"statsDay"`
	StatsHour   BrokerStatsItem `json:"statsHour"`
	StatsMinute BrokerStatsItem `json:"statsMinute"`
}

// ConsumeStatsList is the answer to GET_BROKER_CONSUME_STATS: every group's ConsumeStats per
// topic it consumes, and the lag summed over them.
type ConsumeStatsList struct {
	BrokerAddr        string
	ConsumeStatsList  []map[string][]ConsumeStats
	TotalDiff         int64
	TotalInflightDiff int64
}

// Encode writes the list with every ConsumeStats' queues as object keys, as fastjson needs them.
func (l *ConsumeStatsList) Encode() ([]byte, error) {
	out := []byte(`{"brokerAddr":`)
	addr, err := Marshal(l.BrokerAddr)
	if err != nil {
		return nil, err
	}
	out = append(append(out, addr...), `,"consumeStatsList":[`...)
	for i, m := range l.ConsumeStatsList {
		if i > 0 {
			out = append(out, ',')
		}
		if out, err = appendGroupStats(out, m); err != nil {
			return nil, err
		}
	}
	out = append(out, `],"totalDiff":`...)
	out = strconv.AppendInt(out, l.TotalDiff, 10)
	out = append(out, `,"totalInflightDiff":`...)
	out = strconv.AppendInt(out, l.TotalInflightDiff, 10)
	return append(out, '}'), nil
}

// appendGroupStats writes {"group":[ConsumeStats,...],...}, groups in order.
func appendGroupStats(out []byte, m map[string][]ConsumeStats) ([]byte, error) {
	out = append(out, '{')
	for i, g := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			out = append(out, ',')
		}
		name, err := Marshal(g)
		if err != nil {
			return nil, err
		}
		out = append(append(out, name...), ":["...)
		for j := range m[g] {
			if j > 0 {
				out = append(out, ',')
			}
			cs, err := m[g][j].Encode()
			if err != nil {
				return nil, err
			}
			out = append(out, cs...)
		}
		out = append(out, ']')
	}
	return append(out, '}'), nil
}

// ConsumeQueueData is one ConsumeQueue entry of QUERY_CONSUME_QUEUE.
type ConsumeQueueData struct {
	PhysicOffset   int64  `json:"physicOffset"`
	PhysicSize     int32  `json:"physicSize"`
	TagsCode       int64  `json:"tagsCode"`
	ExtendDataJSON string `json:"extendDataJson,omitempty"`
	BitMap         string `json:"bitMap,omitempty"`
	Eval           bool   `json:"eval"`
	Msg            string `json:"msg,omitempty"`
}

// QueryConsumeQueueResponseBody is the answer to QUERY_CONSUME_QUEUE: entries of one queue from
// an index, and the group's subscription to the topic when asked with a group.
type QueryConsumeQueueResponseBody struct {
	SubscriptionData *SubscriptionData  `json:"subscriptionData,omitempty"`
	FilterData       string             `json:"filterData,omitempty"`
	QueueData        []ConsumeQueueData `json:"queueData"`
	MaxQueueIndex    int64              `json:"maxQueueIndex"`
	MinQueueIndex    int64              `json:"minQueueIndex"`
}

// QueryCorrectionOffsetBody is the answer to QUERY_CORRECTION_OFFSET: queue id → offset.
type QueryCorrectionOffsetBody struct {
	CorrectionOffsets map[int32]int64 `json:"correctionOffsets"`
}

// CreateTopicListRequestBody is the body of UPDATE_AND_CREATE_TOPIC_LIST.
type CreateTopicListRequestBody struct {
	TopicConfigList []TopicConfig `json:"topicConfigList"`
}

// SubscriptionGroupList is the body of UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST.
type SubscriptionGroupList struct {
	GroupConfigList []SubscriptionGroupConfig `json:"groupConfigList"`
}
