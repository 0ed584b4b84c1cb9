package processor

import (
	"context"
	"strconv"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// updateAndCreateTopic creates or replaces a topic's config (UPDATE_AND_CREATE_TOPIC).
func (p *Processor) updateAndCreateTopic(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	tc := body.NewTopicConfig(f.String("topic"))
	tc.ReadQueueNums = int(f.Int32("readQueueNums"))
	tc.WriteQueueNums = int(f.Int32("writeQueueNums"))
	tc.Perm = int(f.Int32("perm"))
	tc.TopicFilterType = f.OptString("topicFilterType", body.SingleTag)
	tc.TopicSysFlag = int(f.OptInt32("topicSysFlag", 0))
	tc.Order = f.OptBool("order", false)
	if err := f.Err(); err != nil {
		return nil, err
	}
	if tc.TopicName == p.opts.ClusterName {
		return nil, fail(protocol.SystemError, "The specified topic[%s] is conflicted with cluster name.", tc.TopicName)
	}
	if err := topic.ValidateTopic(tc.TopicName); err != nil {
		return nil, fail(protocol.SystemError, "%s", err.Error())
	}
	if p.Topics.IsSystemTopic(tc.TopicName) {
		return nil, fail(protocol.SystemError, "The topic[%s] is conflict with system topic.", tc.TopicName)
	}
	if tc.ReadQueueNums <= 0 || tc.WriteQueueNums <= 0 || tc.ReadQueueNums > 1024 || tc.WriteQueueNums > 1024 {
		return nil, fail(protocol.SystemError, "the queue numbers of topic[%s] must be in 1..1024: read %d write %d",
			tc.TopicName, tc.ReadQueueNums, tc.WriteQueueNums)
	}
	if err := p.Topics.Put(tc); err != nil {
		return nil, err
	}
	return success(req), nil
}

// deleteTopic removes a topic, its queues and its consumer offsets (DELETE_TOPIC_IN_BROKER).
func (p *Processor) deleteTopic(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	name := f.String("topic")
	if err := f.Err(); err != nil {
		return nil, err
	}
	if _, err := p.Topics.Delete(name); err != nil {
		return nil, err
	}
	p.Offsets.RemoveTopic(name)
	if err := p.Store.DeleteTopic(name); err != nil {
		return nil, err
	}
	return success(req), nil
}

func (p *Processor) getAllTopicConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.Topics.Wrapper())
}

func (p *Processor) getAllSubscriptionGroupConfig(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	return withJSONBody(req, p.Groups.Wrapper())
}

// getAllDelayOffset answers delayOffset.json's content (GET_ALL_DELAY_OFFSET; slaves copy it).
func (p *Processor) getAllDelayOffset(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	data, err := p.Schedule.Encode()
	if err != nil {
		return nil, err
	}
	resp := success(req)
	resp.Body = data
	return resp, nil
}

// getBrokerRuntimeInfo answers the KV table admin tools and rocketmq-exporter read (§11.3).
func (p *Processor) getBrokerRuntimeInfo(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	m := p.Store.RuntimeInfo()
	now := time.Now()
	m["bootTimestamp"] = itoa64(p.opts.BootTime.UnixMilli())
	m["runtime"] = runtimeText(now.Sub(p.opts.BootTime))
	m["brokerVersion"] = strconv.Itoa(int(protocol.VersionV4_9_8))
	m["brokerVersionDesc"] = "V4_9_8"
	for _, k := range []string{"msgPutTotalYesterdayMorning", "msgPutTotalTodayMorning", "msgGetTotalYesterdayMorning", "msgGetTotalTodayMorning"} {
		m[k] = "0"
	}
	m["msgPutTotalTodayNow"] = m["putMessageTimesTotal"]
	m["msgGetTotalTodayNow"] = "0"
	for _, pool := range []string{"send", "pull", "query"} {
		m[pool+"ThreadPoolQueueSize"] = "0"
		m[pool+"ThreadPoolQueueCapacity"] = "10000"
		m[pool+"ThreadPoolQueueHeadWaitTimeMills"] = "0"
	}
	return withJSONBody(req, body.KVTable{Table: m})
}

// runtimeText is Java's "[ d days, h hours, m minutes, s seconds ]".
func runtimeText(d time.Duration) string {
	s := int64(d.Seconds())
	return "[ " + strconv.FormatInt(s/86400, 10) + " days, " + strconv.FormatInt(s%86400/3600, 10) + " hours, " +
		strconv.FormatInt(s%3600/60, 10) + " minutes, " + strconv.FormatInt(s%60, 10) + " seconds ]"
}

