package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// ConsumerRunningInfo is what a consumer answers GET_CONSUMER_RUNNING_INFO with (Java
// ConsumerRunningInfo): its properties, subscriptions, the queues it holds with their process
// queues, per topic its pull and consume rates, and a thread dump when asked.
type ConsumerRunningInfo struct {
	Properties      map[string]string
	SubscriptionSet []body.SubscriptionData
	MQTable         map[body.MessageQueue]ProcessQueueInfo
	StatusTable     map[string]ConsumeStatus
	Jstack          string
}

// ProcessQueueInfo is one held queue's state (Java ProcessQueueInfo).
type ProcessQueueInfo struct {
	CommitOffset            int64 `json:"commitOffset"`
	CachedMsgMinOffset      int64 `json:"cachedMsgMinOffset"`
	CachedMsgMaxOffset      int64 `json:"cachedMsgMaxOffset"`
	CachedMsgCount          int64 `json:"cachedMsgCount"`
	CachedMsgSizeInMiB      int64 `json:"cachedMsgSizeInMiB"`
	TransactionMsgMinOffset int64 `json:"transactionMsgMinOffset"`
	TransactionMsgMaxOffset int64 `json:"transactionMsgMaxOffset"`
	TransactionMsgCount     int64 `json:"transactionMsgCount"`
	Locked                  bool  `json:"locked"`
	TryUnlockTimes          int64 `json:"tryUnlockTimes"`
	LastLockTimestamp       int64 `json:"lastLockTimestamp"`
	Droped                  bool  `json:"droped"`
	LastPullTimestamp       int64 `json:"lastPullTimestamp"`
	LastConsumeTimestamp    int64 `json:"lastConsumeTimestamp"`
}

// ConsumeStatus is one topic's rates of a consumer (Java ConsumeStatus).
type ConsumeStatus struct {
	PullRT            float64 `json:"pullRT"`
	PullTPS           float64 `json:"pullTPS"`
	ConsumeRT         float64 `json:"consumeRT"`
	ConsumeOKTPS      float64 `json:"consumeOKTPS"`
	ConsumeFailedTPS  float64 `json:"consumeFailedTPS"`
	ConsumeFailedMsgs int64   `json:"consumeFailedMsgs"`
}

// runningInfoJSON is the wire form: the queue table keyed by MessageQueue objects (fastjson's,
// and the Go client's), property values of any JSON type.
type runningInfoJSON struct {
	Properties      map[string]json.RawMessage  `json:"properties"`
	SubscriptionSet []body.SubscriptionData     `json:"subscriptionSet"`
	MQTable         map[string]ProcessQueueInfo `json:"mqTable"`
	StatusTable     map[string]ConsumeStatus    `json:"statusTable"`
	Jstack          string                      `json:"jstack"`
}

// DecodeConsumerRunningInfo parses a GET_CONSUMER_RUNNING_INFO body.
func DecodeConsumerRunningInfo(data []byte) (*ConsumerRunningInfo, error) {
	var w runningInfoJSON
	if err := body.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("admin: decode consumer running info: %w", err)
	}
	info := &ConsumerRunningInfo{Properties: map[string]string{}, SubscriptionSet: w.SubscriptionSet,
		MQTable: map[body.MessageQueue]ProcessQueueInfo{}, StatusTable: w.StatusTable, Jstack: w.Jstack}
	for k, v := range w.Properties {
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v) // a number or boolean, as its JSON text
		}
		info.Properties[k] = s
	}
	for k, v := range w.MQTable {
		mq, err := body.ParseMessageQueueKey(k)
		if err != nil {
			return nil, fmt.Errorf("admin: consumer running info: %w", err)
		}
		info.MQTable[mq] = v
	}
	if info.StatusTable == nil {
		info.StatusTable = map[string]ConsumeStatus{}
	}
	slices.SortFunc(info.SubscriptionSet, func(a, b body.SubscriptionData) int {
		return strings.Compare(a.Topic+"@"+a.SubString, b.Topic+"@"+b.SubString)
	})
	return info, nil
}

// ConsumerRunningInfo asks a consumer, through a broker that knows it, for its running info
// (GET_CONSUMER_RUNNING_INFO, which the broker relays to the client's connection). addr "" asks
// the brokers of the group's retry route in turn.
func (c *Client) ConsumerRunningInfo(ctx context.Context, addr, group, clientID string, jstack bool) (*ConsumerRunningInfo, error) {
	addrs := []string{addr}
	if addr == "" {
		var err error
		if addrs, err = c.groupAddrs(ctx, group); err != nil {
			return nil, err
		}
	}
	var last error = errNoBroker
	for _, a := range addrs {
		resp, err := c.invoke(ctx, a, protocol.NewHeaderRequest(protocol.GetConsumerRunningInfo,
			&protocol.GetConsumerRunningInfoRequestHeader{ConsumerGroup: group, ClientID: clientID,
				JstackEnable: protocol.Some(jstack)}, nil))
		if err != nil {
			last = err
			continue
		}
		return DecodeConsumerRunningInfo(resp.Body)
	}
	return nil, last
}
