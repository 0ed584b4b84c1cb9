package admin

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// DLQGroupTopicPrefix is systopic.DLQPrefix, for internal/cli until it uses systopic.
const DLQGroupTopicPrefix = systopic.DLQPrefix

// languageCPP is the request language of a C++ client.
const languageCPP = "CPP"

// CreateSubscriptionGroup creates or replaces a consumer group's config on one broker
// (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP).
func (c *Client) CreateSubscriptionGroup(ctx context.Context, addr string, cfg body.SubscriptionGroupConfig) error {
	data, err := body.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("admin: encode subscription group %s: %w", cfg.GroupName, err)
	}
	_, err = c.invoke(ctx, addr, protocol.NewRequest(protocol.UpdateAndCreateSubscriptionGroup, nil, data))
	return err
}

// CreateSubscriptionGroupInCluster creates or replaces a consumer group's config on every master
// of a cluster and returns the addresses that accepted it, sorted, with the joined errors of the
// others.
func (c *Client) CreateSubscriptionGroupInCluster(ctx context.Context, cluster string, cfg body.SubscriptionGroupConfig) ([]string, error) {
	masters, err := c.clusterMasters(ctx, cluster)
	if err != nil {
		return nil, err
	}
	return c.eachBroker(masters, func(addr string) error { return c.CreateSubscriptionGroup(ctx, addr, cfg) })
}

// DeleteSubscriptionGroup removes a consumer group's config from one broker
// (DELETE_SUBSCRIPTIONGROUP); with removeOffset also its committed offsets. The flag is sent under
// 4.9's name (removeOffset) and 5.x's (cleanOffset).
func (c *Client) DeleteSubscriptionGroup(ctx context.Context, addr, group string, removeOffset bool) error {
	_, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.DeleteSubscriptionGroup,
		&protocol.DeleteSubscriptionGroupRequestHeader{GroupName: group, RemoveOffset: protocol.Some(removeOffset),
			CleanOffset: protocol.Some(removeOffset)}, nil))
	return err
}

// DeleteSubscriptionGroupInCluster removes a consumer group from every master of a cluster and
// returns the addresses that removed it, sorted, with the joined errors of the others.
func (c *Client) DeleteSubscriptionGroupInCluster(ctx context.Context, cluster, group string, removeOffset bool) ([]string, error) {
	masters, err := c.clusterMasters(ctx, cluster)
	if err != nil {
		return nil, err
	}
	return c.eachBroker(masters, func(addr string) error { return c.DeleteSubscriptionGroup(ctx, addr, group, removeOffset) })
}

// clusterMasters lists the masters of a cluster.
func (c *Client) clusterMasters(ctx context.Context, cluster string) ([]BrokerAddr, error) {
	info, err := c.ClusterInfo(ctx)
	if err != nil {
		return nil, err
	}
	return ClusterBrokers(info, cluster, true)
}

// ResetOffset names what ResetOffsetByTimestamp resets.
type ResetOffset struct {
	Topic, Group string
	// Timestamp is the time (ms) whose offsets the group restarts from; -1 means the latest offset.
	Timestamp int64
	// Force lets a queue move forward; without it a queue only moves back.
	Force bool
	// CPlus sends the request as a C++ client (language CPP), for which the broker tells the
	// group's members in the C++ client's body format.
	CPlus bool
}

// ResetOffsetByTimestamp asks each broker group of the topic's route (its master when it has one)
// to reset the group's offsets to a time (INVOKE_BROKER_TO_RESET_OFFSET) and merges the new offsets
// they answer (Java resetOffsetByTimestamp). The brokers also tell the group's online members. The
// first broker's refusal is returned; CONSUMER_NOT_ONLINE (nobody of the group online) is the
// caller's cue for ResetOffsetByTimestampOld.
func (c *Client) ResetOffsetByTimestamp(ctx context.Context, r ResetOffset) (map[body.MessageQueue]int64, error) {
	route, err := c.TopicRoute(ctx, r.Topic)
	if err != nil {
		return nil, err
	}
	merged := map[body.MessageQueue]int64{}
	for _, addr := range routeAddrs(route) {
		req := protocol.NewHeaderRequest(protocol.InvokeBrokerToResetOffset, &protocol.ResetOffsetRequestHeader{
			Topic: r.Topic, Group: r.Group, Timestamp: r.Timestamp, IsForce: r.Force,
		}, nil)
		if r.CPlus {
			req.Language = languageCPP
		}
		resp, err := c.invoke(ctx, addr, req)
		if err != nil {
			return nil, err
		}
		if len(resp.Body) == 0 {
			continue
		}
		rb, err := body.DecodeResetOffsetBody(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("admin: %s: decode reset offsets: %w", addr, err)
		}
		for mq, off := range rb.OffsetTable {
			merged[mq] = off
		}
	}
	return merged, nil
}