// getTopicStatsInfo answers each queue's min and max offset (GET_TOPIC_STATS_INFO).
func (p *Processor) getTopicStatsInfo(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	name := f.String("topic")
	if err := f.Err(); err != nil {
		return nil, err
	}
	tc, ok := p.Topics.Get(name)
	if !ok {
		return nil, fail(protocol.TopicNotExist, "topic[%s] not exist", name)
	}
	t := body.TopicStatsTable{OffsetTable: map[body.MessageQueue]body.TopicOffset{}}
	for q := int32(0); q < int32(tc.WriteQueueNums); q++ {
		hi := p.Store.MaxOffsetInQueue(name, q)
		off := body.TopicOffset{MinOffset: max(0, p.Store.MinOffsetInQueue(name, q)), MaxOffset: hi}
		if hi > 0 {
			off.LastUpdateTimestamp = p.Store.MessageStoreTime(name, q, hi-1)
		}
		t.OffsetTable[body.MessageQueue{Topic: name, BrokerName: p.opts.BrokerName, QueueID: q}] = off
	}
	data, err := t.Encode()
	if err != nil {
		return nil, err
	}
	resp := success(req)
	resp.Body = data
	return resp, nil
}

// getConsumeStats answers a group's progress on each queue (GET_CONSUME_STATS).
func (p *Processor) getConsumeStats(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	group := f.String("consumerGroup")
	only := f.OptString("topic", "")
	if err := f.Err(); err != nil {
		return nil, err
	}
	topics := p.Offsets.TopicsOfGroup(group)
	if only != "" {
		topics = []string{only}
	}
	cs := body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
	for _, name := range topics {
		tc, ok := p.Topics.Get(name)
		if !ok {
			continue
		}
		for q := int32(0); q < int32(tc.ReadQueueNums); q++ {
			w := body.OffsetWrapper{BrokerOffset: p.Store.MaxOffsetInQueue(name, q)}
			if off, ok := p.Offsets.Query(group, name, q); ok {
				w.ConsumerOffset = off
			}
			if w.ConsumerOffset > 0 {
				w.LastTimestamp = p.Store.MessageStoreTime(name, q, w.ConsumerOffset-1)
			}
			cs.OffsetTable[body.MessageQueue{Topic: name, BrokerName: p.opts.BrokerName, QueueID: q}] = w
		}
	}
	data, err := cs.Encode()
	if err != nil {
		return nil, err
	}
	resp := success(req)
	resp.Body = data
	return resp, nil
}

// getConsumerConnectionList answers who is online in a group (GET_CONSUMER_CONNECTION_LIST).
func (p *Processor) getConsumerConnectionList(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	group := f.String("consumerGroup")
	if err := f.Err(); err != nil {
		return nil, err
	}
	g, ok := p.Consumers.Group(group)
	if !ok {
		return nil, fail(protocol.ConsumerNotOnline, "the consumer group[%s] not online", group)
	}
	cc := body.ConsumerConnection{ConsumeType: g.ConsumeType, MessageModel: g.MessageModel,
		ConsumeFromWhere: g.ConsumeFromWhere, SubscriptionTable: map[string]body.SubscriptionData{}}
	for _, m := range g.Members {
		cc.ConnectionSet = append(cc.ConnectionSet, body.Connection{ClientID: m.ClientID,
			ClientAddr: m.Channel.RemoteAddr(), Language: m.Language, Version: int(m.Version)})
	}
	for _, s := range g.Subscriptions {
		sd := body.SubscriptionData{Topic: s.Topic, SubString: s.SubString, ExpressionType: s.ExpressionType,
			SubVersion: body.Int64(s.SubVersion), TagsSet: s.Tags}
		for c := range s.Codes {
			sd.CodeSet = append(sd.CodeSet, int32(c))
		}
		cc.SubscriptionTable[s.Topic] = sd
	}
	return withJSONBody(req, cc)
}

// queryTopicConsumeByWho lists the groups consuming a topic (QUERY_TOPIC_CONSUME_BY_WHO).
func (p *Processor) queryTopicConsumeByWho(_ context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	name := f.String("topic")
	if err := f.Err(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var groups []string
	for _, g := range append(p.Consumers.GroupsOf(name), p.Offsets.GroupsOfTopic(name)...) {
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	return withJSONBody(req, body.GroupList{GroupList: groups})
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }
