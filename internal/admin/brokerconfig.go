package admin

import (
	"context"
	"fmt"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// UpdateBrokerConfig asks a broker to apply key=value pairs at run time (UPDATE_BROKER_CONFIG).
func (c *Client) UpdateBrokerConfig(ctx context.Context, addr string, props []body.Property) error {
	_, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.UpdateBrokerConfig, nil, []byte(body.EncodeProperties(props))))
	return err
}

// AllTopicConfig returns every topic a broker has, with the table's version (GET_ALL_TOPIC_CONFIG).
func (c *Client) AllTopicConfig(ctx context.Context, addr string) (*body.TopicConfigSerializeWrapper, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.GetAllTopicConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	w, err := body.DecodeTopicConfigSerializeWrapper(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("admin: %s: %w", addr, err)
	}
	if w.TopicConfigTable == nil {
		w.TopicConfigTable = map[string]body.TopicConfig{}
	}
	return w, nil
}

// AllSubscriptionGroup returns every consumer group a broker has (GET_ALL_SUBSCRIPTIONGROUP_CONFIG).
func (c *Client) AllSubscriptionGroup(ctx context.Context, addr string) (*body.SubscriptionGroupWrapper, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.GetAllSubscriptionGroupConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	w, err := body.DecodeSubscriptionGroupWrapper(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("admin: %s: %w", addr, err)
	}
	if w.SubscriptionGroupTable == nil {
		w.SubscriptionGroupTable = map[string]body.SubscriptionGroupConfig{}
	}
	return w, nil
}

// SystemTopics returns the topics a broker keeps for itself (GET_SYSTEM_TOPIC_LIST_FROM_BROKER).
func (c *Client) SystemTopics(ctx context.Context, addr string) ([]string, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.GetSystemTopicListFromBroker, nil, nil))
	if err != nil {
		return nil, err
	}
	var tl body.TopicList
	if err := body.Unmarshal(resp.Body, &tl); err != nil {
		return nil, fmt.Errorf("admin: %s: decode topic list: %w", addr, err)
	}
	return tl.TopicList, nil
}

// UserTopicConfig is AllTopicConfig without the system topics (the broker's list and
// RocketMQ's), without retry and dead-letter topics unless specialTopic, and without topics of
// an invalid perm (Java DefaultMQAdminExt.getUserTopicConfig).
func (c *Client) UserTopicConfig(ctx context.Context, addr string, specialTopic bool) (*body.TopicConfigSerializeWrapper, error) {
	w, err := c.AllTopicConfig(ctx, addr)
	if err != nil {
		return nil, err
	}
	sys, err := c.SystemTopics(ctx, addr)
	if err != nil {
		return nil, err
	}
	isSys := map[string]bool{}
	for _, t := range sys {
		isSys[t] = true
	}
	for name, tc := range w.TopicConfigTable {
		special := systopic.IsRetry(name) || systopic.IsDLQ(name)
		if isSys[name] || systopic.IsSystem(name) || (special && !specialTopic) || tc.Perm < 0 || tc.Perm > 7 {
			delete(w.TopicConfigTable, name)
		}
	}
	return w, nil
}

// UserSubscriptionGroup is AllSubscriptionGroup without the system and predefined groups (Java
// getUserSubscriptionGroup).
func (c *Client) UserSubscriptionGroup(ctx context.Context, addr string) (*body.SubscriptionGroupWrapper, error) {
	w, err := c.AllSubscriptionGroup(ctx, addr)
	if err != nil {
		return nil, err
	}
	for name := range w.SubscriptionGroupTable {
		if systopic.IsSystemGroup(name) || systopic.IsPredefinedGroup(name) {
			delete(w.SubscriptionGroupTable, name)
		}
	}
	return w, nil
}

// TopicClusters returns the clusters of the broker groups a topic's route names, sorted (Java
// getTopicClusterList).
func (c *Client) TopicClusters(ctx context.Context, topic string) ([]string, error) {
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return nil, err
	}
	return routeClusters(info, route), nil
}

// TopicWithPerm sets a topic's permission on one broker (UPDATE_AND_CREATE_TOPIC) and returns the
// configuration written. The broker's own configuration of the topic is kept but for the perm
// (Java's tool rebuilds it from the route, which loses the order flag and filter type); when the
// broker does not list it, the route's queue counts and sys flag are used, as in Java.
func (c *Client) TopicWithPerm(ctx context.Context, addr, topic string, qd body.QueueData, perm int) (body.TopicConfig, error) {
	tc := body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.TopicSysFlag = qd.ReadQueueNums, qd.WriteQueueNums, qd.TopicSysFlag
	if all, err := c.AllTopicConfig(ctx, addr); err == nil {
		if own, ok := all.TopicConfigTable[topic]; ok {
			tc = own
			tc.TopicName = topic
		}
	}
	tc.Perm = perm
	return tc, c.CreateTopic(ctx, addr, tc)
}