// RollbackStats is one queue's outcome of ResetOffsetByTimestampOld (Java RollbackStats).
type RollbackStats struct {
	BrokerName      string
	QueueID         int32
	BrokerOffset    int64 // the queue's max offset
	ConsumerOffset  int64 // the group's committed offset before the reset
	TimestampOffset int64 // the queue's offset for the timestamp
	RollbackOffset  int64 // the offset committed (ConsumerOffset when the queue was left alone)
}

// ResetOffsetByTimestampOld resets a group's committed offsets of a topic without its consumers'
// help (Java resetOffsetByTimestampOld, what its tool falls back to when nobody of the group is
// online): on each broker group of the route, for each queue of the topic the group has progress
// on (else every read queue, from its min offset), the offset for the time (SEARCH_OFFSET_BY_TIMESTAMP,
// or GET_MAX_OFFSET for -1) is committed with UPDATE_CONSUMER_OFFSET when force is set or it is
// not beyond the committed one.
func (c *Client) ResetOffsetByTimestampOld(ctx context.Context, topic, group string, timestamp int64, force bool) ([]RollbackStats, error) {
	route, err := c.TopicRoute(ctx, topic)
	if err != nil {
		return nil, err
	}
	var out []RollbackStats
	for _, bd := range sortedBrokerDatas(route) {
		addr := SelectAddr(bd)
		if addr == "" {
			continue
		}
		queues, err := c.groupProgress(ctx, addr, route, bd.BrokerName, topic, group)
		if err != nil {
			return out, err
		}
		for _, q := range queues {
			rs, err := c.rollbackQueue(ctx, addr, group, q, timestamp, force)
			if err != nil {
				return out, err
			}
			out = append(out, rs)
		}
	}
	return out, nil
}

// queueProgress is a queue of the topic on one broker with the group's offset on it.
type queueProgress struct {
	mq body.MessageQueue
	body.OffsetWrapper
}

// groupProgress returns the group's progress on the topic's queues of one broker: from
// GET_CONSUME_STATS, or, when the group has none there, every read queue with its min offset as the
// consumer offset (as Java does).
func (c *Client) groupProgress(ctx context.Context, addr string, route *body.TopicRouteData, brokerName, topic, group string) ([]queueProgress, error) {
	cs, err := c.ConsumeStats(ctx, addr, group, "")
	if err != nil {
		return nil, err
	}
	var out []queueProgress
	for _, mq := range sortedQueues(cs.OffsetTable) {
		if mq.Topic == topic {
			out = append(out, queueProgress{mq: mq, OffsetWrapper: cs.OffsetTable[mq]})
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	stats, err := c.TopicStats(ctx, addr, topic)
	if err != nil {
		return nil, err
	}
	for _, qd := range route.QueueDatas {
		if qd.BrokerName != brokerName {
			continue
		}
		for q := range int32(qd.ReadQueueNums) {
			mq := body.MessageQueue{Topic: topic, BrokerName: brokerName, QueueID: q}
			st := stats.OffsetTable[mq]
			out = append(out, queueProgress{mq: mq, OffsetWrapper: body.OffsetWrapper{BrokerOffset: st.MaxOffset, ConsumerOffset: st.MinOffset}})
		}
	}
	return out, nil
}

// rollbackQueue resets one queue for ResetOffsetByTimestampOld.
func (c *Client) rollbackQueue(ctx context.Context, addr, group string, q queueProgress, timestamp int64, force bool) (RollbackStats, error) {
	var (
		target int64
		err    error
	)
	if timestamp == -1 {
		target, err = c.queueOffset(ctx, addr, protocol.GetMaxOffset,
			&protocol.GetMaxOffsetRequestHeader{Topic: q.mq.Topic, QueueID: q.mq.QueueID})
	} else {
		target, err = c.queueOffset(ctx, addr, protocol.SearchOffsetByTimestamp,
			&protocol.SearchOffsetRequestHeader{Topic: q.mq.Topic, QueueID: q.mq.QueueID, Timestamp: timestamp})
	}
	if err != nil {
		return RollbackStats{}, err
	}
	rs := RollbackStats{BrokerName: q.mq.BrokerName, QueueID: q.mq.QueueID, BrokerOffset: q.BrokerOffset,
		ConsumerOffset: q.ConsumerOffset, TimestampOffset: target, RollbackOffset: q.ConsumerOffset}
	if force || target <= q.ConsumerOffset {
		rs.RollbackOffset = target
		if err := c.UpdateConsumerOffset(ctx, addr, group, q.mq, target); err != nil {
			return rs, err
		}
	}
	return rs, nil
}

// queueOffset asks a request naming a queue (GET_MAX_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP, ...) and
// returns its ext field offset.
func (c *Client) queueOffset(ctx context.Context, addr string, code protocol.RequestCode, h protocol.Header) (int64, error) {
	resp, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(code, h, nil))
	if err != nil {
		return 0, err
	}
	// Every answer of these codes is an offset (GetMaxOffsetResponseHeader, SearchOffsetResponseHeader).
	var answer protocol.GetMaxOffsetResponseHeader
	if err := answer.Decode(resp.ExtFields); err != nil {
		return 0, fmt.Errorf("admin: %s %s: %w in the answer", addr, code, err)
	}
	return answer.Offset, nil
}

// UpdateConsumerOffset commits a group's offset of one queue on a broker (UPDATE_CONSUMER_OFFSET,
// sent as a request with an answer, as Java's admin does).
func (c *Client) UpdateConsumerOffset(ctx context.Context, addr, group string, mq body.MessageQueue, offset int64) error {
	_, err := c.invoke(ctx, addr, protocol.NewHeaderRequest(protocol.UpdateConsumerOffset,
		&protocol.UpdateConsumerOffsetRequestHeader{ConsumerGroup: group, Topic: mq.Topic, QueueID: mq.QueueID,
			CommitOffset: offset, BrokerName: protocol.Some(mq.BrokerName)}, nil))
	return err
}

// BrokerConfig returns a broker's effective configuration as the Java-properties text it answers
// and the configuration's version, a DataVersion JSON (GET_BROKER_CONFIG).
func (c *Client) BrokerConfig(ctx context.Context, addr string) (text, version string, err error) {
	resp, err := c.invoke(ctx, addr, protocol.NewRequest(protocol.GetBrokerConfig, nil, nil))
	if err != nil {
		return "", "", err
	}
	var h protocol.GetBrokerConfigResponseHeader
	if err := h.Decode(resp.ExtFields); err != nil {
		return "", "", fmt.Errorf("admin: %s: %w in the answer", addr, err)
	}
	return string(resp.Body), h.Version, nil
}

// MasterAndSlaves is a broker group's master address and its slaves' (Java
// CommandUtil.fetchMasterAndSlaveDistinguish).
type MasterAndSlaves struct {
	Master string
	Slaves []string
}

// ClusterMasterAndSlaves lists each broker group of a cluster with a master: the master's address
// and its slaves', by broker name.
func ClusterMasterAndSlaves(info *body.ClusterInfo, cluster string) ([]MasterAndSlaves, error) {
	brokers, err := ClusterBrokers(info, cluster, false)
	if err != nil {
		return nil, err
	}
	var out []MasterAndSlaves
	byName := map[string]int{}
	for _, b := range brokers { // masters come first within a broker name (ascending ids)
		i, ok := byName[b.BrokerName]
		switch {
		case b.BrokerID == body.MasterID:
			byName[b.BrokerName] = len(out)
			out = append(out, MasterAndSlaves{Master: b.Addr})
		case ok:
			out[i].Slaves = append(out[i].Slaves, b.Addr)
		}
	}
	return out, nil
}

// sortedBrokerDatas returns a route's broker groups in broker-name order.
func sortedBrokerDatas(route *body.TopicRouteData) []body.BrokerData {
	bds := slices.Clone(route.BrokerDatas)
	slices.SortFunc(bds, func(a, b body.BrokerData) int { return cmp.Compare(a.BrokerName, b.BrokerName) })
	return bds
}

// sortedQueues returns a queue-keyed table's queues in order.
func sortedQueues[V any](m map[body.MessageQueue]V) []body.MessageQueue {
	return slices.SortedFunc(maps.Keys(m), body.MessageQueue.Compare)
}
