package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// QueueData is one broker's queues of a topic in a route.
type QueueData struct {
	BrokerName     string `json:"brokerName"`
	ReadQueueNums  int    `json:"readQueueNums"`
	WriteQueueNums int    `json:"writeQueueNums"`
	Perm           int    `json:"perm"`
}

// BrokerData is one broker group (master id 0 and slaves) in a route or cluster info.
type BrokerData struct {
	Cluster     string            `json:"cluster"`
	BrokerName  string            `json:"brokerName"`
	BrokerAddrs map[string]string `json:"brokerAddrs"`
}

// TopicRoute is the body of GET_ROUTEINFO_BY_TOPIC.
type TopicRoute struct {
	QueueDatas  []QueueData  `json:"queueDatas"`
	BrokerDatas []BrokerData `json:"brokerDatas"`
	Raw         []byte       `json:"-"`
}

// Queues returns the QueueData of brokerName, if the route has it.
func (r *TopicRoute) Queues(brokerName string) (QueueData, bool) {
	for _, q := range r.QueueDatas {
		if q.BrokerName == brokerName {
			return q, true
		}
	}
	return QueueData{}, false
}

// MasterAddr returns brokerAddrs[0] of brokerName, if the route has it.
func (r *TopicRoute) MasterAddr(brokerName string) string {
	for _, b := range r.BrokerDatas {
		if b.BrokerName == brokerName {
			return b.BrokerAddrs["0"]
		}
	}
	return ""
}

// RouteInfo asks the nameserver at nsAddr for topic's route. A response other than SUCCESS is
// returned as resp with a nil route.
func RouteInfo(ctx context.Context, nsAddr, topic string) (*TopicRoute, *Response, error) {
	resp, err := Invoke(ctx, nsAddr, ReqGetRouteInfoByTopic, map[string]string{"topic": topic}, nil)
	if err != nil {
		return nil, nil, err
	}
	if resp.Code != CodeSuccess {
		return nil, resp, nil
	}
	var route TopicRoute
	if err := json.Unmarshal(LenientJSON(resp.Body), &route); err != nil {
		return nil, resp, fmt.Errorf("route of %s: decode %q: %w", topic, clip(resp.Body, 300), err)
	}
	route.Raw = resp.Body
	return &route, resp, nil
}

// ClusterInfo is the body of GET_BROKER_CLUSTER_INFO.
type ClusterInfo struct {
	BrokerAddrTable  map[string]BrokerData `json:"brokerAddrTable"`
	ClusterAddrTable map[string][]string   `json:"clusterAddrTable"`
}

// GetClusterInfo asks the nameserver for its cluster table.
func GetClusterInfo(ctx context.Context, nsAddr string) (*ClusterInfo, *Response, error) {
	resp, err := Invoke(ctx, nsAddr, ReqGetBrokerClusterInfo, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	if resp.Code != CodeSuccess {
		return nil, resp, nil
	}
	var info ClusterInfo
	if err := json.Unmarshal(LenientJSON(resp.Body), &info); err != nil {
		return nil, resp, fmt.Errorf("cluster info: decode %q: %w", clip(resp.Body, 300), err)
	}
	return &info, resp, nil
}

// QueryConsumerOffset asks a broker for the offset group has committed on topic's queue. found is
// false when the broker answers QUERY_NOT_FOUND.
func QueryConsumerOffset(ctx context.Context, brokerAddr, group, topic string, queueID int) (offset int64, found bool, err error) {
	resp, err := Invoke(ctx, brokerAddr, ReqQueryConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": strconv.Itoa(queueID),
	}, nil)
	if err != nil {
		return 0, false, err
	}
	switch resp.Code {
	case CodeSuccess:
		off, err := strconv.ParseInt(resp.ExtFields["offset"], 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("QUERY_CONSUMER_OFFSET %s/%s/%d: bad offset in %v", group, topic, queueID, resp)
		}
		return off, true, nil
	case CodeQueryNotFound:
		return 0, false, nil
	default:
		return 0, false, fmt.Errorf("QUERY_CONSUMER_OFFSET %s/%s/%d: %v", group, topic, queueID, resp)
	}
}

