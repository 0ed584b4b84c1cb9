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

// DeleteKVConfig removes one KV item from every name server (DELETE_KV_CONFIG).
func (c *Client) DeleteKVConfig(ctx context.Context, namespace, key string) error {
	return c.invokeAllNamesrv(ctx, func() *protocol.Command {
		return protocol.NewHeaderRequest(protocol.DeleteKVConfig,
			&protocol.DeleteKVConfigRequestHeader{Namespace: namespace, Key: key}, nil)
	})
}

// WipeWritePerm takes the write permission off a broker group's queues in one name server's
// routes (WIPE_WRITE_PERM_OF_BROKER) and returns how many topics it touched.
func (c *Client) WipeWritePerm(ctx context.Context, namesrvAddr, brokerName string) (int, error) {
	resp, err := c.invoke(ctx, namesrvAddr, protocol.NewHeaderRequest(protocol.WipeWritePermOfBroker,
		&protocol.WipeWritePermOfBrokerRequestHeader{BrokerName: brokerName}, nil))
	if err != nil {
		return 0, err
	}
	var h protocol.WipeWritePermOfBrokerResponseHeader
	if err := h.Decode(resp.ExtFields); err != nil {
		return 0, fmt.Errorf("admin: %s: %w in the answer", namesrvAddr, err)
	}
	return int(h.WipeTopicCount), nil
}

// AddWritePerm makes a broker group's queues readable and writable again in one name server's
// routes (ADD_WRITE_PERM_OF_BROKER) and returns how many topics it touched.
func (c *Client) AddWritePerm(ctx context.Context, namesrvAddr, brokerName string) (int, error) {
	resp, err := c.invoke(ctx, namesrvAddr, protocol.NewHeaderRequest(protocol.AddWritePermOfBroker,
		&protocol.AddWritePermOfBrokerRequestHeader{BrokerName: brokerName}, nil))
	if err != nil {
		return 0, err
	}
	var h protocol.AddWritePermOfBrokerResponseHeader
	if err := h.Decode(resp.ExtFields); err != nil {
		return 0, fmt.Errorf("admin: %s: %w in the answer", namesrvAddr, err)
	}
	return int(h.AddTopicCount), nil
}

// NamesrvConfig returns one name server's configuration, key by key in its order
// (GET_NAMESRV_CONFIG).
func (c *Client) NamesrvConfig(ctx context.Context, namesrvAddr string) ([]body.Property, error) {
	resp, err := c.invoke(ctx, namesrvAddr, protocol.NewRequest(protocol.GetNamesrvConfig, nil, nil))
	if err != nil {
		return nil, err
	}
	props, err := body.ParseProperties(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("admin: %s: the configuration is not Java-properties text: %w", namesrvAddr, err)
	}
	return props, nil
}

// UpdateNamesrvConfig applies key=value pairs to every name server given, or to all of the
// client's when addrs is empty (UPDATE_NAMESRV_CONFIG).
func (c *Client) UpdateNamesrvConfig(ctx context.Context, props []body.Property, addrs []string) error {
	if len(addrs) == 0 {
		addrs = c.namesrv
	}
	if len(addrs) == 0 {
		return ErrNoNamesrv
	}
	text := []byte(body.EncodeProperties(props))
	return fanOut(addrs, func(addr string) error {
		_, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.UpdateNamesrvConfig, nil, text))
		return err
	})
}
