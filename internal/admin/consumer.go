package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// RetryGroupTopicPrefix is systopic.RetryPrefix, for internal/cli until it uses systopic.
const RetryGroupTopicPrefix = systopic.RetryPrefix

// groupAddrs returns the brokers to ask about a consumer group: one address per broker group in
// the route of its retry topic, as Java does. When that route does not exist (the group never
// sent a heartbeat, only offsets) every master the name server knows is asked instead.
func (c *Client) groupAddrs(ctx context.Context, group string) ([]string, error) {
	route, err := c.TopicRoute(ctx, systopic.Retry(group)) // its route tells which brokers know the group
	if err == nil {
		return routeAddrs(route), nil
	}
	if !IsCode(err, protocol.TopicNotExist) {
		return nil, err
	}
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	var addrs []string
	for _, b := range Brokers(info) {
		if b.BrokerID == body.MasterID {
			addrs = append(addrs, b.Addr)
		}
	}
	return addrs, nil
}

// ExamineConsumeStats merges a group's progress from every broker that knows it (Java
// examineConsumeStats): per queue the broker's max offset, the group's committed offset and the
// store time of the last consumed message; consumeTps is summed. With some brokers failing it
// returns the others' queues and the joined errors; no queue at all is an error.
func (c *Client) ExamineConsumeStats(ctx context.Context, group string) (*body.ConsumeStats, error) {
	return c.ExamineTopicConsumeStats(ctx, group, "")
}

// ExamineTopicConsumeStats is ExamineConsumeStats of one topic only (RocketMQ 5's
// examineConsumeStats(group, topic)); "" is every topic.
func (c *Client) ExamineTopicConsumeStats(ctx context.Context, group, topic string) (*body.ConsumeStats, error) {
	addrs, err := c.groupAddrs(ctx, group)
	if err != nil {
		return nil, err
	}
	merged := &body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
	var mu sync.Mutex
	err = fanOut(addrs, func(addr string) error {
		cs, err := c.ConsumeStats(ctx, addr, group, topic)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for mq, w := range cs.OffsetTable {
			merged.OffsetTable[mq] = w
		}
		merged.ConsumeTps += cs.ConsumeTps
		return nil
	})
	if err == nil && len(merged.OffsetTable) == 0 {
		return merged, fmt.Errorf("admin: no consume stats for group %s: the offset table is empty, maybe the group has not consumed any message", group)
	}
	return merged, err
}

// TotalDiff is the sum over queues of broker offset − consumer offset.
func TotalDiff(cs *body.ConsumeStats) int64 {
	var diff int64
	for _, w := range cs.OffsetTable {
		diff += w.BrokerOffset - w.ConsumerOffset
	}
	return diff
}