// MaxOffset asks a broker for the number of entries in topic's queue (the next queue offset).
func MaxOffset(ctx context.Context, brokerAddr, topic string, queueID int) (int64, error) {
	return offsetQuery(ctx, brokerAddr, ReqGetMaxOffset, "GET_MAX_OFFSET", topic, queueID)
}

// MinOffset asks a broker for the first queue offset still present in topic's queue.
func MinOffset(ctx context.Context, brokerAddr, topic string, queueID int) (int64, error) {
	return offsetQuery(ctx, brokerAddr, ReqGetMinOffset, "GET_MIN_OFFSET", topic, queueID)
}

func offsetQuery(ctx context.Context, brokerAddr string, code int, name, topic string, queueID int) (int64, error) {
	resp, err := Invoke(ctx, brokerAddr, code, map[string]string{"topic": topic, "queueId": strconv.Itoa(queueID)}, nil)
	if err != nil {
		return 0, err
	}
	if resp.Code != CodeSuccess {
		return 0, fmt.Errorf("%s %s/%d: %v", name, topic, queueID, resp)
	}
	off, err := strconv.ParseInt(resp.ExtFields["offset"], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %s/%d: bad offset in %v", name, topic, queueID, resp)
	}
	return off, nil
}

// ConsumerList asks a broker which client ids are online in group.
func ConsumerList(ctx context.Context, brokerAddr, group string) ([]string, *Response, error) {
	resp, err := Invoke(ctx, brokerAddr, ReqGetConsumerListByGroup, map[string]string{"consumerGroup": group}, nil)
	if err != nil {
		return nil, nil, err
	}
	if resp.Code != CodeSuccess {
		return nil, resp, nil
	}
	var body struct {
		ConsumerIDList []string `json:"consumerIdList"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, resp, fmt.Errorf("consumer list of %s: decode %q: %w", group, clip(resp.Body, 300), err)
	}
	return body.ConsumerIDList, resp, nil
}

// PullRequest is a raw PULL_MESSAGE without long polling: a caught-up queue answers at once.
type PullRequest struct {
	Group        string
	Topic        string
	QueueID      int
	Offset       int64
	MaxMsgs      int
	Subscription string // sent with the SUBSCRIPTION flag, expression type TAG; "" means "*"
}

// PullResult is the decoded answer to a PullRequest.
type PullResult struct {
	Code            int
	Remark          string
	NextBeginOffset int64
	MinOffset       int64
	MaxOffset       int64
	Messages        []Record
}

// Pull sends one PULL_MESSAGE with sysFlag SUBSCRIPTION (no commit, no suspend).
func Pull(ctx context.Context, brokerAddr string, p PullRequest) (*PullResult, error) {
	sub := p.Subscription
	if sub == "" {
		sub = "*"
	}
	resp, err := Invoke(ctx, brokerAddr, ReqPullMessage, map[string]string{
		"consumerGroup":        p.Group,
		"topic":                p.Topic,
		"queueId":              strconv.Itoa(p.QueueID),
		"queueOffset":          strconv.FormatInt(p.Offset, 10),
		"maxMsgNums":           strconv.Itoa(p.MaxMsgs),
		"sysFlag":              "4",
		"commitOffset":         "0",
		"suspendTimeoutMillis": "0",
		"subscription":         sub,
		"subVersion":           "0",
		"expressionType":       "TAG",
	}, nil)
	if err != nil {
		return nil, err
	}
	res := &PullResult{Code: resp.Code, Remark: resp.Remark}
	switch resp.Code {
	case CodeSuccess, CodePullNotFound, CodePullRetryImmediately, CodePullOffsetMoved:
	default:
		return res, nil
	}
	for _, f := range []struct {
		key string
		dst *int64
	}{{"nextBeginOffset", &res.NextBeginOffset}, {"minOffset", &res.MinOffset}, {"maxOffset", &res.MaxOffset}} {
		v, err := strconv.ParseInt(resp.ExtFields[f.key], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("PULL_MESSAGE %s/%d@%d: bad %s in %v", p.Topic, p.QueueID, p.Offset, f.key, resp)
		}
		*f.dst = v
	}
	if resp.Code == CodeSuccess {
		recs, err := DecodeRecords(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("PULL_MESSAGE %s/%d@%d: %w", p.Topic, p.QueueID, p.Offset, err)
		}
		res.Messages = recs
	}
	return res, nil
}
