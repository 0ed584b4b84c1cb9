package admin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// The statistics VIEW_BROKER_STATS_DATA serves (Apache's BrokerStatsManager names) that
// mqadmin's statsAll reads. TopicPutNums is keyed by a topic, GroupGetNums by "topic@group".
const (
	StatsTopicPutNums = "TOPIC_PUT_NUMS"
	StatsGroupGetNums = "GROUP_GET_NUMS"
)

// ErrProducerNotOnline is ExamineProducerConnection's answer when no broker of the topic knows a
// connection of the group; its text is Java's.
var ErrProducerNotOnline = errors.New("Not found the producer group connection")

// ProducerConnection returns a producer group's connections to one broker
// (GET_PRODUCER_CONNECTION_LIST).
func (c *Client) ProducerConnection(ctx context.Context, addr, group string) (*body.ProducerConnection, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.GetProducerConnectionList,
		&protocol.GetProducerConnectionListRequestHeader{ProducerGroup: group}, nil))
	if err != nil {
		return nil, err
	}
	var pc body.ProducerConnection
	if err := body.Unmarshal(resp.Body, &pc); err != nil {
		return nil, fmt.Errorf("admin: %s: decode producer connection: %w", addr, err)
	}
	return &pc, nil
}

// ExamineProducerConnection returns the connections of a producer group that sends to topic:
// from every broker group of the topic's route (Java asks one at random), merged by client id and
// sorted. None at all is ErrProducerNotOnline; brokers that fail are joined into the error only
// when no other one answered.
func (c *Client) ExamineProducerConnection(ctx context.Context, group, topic string) (*body.ProducerConnection, error) {
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		seen = map[string]bool{}
		out  body.ProducerConnection
	)
	err = fanOut(routeAddrs(route), func(addr string) error {
		pc, err := c.ProducerConnection(ctx, addr, group)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range pc.ConnectionSet {
			if !seen[conn.ClientID] {
				seen[conn.ClientID] = true
				out.ConnectionSet = append(out.ConnectionSet, conn)
			}
		}
		return nil
	})
	if len(out.ConnectionSet) == 0 {
		return nil, errors.Join(ErrProducerNotOnline, err)
	}
	slices.SortFunc(out.ConnectionSet, func(a, b body.Connection) int { return cmp.Compare(a.ClientID, b.ClientID) })
	return &out, nil
}

// BrokerStatsData returns one statistic of one key on a broker over the last minute, hour and
// day (VIEW_BROKER_STATS_DATA); a statistic the broker has no figures for is a ServerError.
func (c *Client) BrokerStatsData(ctx context.Context, addr, statsName, statsKey string) (*body.BrokerStatsData, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.ViewBrokerStatsData,
		&protocol.ViewBrokerStatsDataRequestHeader{StatsName: statsName, StatsKey: statsKey}, nil))
	if err != nil {
		return nil, err
	}
	var d body.BrokerStatsData
	if err := body.Unmarshal(resp.Body, &d); err != nil {
		return nil, fmt.Errorf("admin: %s: decode broker stats: %w", addr, err)
	}
	return &d, nil
}

// Sum24Hours is the count of a statistic over the last day as Java's statsAll reads it: the
// day's sum, or the hour's when the day has none yet, or the minute's.
func Sum24Hours(d *body.BrokerStatsData) int64 {
	for _, s := range []int64{d.StatsDay.Sum, d.StatsHour.Sum, d.StatsMinute.Sum} {
		if s != 0 {
			return s
		}
	}
	return 0
}

// BrokerConsumeStats returns every consumer group's progress on one broker, of order topics
// only when order (GET_BROKER_CONSUME_STATS).
func (c *Client) BrokerConsumeStats(ctx context.Context, addr string, order bool) (*body.ConsumeStatsList, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.GetBrokerConsumeStats,
		&protocol.GetConsumeStatsInBrokerHeader{IsOrder: order}, nil))
	if err != nil {
		return nil, err
	}
	return body.DecodeConsumeStatsList(resp.Body)
}
