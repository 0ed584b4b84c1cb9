package body

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// Permission bits of topics and queues (Java PermName).
const (
	PermPriority = 8
	PermRead     = 4
	PermWrite    = 2
	PermInherit  = 1
)

// MasterID is the broker id of a master; slaves have ids > 0.
const MasterID int64 = 0

// TopicRouteData is the answer to GET_ROUTEINFO_BY_TOPIC. Its JSON always holds queueDatas (maybe
// empty), brokerDatas and filterServerTable, because the Go client parses the text by hand.
type TopicRouteData struct {
	BrokerDatas       []BrokerData        `json:"brokerDatas"`
	FilterServerTable map[string][]string `json:"filterServerTable"`
	OrderTopicConf    string              `json:"orderTopicConf,omitempty"`
	QueueDatas        []QueueData         `json:"queueDatas"`
}

// MarshalJSON emits compact JSON with empty collections instead of null.
func (r TopicRouteData) MarshalJSON() ([]byte, error) {
	type plain TopicRouteData
	p := plain(r)
	if p.BrokerDatas == nil {
		p.BrokerDatas = []BrokerData{}
	}
	if p.QueueDatas == nil {
		p.QueueDatas = []QueueData{}
	}
	if p.FilterServerTable == nil {
		p.FilterServerTable = map[string][]string{}
	}
	return Marshal(p)
}

// Encode returns the route's wire form.
func (r *TopicRouteData) Encode() ([]byte, error) { return Marshal(r) }

// DecodeTopicRouteData parses a route as written by Java (either key style) or by us.
func DecodeTopicRouteData(data []byte) (*TopicRouteData, error) {
	var r TopicRouteData
	if err := Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("body: decode TopicRouteData: %w", err)
	}
	return &r, nil
}

// QueueData is one broker's queues of a topic.
type QueueData struct {
	BrokerName     string `json:"brokerName"`
	Perm           int    `json:"perm"`
	ReadQueueNums  int    `json:"readQueueNums"`
	TopicSysFlag   int    `json:"topicSysFlag"`
	WriteQueueNums int    `json:"writeQueueNums"`
}

// UnmarshalJSON also accepts the pre-4.9 spelling topicSynFlag.
func (q *QueueData) UnmarshalJSON(data []byte) error {
	type plain QueueData
	var aux struct {
		plain
		TopicSynFlag *int `json:"topicSynFlag"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*q = QueueData(aux.plain)
	if aux.TopicSynFlag != nil && q.TopicSysFlag == 0 {
		q.TopicSysFlag = *aux.TopicSynFlag
	}
	return nil
}

// BrokerData names the addresses of one broker group: id 0 is the master.
type BrokerData struct {
	BrokerAddrs        BrokerAddrs `json:"brokerAddrs"`
	BrokerName         string      `json:"brokerName"`
	Cluster            string      `json:"cluster"`
	EnableActingMaster bool        `json:"enableActingMaster,omitempty"`
	ZoneName           string      `json:"zoneName,omitempty"`
}

// Clone returns a copy that shares nothing with b.
func (b BrokerData) Clone() BrokerData {
	c := b
	c.BrokerAddrs = make(BrokerAddrs, len(b.BrokerAddrs))
	for id, addr := range b.BrokerAddrs {
		c.BrokerAddrs[id] = addr
	}
	return c
}

// BrokerAddrs maps broker id to "ip:port". It encodes as {"0":"ip:port","1":"ip:port"}: compact,
// quoted ids in numeric order, {} when empty. It decodes quoted and unquoted ids.
type BrokerAddrs map[int64]string

// MarshalJSON writes the ids in numeric order, never null.
func (a BrokerAddrs) MarshalJSON() ([]byte, error) {
	ids := make([]int64, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := []byte{'{'}
	for i, id := range ids {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = strconv.AppendInt(out, id, 10)
		out = append(out, '"', ':')
		addr, err := Marshal(a[id])
		if err != nil {
			return nil, err
		}
		out = append(out, addr...)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON reads {"0":"a"} and, through Normalize, {0:"a"}.
func (a *BrokerAddrs) UnmarshalJSON(data []byte) error {
	norm, err := Normalize(data)
	if err != nil {
		return err
	}
	var m map[string]string
	if err := json.Unmarshal(norm, &m); err != nil {
		return err
	}
	out := make(BrokerAddrs, len(m))
	for k, v := range m {
		id, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			return fmt.Errorf("body: broker id %q: %w", k, err)
		}
		out[id] = v
	}
	*a = out
	return nil
}

// ClusterInfo is the answer to GET_BROKER_CLUSTER_INFO.
type ClusterInfo struct {
	BrokerAddrTable  map[string]BrokerData `json:"brokerAddrTable"`
	ClusterAddrTable map[string][]string   `json:"clusterAddrTable"`
}

// MarshalJSON emits empty tables instead of null.
func (c ClusterInfo) MarshalJSON() ([]byte, error) {
	type plain ClusterInfo
	p := plain(c)
	if p.BrokerAddrTable == nil {
		p.BrokerAddrTable = map[string]BrokerData{}
	}
	if p.ClusterAddrTable == nil {
		p.ClusterAddrTable = map[string][]string{}
	}
	return Marshal(p)
}

// DecodeClusterInfo parses ClusterInfo in either key style.
func DecodeClusterInfo(data []byte) (*ClusterInfo, error) {
	var c ClusterInfo
	if err := Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("body: decode ClusterInfo: %w", err)
	}
	return &c, nil
}

// TopicList is the answer to GET_ALL_TOPIC_LIST_FROM_NAMESERVER and similar listings.
type TopicList struct {
	BrokerAddr string   `json:"brokerAddr,omitempty"`
	TopicList  []string `json:"topicList"`
}

// MarshalJSON emits [] instead of null.
func (t TopicList) MarshalJSON() ([]byte, error) {
	type plain TopicList
	p := plain(t)
	if p.TopicList == nil {
		p.TopicList = []string{}
	}
	return Marshal(p)
}

// KVTable is a flat string map: {"table":{...}}.
type KVTable struct {
	Table map[string]string `json:"table"`
}

// MarshalJSON emits {} instead of null.
func (t KVTable) MarshalJSON() ([]byte, error) {
	type plain KVTable
	p := plain(t)
	if p.Table == nil {
		p.Table = map[string]string{}
	}
	return Marshal(p)
}
