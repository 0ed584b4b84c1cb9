// Package stats answers what admin tools, consoles and exporters read about the broker's state:
// the runtime KV table, each queue's offsets, a group's progress and lag, who is online in a
// group, which groups consume a topic, and a group's consume time span.
package stats

import (
	"strconv"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Store answers about queues and the store's own figures.
type Store interface {
	RuntimeInfo() map[string]string
	MinOffsetInQueue(topic string, queueID int32) int64
	MaxOffsetInQueue(topic string, queueID int32) int64
	EarliestMessageTime(topic string, queueID int32) int64
	MessageStoreTime(topic string, queueID int32, offset int64) int64
}

// Topics looks topics up.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
}

// Offsets holds the groups' committed offsets.
type Offsets interface {
	Query(group, topic string, queueID int32) (int64, bool)
	TopicsOfGroup(group string) []string
	GroupsOfTopic(topic string) []string
}

// Consumers holds the groups' members and subscriptions.
type Consumers interface {
	Group(group string) (client.GroupInfo, bool)
	GroupsOf(topic string) []string
}

// Options are the broker facts the answers carry.
type Options struct {
	BrokerName string
	// BrokerAddr is brokerIP1:listenPort, named in GET_BROKER_CONSUME_STATS.
	BrokerAddr string
	// BootTime is when the broker started.
	BootTime time.Time
	// Version is the broker's MQVersion ordinal and VersionDesc its name ("V4_9_8").
	Version     int
	VersionDesc string
}

// Deps are what the service reads.
type Deps struct {
	Store     Store
	Topics    Topics
	Offsets   Offsets
	Consumers Consumers
	Producers Producers
	Groups    Groups
	Counters  Counters
}

// Service answers state questions.
type Service struct {
	opts Options
	Deps
	now func() time.Time
}

// New returns a Service.
func New(opts Options, deps Deps) *Service {
	return &Service{opts: opts, Deps: deps, now: time.Now}
}

// RuntimeInfo is the KV table admin tools and rocketmq-exporter read (docs/protocol.md §11.3):
// the store's figures, the broker's version and uptime, and Java's keys this broker has no
// figure for, at 0.
func (s *Service) RuntimeInfo() map[string]string {
	m := s.Store.RuntimeInfo()
	m["bootTimestamp"] = strconv.FormatInt(s.opts.BootTime.UnixMilli(), 10)
	m["runtime"] = runtimeText(s.now().Sub(s.opts.BootTime))
	m["brokerVersion"] = strconv.Itoa(s.opts.Version)
	m["brokerVersionDesc"] = s.opts.VersionDesc
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
	return m
}

// runtimeText is Java's "[ d days, h hours, m minutes, s seconds ]".
func runtimeText(d time.Duration) string {
	sec := int64(d.Seconds())
	return "[ " + strconv.FormatInt(sec/86400, 10) + " days, " + strconv.FormatInt(sec%86400/3600, 10) + " hours, " +
		strconv.FormatInt(sec%3600/60, 10) + " minutes, " + strconv.FormatInt(sec%60, 10) + " seconds ]"
}

// TopicStats is each write queue's min and max offset and last store time.
func (s *Service) TopicStats(name string) (body.TopicStatsTable, error) {
	tc, ok := s.Topics.Get(name)
	if !ok {
		return body.TopicStatsTable{}, outcome.Errorf(outcome.TopicNotExist, "topic[%s] not exist", name)
	}
	t := body.TopicStatsTable{OffsetTable: map[body.MessageQueue]body.TopicOffset{}}
	for q := range int32(tc.WriteQueueNums) {
		hi := s.Store.MaxOffsetInQueue(name, q)
		off := body.TopicOffset{MinOffset: max(0, s.Store.MinOffsetInQueue(name, q)), MaxOffset: hi}
		if hi > 0 {
			off.LastUpdateTimestamp = s.Store.MessageStoreTime(name, q, hi-1)
		}
		t.OffsetTable[s.queue(name, q)] = off
	}
	return t, nil
}

// ConsumeStats is a group's progress on each read queue of the topics it has offsets on, or of
// only when it is not empty.
func (s *Service) ConsumeStats(group, only string) body.ConsumeStats {
	topics := s.Offsets.TopicsOfGroup(group)
	if only != "" {
		topics = []string{only}
	}
	cs := body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
	for _, name := range topics {
		if tc, ok := s.Topics.Get(name); ok {
			s.addProgress(cs.OffsetTable, group, name, tc.ReadQueueNums)
		}
	}
	return cs
}

func (s *Service) addProgress(table map[body.MessageQueue]body.OffsetWrapper, group, name string, queues int) {
	for q := range int32(queues) {
		w := body.OffsetWrapper{BrokerOffset: s.Store.MaxOffsetInQueue(name, q)}
		if off, ok := s.Offsets.Query(group, name, q); ok {
			w.ConsumerOffset = off
		}
		// The broker keeps no offsets of pulls apart from commits: pullOffset is the committed
		// offset, as Apache 5 answers for a queue it recorded no pull of (5.x's mqadmin prints
		// pullOffset-consumerOffset as #Inflight: 0, not minus the offset).
		w.PullOffset = w.ConsumerOffset
		if w.ConsumerOffset > 0 {
			w.LastTimestamp = s.Store.MessageStoreTime(name, q, w.ConsumerOffset-1)
		}
		table[s.queue(name, q)] = w
	}
}

// Connections is who is online in a group and what it subscribes to.
func (s *Service) Connections(group string) (body.ConsumerConnection, error) {
	g, ok := s.Consumers.Group(group)
	if !ok {
		return body.ConsumerConnection{}, outcome.Errorf(outcome.ConsumerNotOnline, "the consumer group[%s] not online", group)
	}
	cc := body.ConsumerConnection{ConsumeType: g.ConsumeType, MessageModel: g.MessageModel,
		ConsumeFromWhere: g.ConsumeFromWhere, SubscriptionTable: map[string]body.SubscriptionData{}}
	for _, m := range g.Members {
		cc.ConnectionSet = append(cc.ConnectionSet, body.Connection{ClientID: m.ClientID,
			ClientAddr: m.Channel.RemoteAddr(), Language: m.Language, Version: int(m.Version)})
	}
	for _, sub := range g.Subscriptions {
		cc.SubscriptionTable[sub.Topic] = subscriptionData(sub)
	}
	return cc, nil
}

func subscriptionData(s *client.Subscription) body.SubscriptionData {
	sd := body.SubscriptionData{Topic: s.Topic, SubString: s.SubString, ExpressionType: s.ExpressionType,
		SubVersion: body.Int64(s.SubVersion), TagsSet: s.Tags}
	for c := range s.Codes {
		sd.CodeSet = append(sd.CodeSet, int32(c))
	}
	return sd
}

// ConsumedBy lists the groups consuming a topic: those subscribed to it, then those with offsets
// on it, each once.
func (s *Service) ConsumedBy(name string) []string {
	seen := map[string]bool{}
	var groups []string
	for _, g := range append(s.Consumers.GroupsOf(name), s.Offsets.GroupsOfTopic(name)...) {
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	return groups
}

func (s *Service) queue(name string, q int32) body.MessageQueue {
	return body.MessageQueue{Topic: name, BrokerName: s.opts.BrokerName, QueueID: q}
}
