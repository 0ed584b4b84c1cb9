package admin

import (
	"context"
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// BrokerRuntimeInfo returns a broker's runtime statistics (GET_BROKER_RUNTIME_INFO).
func (c *Client) BrokerRuntimeInfo(ctx context.Context, addr string) (map[string]string, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.GetBrokerRuntimeInfo, nil, nil))
	if err != nil {
		return nil, err
	}
	var kv body.KVTable
	if err := body.Unmarshal(resp.Body, &kv); err != nil {
		return nil, fmt.Errorf("admin: %s: decode runtime info: %w", addr, err)
	}
	if kv.Table == nil {
		kv.Table = map[string]string{}
	}
	return kv.Table, nil
}

// CreateTopic creates or updates a topic on one broker (UPDATE_AND_CREATE_TOPIC).
func (c *Client) CreateTopic(ctx context.Context, addr string, tc body.TopicConfig) error {
	filter := tc.TopicFilterType
	if filter == "" {
		filter = body.SingleTag
	}
	h := &protocol.CreateTopicRequestHeader{
		Topic:           tc.TopicName,
		DefaultTopic:    systopic.AutoCreate, // as Java's tools send it
		ReadQueueNums:   int32(tc.ReadQueueNums),
		WriteQueueNums:  int32(tc.WriteQueueNums),
		Perm:            int32(tc.Perm),
		TopicFilterType: protocol.Some(filter),
		TopicSysFlag:    protocol.Some(int32(tc.TopicSysFlag)),
		Order:           protocol.Some(tc.Order),
	}
	_, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.UpdateAndCreateTopic, h, nil))
	return err
}

// DeleteTopicInBroker removes a topic, its queues and offsets from one broker
// (DELETE_TOPIC_IN_BROKER).
func (c *Client) DeleteTopicInBroker(ctx context.Context, addr, topic string) error {
	_, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.DeleteTopicInBroker,
		&protocol.DeleteTopicRequestHeader{Topic: topic}, nil))
	return err
}

// TopicStats returns one broker's queues of a topic (GET_TOPIC_STATS_INFO).
func (c *Client) TopicStats(ctx context.Context, addr, topic string) (*body.TopicStatsTable, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.GetTopicStatsInfo,
		&protocol.GetTopicStatsInfoRequestHeader{Topic: topic}, nil))
	if err != nil {
		return nil, err
	}
	return body.DecodeTopicStatsTable(resp.Body)
}

// ConsumeStats returns a group's progress on one broker (GET_CONSUME_STATS); an empty topic means
// every topic the group has offsets for.
func (c *Client) ConsumeStats(ctx context.Context, addr, group, topic string) (*body.ConsumeStats, error) {
	h := &protocol.GetConsumeStatsRequestHeader{ConsumerGroup: group}
	if topic != "" {
		h.Topic = protocol.Some(topic)
	}
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.GetConsumeStats, h, nil))
	if err != nil {
		return nil, err
	}
	return body.DecodeConsumeStats(resp.Body)
}

// ConsumerConnection returns who of a group is connected to one broker
// (GET_CONSUMER_CONNECTION_LIST); nobody online is a ServerError with CONSUMER_NOT_ONLINE.
func (c *Client) ConsumerConnection(ctx context.Context, addr, group string) (*body.ConsumerConnection, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.GetConsumerConnectionList,
		&protocol.GetConsumerConnectionListRequestHeader{ConsumerGroup: group}, nil))
	if err != nil {
		return nil, err
	}
	var cc body.ConsumerConnection
	if err := body.Unmarshal(resp.Body, &cc); err != nil {
		return nil, fmt.Errorf("admin: %s: decode consumer connection: %w", addr, err)
	}
	return &cc, nil
}

// TopicConsumeByWho lists the groups consuming a topic on one broker (QUERY_TOPIC_CONSUME_BY_WHO).
func (c *Client) TopicConsumeByWho(ctx context.Context, addr, topic string) ([]string, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.QueryTopicConsumeByWho,
		&protocol.QueryTopicConsumeByWhoRequestHeader{Topic: topic}, nil))
	if err != nil {
		return nil, err
	}
	var gl body.GroupList
	if err := body.Unmarshal(resp.Body, &gl); err != nil {
		return nil, fmt.Errorf("admin: %s: decode group list: %w", addr, err)
	}
	return gl.GroupList, nil
}

// Query is a QUERY_MESSAGE: messages of Topic indexed under Key, stored in [Begin, End] (ms).
type Query struct {
	Topic  string
	Key    string
	MaxNum int
	Begin  int64
	End    int64
	// Unique asks for the UNIQ_KEY index (_UNIQUE_KEY_QUERY=true); the broker then uses its own
	// maximum.
	Unique bool
}

// QueryMessage runs q on one broker (QUERY_MESSAGE). The broker's "not found" (QUERY_NOT_FOUND)
// is an empty answer, not an error. Index hash collisions are left in: see FilterByKey.
func (c *Client) QueryMessage(ctx context.Context, addr string, q Query) ([]*message.MessageExt, error) {
	h := &protocol.QueryMessageRequestHeader{Topic: q.Topic, Key: q.Key, MaxNum: int32(q.MaxNum),
		BeginTimestamp: q.Begin, EndTimestamp: q.End}
	if q.Unique {
		h.UniqueKeyQuery = protocol.Some(true)
	}
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.QueryMessage, h, nil))
	if IsCode(err, protocol.QueryNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	msgs, err := message.DecodeAll(resp.Body, false)
	if err != nil {
		return nil, fmt.Errorf("admin: %s: decode query result: %w", addr, err)
	}
	return msgs, nil
}

// ViewMessage returns the record at a CommitLog offset of one broker (VIEW_MESSAGE_BY_ID).
func (c *Client) ViewMessage(ctx context.Context, addr string, offset int64) (*message.MessageExt, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.ViewMessageByID,
		&protocol.ViewMessageRequestHeader{Offset: offset}, nil))
	if err != nil {
		return nil, err
	}
	m, err := message.Decode(resp.Body, false)
	if err != nil {
		return nil, fmt.Errorf("admin: %s: decode message at offset %d: %w", addr, offset, err)
	}
	return m, nil
}
