package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// ExamineTopicStats asks every broker group in the topic's route for its queues and merges the
// answers (Java DefaultMQAdminExt.examineTopicStats). With some brokers failing it returns the
// others' queues and the joined errors.
func (c *Client) ExamineTopicStats(ctx context.Context, topic string) (*body.TopicStatsTable, error) {
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return nil, err
	}
	merged := &body.TopicStatsTable{OffsetTable: map[body.MessageQueue]body.TopicOffset{}}
	var mu sync.Mutex
	err = fanOut(routeAddrs(route), func(addr string) error {
		t, err := c.TopicStats(ctx, addr, topic)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for mq, off := range t.OffsetTable {
			merged.OffsetTable[mq] = off
		}
		merged.TopicPutTps += t.TopicPutTps
		return nil
	})
	return merged, err
}

// CreateTopicInCluster creates or updates a topic on every master of a cluster and returns the
// addresses that accepted it, sorted, with the joined errors of those that did not.
func (c *Client) CreateTopicInCluster(ctx context.Context, cluster string, tc body.TopicConfig) ([]string, error) {
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	masters, err := ClusterBrokers(info, cluster, true)
	if err != nil {
		return nil, err
	}
	return c.eachBroker(masters, func(addr string) error { return c.CreateTopic(ctx, addr, tc) })
}

// CreateTopicOnMasters creates or updates a topic on every master of a cluster, or of every
// cluster when cluster is "", and returns the masters that accepted it, in the order of Brokers,
// with the joined errors of those that did not. Finding no master is an error.
func (c *Client) CreateTopicOnMasters(ctx context.Context, cluster string, tc body.TopicConfig) ([]BrokerAddr, error) {
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	masters, err := Masters(info, cluster)
	if err != nil {
		return nil, err
	}
	if len(masters) == 0 {
		return nil, fmt.Errorf("admin: no master in cluster %q (\"\": every cluster)", cluster)
	}
	done, err := c.eachBroker(masters, func(addr string) error { return c.CreateTopic(ctx, addr, tc) })
	accepted := slices.DeleteFunc(masters, func(b BrokerAddr) bool { return !slices.Contains(done, b.Addr) })
	return accepted, err
}

// DeleteTopicInCluster deletes a topic from every broker (masters and slaves) of a cluster and
// returns the addresses that deleted it, sorted, with the joined errors of the others. The name
// servers' route is left to DeleteTopicInNamesrv.
func (c *Client) DeleteTopicInCluster(ctx context.Context, cluster, topic string) ([]string, error) {
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	brokers, err := ClusterBrokers(info, cluster, false)
	if err != nil {
		return nil, err
	}
	return c.eachBroker(brokers, func(addr string) error { return c.DeleteTopicInBroker(ctx, addr, topic) })
}

// eachBroker calls f for each distinct address in parallel and returns the addresses where it
// succeeded, sorted.
func (c *Client) eachBroker(brokers []BrokerAddr, f func(addr string) error) ([]string, error) {
	var addrs []string
	for _, b := range brokers {
		if !slices.Contains(addrs, b.Addr) {
			addrs = append(addrs, b.Addr)
		}
	}
	var (
		mu   sync.Mutex
		done []string
	)
	err := fanOut(addrs, func(addr string) error {
		if err := f(addr); err != nil {
			return err
		}
		mu.Lock()
		done = append(done, addr)
		mu.Unlock()
		return nil
	})
	sort.Strings(done)
	return done, err
}

// FormatOrderConf writes an order topic's queue layout, "brokerA:8;brokerB:8", in broker-name
// order.
func FormatOrderConf(conf map[string]int) string {
	parts := make([]string, 0, len(conf))
	for _, name := range sortedKeys(conf) {
		parts = append(parts, name+":"+strconv.Itoa(conf[name]))
	}
	return strings.Join(parts, ";")
}

// ParseOrderConf reads "brokerA:8;brokerB:8"; malformed entries are an error.
func ParseOrderConf(s string) (map[string]int, error) {
	conf := map[string]int{}
	for _, part := range strings.Split(s, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, n, ok := strings.Cut(part, ":")
		queues, err := strconv.Atoi(n)
		if !ok || name == "" || err != nil {
			return nil, fmt.Errorf("admin: order conf entry %q is not brokerName:queues", part)
		}
		conf[name] = queues
	}
	return conf, nil
}

// UpdateOrderConf records an order topic's queue layout on the name servers (KV namespace
// ORDER_TOPIC_CONFIG), which add it to the topic's route as orderTopicConf. With merge the
// entries are added to (or replace those of the same broker in) the layout already stored, as
// Java does for a single broker; otherwise they replace it, as for a whole cluster. It returns
// the layout written.
func (c *Client) UpdateOrderConf(ctx context.Context, topic string, conf map[string]int, merge bool) (string, error) {
	if merge {
		old, ok, err := c.KVConfig(ctx, NamespaceOrderTopicConfig, topic)
		if err != nil {
			return "", err
		}
		if ok {
			stored, err := ParseOrderConf(old)
			if err != nil {
				return "", err
			}
			for name, n := range conf {
				stored[name] = n
			}
			conf = stored
		}
	}
	value := FormatOrderConf(conf)
	return value, c.PutKVConfig(ctx, NamespaceOrderTopicConfig, topic, value)
}

// TopicGroups returns the clusters a topic lives in and the consumer groups its brokers know of
// (QUERY_TOPIC_CONSUME_BY_WHO on each broker group of its route), both sorted.
func (c *Client) TopicGroups(ctx context.Context, info *body.ClusterInfo, topic string) (clusters, groups []string, err error) {
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	clusters = routeClusters(info, route)
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
	)
	err = fanOut(routeAddrs(route), func(addr string) error {
		gl, err := c.TopicConsumeByWho(ctx, addr, topic)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, g := range gl {
			if !seen[g] {
				seen[g] = true
				groups = append(groups, g)
			}
		}
		return nil
	})
	sort.Strings(groups)
	return clusters, groups, err
}

// routeClusters returns the clusters of a route's broker groups, sorted.
func routeClusters(info *body.ClusterInfo, route *body.TopicRouteData) []string {
	var clusters []string
	for _, bd := range route.BrokerDatas {
		cl := bd.Cluster
		if cl == "" {
			cl = ClusterOf(info, bd.BrokerName)
		}
		if cl != "" && !slices.Contains(clusters, cl) {
			clusters = append(clusters, cl)
		}
	}
	sort.Strings(clusters)
	return clusters
}

// errNoBroker says a route names no broker to ask.
var errNoBroker = errors.New("admin: the route names no broker")
