package admin

import (
	"context"
	"sort"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TopicThroughput is one topic's line set of mqadmin statsAll: what its masters stored over the
// last minute and day, and per consumer group what it pulled and still has to.
type TopicThroughput struct {
	Topic      string
	InTPS      float64 // messages stored per second over the last minute, summed over masters
	InMsg24h   int64   // messages stored over the last day (Sum24Hours), summed over masters
	GroupStats []GroupThroughput
}

// GroupThroughput is a consumer group's progress on a topic.
type GroupThroughput struct {
	Group        string
	Accumulation int64 // messages not yet consumed (never below 0)
	OutTPS       float64
	OutMsg24h    int64
}

// ExamineTopicThroughput gathers a topic's statsAll figures as Java's tool does: the route's
// masters' TOPIC_PUT_NUMS, the groups that consume the topic, each group's GROUP_GET_NUMS of
// "topic@group" and its lag on the topic. Only the route is required: a statistic or a lag that
// cannot be read counts 0, as in Java.
func (c *Client) ExamineTopicThroughput(ctx context.Context, topic string) (*TopicThroughput, error) {
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return nil, err
	}
	masters := routeMasters(route)
	tt := &TopicThroughput{Topic: topic}
	tt.InTPS, tt.InMsg24h = c.sumStats(ctx, masters, StatsTopicPutNums, topic)
	for _, g := range c.consumingGroups(ctx, route, topic) {
		gt := GroupThroughput{Group: g}
		gt.OutTPS, gt.OutMsg24h = c.sumStats(ctx, masters, StatsGroupGetNums, topic+"@"+g)
		if cs, err := c.ExamineTopicConsumeStats(ctx, g, topic); err == nil {
			gt.Accumulation = max(TotalDiff(cs), 0)
		}
		tt.GroupStats = append(tt.GroupStats, gt)
	}
	return tt, nil
}

// sumStats adds one statistic's minute TPS and day count over brokers; brokers without it count 0.
func (c *Client) sumStats(ctx context.Context, addrs []string, name, key string) (tps float64, day int64) {
	for _, addr := range addrs {
		d, err := c.BrokerStatsData(ctx, addr, name, key)
		if err != nil {
			continue
		}
		tps += d.StatsMinute.Tps
		day += Sum24Hours(d)
	}
	return tps, day
}

// consumingGroups lists, sorted, the groups any broker of the route says consume topic.
func (c *Client) consumingGroups(ctx context.Context, route *body.TopicRouteData, topic string) []string {
	seen := map[string]bool{}
	var groups []string
	for _, addr := range routeAddrs(route) {
		gl, err := c.TopicConsumeByWho(ctx, addr, topic)
		if err != nil {
			continue
		}
		for _, g := range gl {
			if !seen[g] {
				seen[g] = true
				groups = append(groups, g)
			}
		}
	}
	sort.Strings(groups)
	return groups
}

// routeMasters returns the masters' addresses of a route, in broker-name order.
func routeMasters(route *body.TopicRouteData) []string {
	var out []string
	for _, bd := range sortedBrokerDatas(route) {
		if a, ok := bd.BrokerAddrs[body.MasterID]; ok {
			out = append(out, a)
		}
	}
	return out
}
