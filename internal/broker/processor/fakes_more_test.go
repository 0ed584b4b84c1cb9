package processor_test

import (
	"context"
	"net/netip"

	"github.com/rocketgo/rocketgo/internal/broker/queueoffset"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// The fakes of the services' operations the Java clients and Apache's admin tools added.

type checkSubCall struct{ D body.SubscriptionData }

func (f *fakes) CheckSubscription(d body.SubscriptionData) error {
	return f.called(checkSubCall{d}).err
}

type replyCall struct{ R send.Request }

func (f *fakes) Reply(_ context.Context, r send.Request) (send.ReplyResult, error) {
	r.BornHost = netip.AddrPortFrom(r.BornHost.Addr(), 0)
	a := f.called(replyCall{r})
	return a.replyResult, a.err
}

type (
	topicList struct{ List []body.TopicConfig }
	groupList struct {
		List []body.SubscriptionGroupConfig
	}
	statsDataCall struct{ Name, Key string }
	correction    struct{ Topic, Filter, Compare string }
)

func (t topics) Config(name string) (body.TopicConfig, error) {
	a := t.called("config " + name)
	return body.NewTopicConfig(name), a.err
}
func (t topics) UpdateList(list []body.TopicConfig) error { return t.called(topicList{list}).err }

func (g groups) Config(group string) (body.SubscriptionGroupConfig, error) {
	a := g.called("config " + group)
	return body.NewSubscriptionGroupConfig(group), a.err
}
func (g groups) UpdateList(list []body.SubscriptionGroupConfig, _ string) error {
	return g.called(groupList{list}).err
}

func (s statsFake) ProducerConnections(group string) (body.ProducerConnection, error) {
	a := s.called("producers " + group)
	return body.ProducerConnection{ConnectionSet: []body.Connection{{ClientID: "p1", Language: "JAVA"}}}, a.err
}
func (s statsFake) AllProducers() body.ProducerTableInfo {
	s.called("all producers")
	return body.ProducerTableInfo{Data: map[string][]body.ProducerInfo{"PG": {{ClientID: "p1"}}}}
}
func (s statsFake) BrokerConsumeStats(onlyOrder bool) body.ConsumeStatsList {
	s.called(onlyOrder)
	return body.ConsumeStatsList{BrokerAddr: "b:1", TotalDiff: 3}
}
func (s statsFake) BrokerStats(name, key string) (body.BrokerStatsData, error) {
	a := s.called(statsDataCall{name, key})
	return body.BrokerStatsData{StatsMinute: body.BrokerStatsItem{Sum: 4}}, a.err
}

// offsetAdmin is the OffsetAdmin service of fakes.
type offsetAdmin struct{ *fakes }

func (o offsetAdmin) Clone(r queueoffset.CloneRequest) error { return o.called(r).err }
func (o offsetAdmin) CorrectionOffsets(topic, filter, compare string) (map[int32]int64, error) {
	a := o.called(correction{topic, filter, compare})
	return map[int32]int64{0: 5}, a.err
}
func (o offsetAdmin) ConsumeQueue(q queueoffset.QueueQuery) (body.QueryConsumeQueueResponseBody, error) {
	a := o.called(q)
	return body.QueryConsumeQueueResponseBody{MaxQueueIndex: 9, QueueData: []body.ConsumeQueueData{{PhysicOffset: 64}}}, a.err
}