// ExamineConsumerConnection asks the brokers that know a group who of it is online and returns
// the first answer (every member heartbeats to every broker, so one suffices). When all fail the
// errors are joined; nobody online is a ServerError with CONSUMER_NOT_ONLINE.
func (c *Client) ExamineConsumerConnection(ctx context.Context, group string) (*body.ConsumerConnection, error) {
	addrs, err := c.groupAddrs(ctx, group)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, errNoBroker
	}
	var errs []error
	for _, addr := range addrs {
		cc, err := c.ConsumerConnection(ctx, addr, group)
		if err == nil {
			return cc, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// MinVersion is the oldest client version among a group's connections (Java
// ConsumerConnection.computeMinVersion); 0 when there is none.
func MinVersion(cc *body.ConsumerConnection) int {
	if len(cc.ConnectionSet) == 0 {
		return 0
	}
	v := cc.ConnectionSet[0].Version
	for _, conn := range cc.ConnectionSet[1:] {
		v = min(v, conn.Version)
	}
	return v
}

// GroupSummary is one consumer group's line of consumerProgress without -g.
type GroupSummary struct {
	Group        string
	Count        int    // connections online
	Version      int    // oldest client version online
	ConsumeType  string // CONSUME_ACTIVELY / CONSUME_PASSIVELY, "" when offline
	MessageModel string
	ConsumeTps   float64
	DiffTotal    int64
}

// GroupSummaries describes every consumer group the name server knows of (one per %RETRY%
// topic), sorted by group. A group whose stats or connections cannot be read is shown with what
// could be read, as Java does: offline groups have Count 0.
func (c *Client) GroupSummaries(ctx context.Context) ([]GroupSummary, error) {
	topics, err := c.TopicList(ctx)
	if err != nil {
		return nil, err
	}
	var groups []string
	for _, t := range topics {
		if g, ok := systopic.RetryGroup(t); ok {
			groups = append(groups, g)
		}
	}
	out := make([]GroupSummary, len(groups))
	idx := make(map[string]int, len(groups))
	for i, g := range groups {
		idx[g] = i
	}
	_ = fanOut(groups, func(g string) error {
		s := GroupSummary{Group: g}
		// Partial stats (some broker failed) are still worth showing.
		if cs, _ := c.ExamineConsumeStats(ctx, g); cs != nil {
			s.ConsumeTps, s.DiffTotal = cs.ConsumeTps, TotalDiff(cs)
		}
		if cc, err := c.ExamineConsumerConnection(ctx, g); err == nil {
			s.Count, s.Version = len(cc.ConnectionSet), MinVersion(cc)
			s.ConsumeType, s.MessageModel = cc.ConsumeType, cc.MessageModel
		}
		out[idx[g]] = s
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out, nil
}

// RunningInfoQueues asks a consumer, through a broker, which queues it is consuming
// (GET_CONSUMER_RUNNING_INFO: the broker relays the request to the client's connection).
func (c *Client) RunningInfoQueues(ctx context.Context, addr, group, clientID string) ([]body.MessageQueue, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.GetConsumerRunningInfo,
		&protocol.GetConsumerRunningInfoRequestHeader{ConsumerGroup: group, ClientID: clientID,
			JstackEnable: protocol.Some(false)}, nil))
	if err != nil {
		return nil, err
	}
	var info struct {
		MQTable map[string]json.RawMessage `json:"mqTable"`
	}
	if err := body.Unmarshal(resp.Body, &info); err != nil {
		return nil, fmt.Errorf("admin: %s: decode consumer running info: %w", addr, err)
	}
	mqs := make([]body.MessageQueue, 0, len(info.MQTable))
	for k := range info.MQTable {
		mq, err := body.ParseMessageQueueKey(k)
		if err != nil {
			return nil, fmt.Errorf("admin: %s: consumer running info: %w", addr, err)
		}
		mqs = append(mqs, mq)
	}
	slices.SortFunc(mqs, body.MessageQueue.Compare)
	return mqs, nil
}

// QueueOwners maps each queue of a group to the member consuming it, by the IP its client id
// starts with (the part before '@'), from every online member's running info, as Java's
// consumerProgress does. Members that cannot be asked (offline,
// a client or broker that does not answer GET_CONSUMER_RUNNING_INFO) are left out; their errors
// are joined.
func (c *Client) QueueOwners(ctx context.Context, group string) (map[body.MessageQueue]string, error) {
	owners := map[body.MessageQueue]string{}
	addrs, err := c.groupAddrs(ctx, group)
	if err != nil {
		return owners, err
	}
	// The first broker that lists the members is asked for each member's running info.
	var errs []error
	for _, addr := range addrs {
		cc, err := c.ConsumerConnection(ctx, addr, group)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, conn := range cc.ConnectionSet {
			mqs, err := c.RunningInfoQueues(ctx, addr, group, conn.ClientID)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ip, _, _ := strings.Cut(conn.ClientID, "@")
			for _, mq := range mqs {
				owners[mq] = ip
			}
		}
		return owners, errors.Join(errs...)
	}
	return owners, errors.Join(errs...)
}
