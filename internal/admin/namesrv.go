package admin

import (
	"context"
	"fmt"
	"sort"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// NamespaceOrderTopicConfig is the KV namespace holding order topics' "brokerName:queues;..."
// (Java NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG).
const NamespaceOrderTopicConfig = "ORDER_TOPIC_CONFIG"

// ClusterInfo asks the name server for every cluster and broker group (GET_BROKER_CLUSTER_INFO).
func (c *Client) ClusterInfo(ctx context.Context) (*body.ClusterInfo, error) {
	resp, err := c.invokeNamesrv(ctx, func() *protocol.Command {
		return protocol.NewRequest(protocol.GetBrokerClusterInfo, nil, nil)
	})
	if err != nil {
		return nil, err
	}
	return body.DecodeClusterInfo(resp.Body)
}

// TopicList returns every topic the name server knows, sorted (GET_ALL_TOPIC_LIST_FROM_NAMESERVER).
func (c *Client) TopicList(ctx context.Context) ([]string, error) {
	resp, err := c.invokeNamesrv(ctx, func() *protocol.Command {
		return protocol.NewRequest(protocol.GetAllTopicListFromNameserver, nil, nil)
	})
	if err != nil {
		return nil, err
	}
	var tl body.TopicList
	if err := body.Unmarshal(resp.Body, &tl); err != nil {
		return nil, fmt.Errorf("admin: decode topic list: %w", err)
	}
	sort.Strings(tl.TopicList)
	return tl.TopicList, nil
}

// TopicRoute returns a topic's route (GET_ROUTEINFO_BY_TOPIC); an unknown topic is a ServerError
// with TOPIC_NOT_EXIST.
func (c *Client) TopicRoute(ctx context.Context, topic string) (*body.TopicRouteData, error) {
	resp, err := c.invokeNamesrv(ctx, func() *protocol.Command {
		return protocol.NewHeaderRequest(protocol.GetRouteinfoByTopic, &protocol.GetRouteInfoRequestHeader{Topic: topic}, nil)
	})
	if err != nil {
		return nil, err
	}
	return body.DecodeTopicRouteData(resp.Body)
}

// DeleteTopicInNamesrv removes a topic's route from every name server (DELETE_TOPIC_IN_NAMESRV);
// an empty cluster removes it from all clusters.
func (c *Client) DeleteTopicInNamesrv(ctx context.Context, topic, cluster string) error {
	return c.invokeAllNamesrv(ctx, func() *protocol.Command {
		h := &protocol.DeleteTopicFromNamesrvRequestHeader{Topic: topic}
		if cluster != "" {
			h.ClusterName = protocol.Some(cluster)
		}
		return protocol.NewHeaderRequest(protocol.DeleteTopicInNamesrv, h, nil)
	})
}

// KVConfig reads one KV item (GET_KV_CONFIG); ok is false when the name server has none.
func (c *Client) KVConfig(ctx context.Context, namespace, key string) (value string, ok bool, err error) {
	resp, err := c.invokeNamesrv(ctx, func() *protocol.Command {
		return protocol.NewHeaderRequest(protocol.GetKVConfig, &protocol.GetKVConfigRequestHeader{Namespace: namespace, Key: key}, nil)
	})
	if IsCode(err, protocol.QueryNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	var h protocol.GetKVConfigResponseHeader
	if err := h.Decode(resp.ExtFields); err != nil {
		return "", false, fmt.Errorf("admin: %w in the answer", err)
	}
	return h.Value.V, true, nil
}

// PutKVConfig writes one KV item on every name server (PUT_KV_CONFIG).
func (c *Client) PutKVConfig(ctx context.Context, namespace, key, value string) error {
	return c.invokeAllNamesrv(ctx, func() *protocol.Command {
		return protocol.NewHeaderRequest(protocol.PutKVConfig,
			&protocol.PutKVConfigRequestHeader{Namespace: namespace, Key: key, Value: value}, nil)
	})
}
