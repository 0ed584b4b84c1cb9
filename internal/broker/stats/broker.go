package stats

import (
	"errors"
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Groups lists the consumer groups the broker has configs for.
type Groups interface {
	Groups() []string
}

// Counters are the broker's throughput counters (brokerstats.Manager).
type Counters interface {
	Data(name, key string) (body.BrokerStatsData, bool)
}

// groupGetNums is the counter of the messages a group pulled from a topic (brokerstats).
const groupGetNums = "GROUP_GET_NUMS"

// BrokerStats is one throughput counter's minute, hour and day figures (VIEW_BROKER_STATS_DATA).
func (s *Service) BrokerStats(name, key string) (body.BrokerStatsData, error) {
	if err := checkStatsKey(name, key); err != nil {
		return body.BrokerStatsData{}, err
	}
	if d, ok := s.Counters.Data(name, key); ok {
		return d, nil
	}
	return body.BrokerStatsData{}, outcome.Errorf(outcome.SystemError, "The stats <%s> <%s> not exist", name, key)
}

// checkStatsKey refuses a stats name or key that is not a name before it reaches the counters
// or a remark: topic@group parts are checked as a topic and a group; another key (a topic, or
// the cluster's name, which need not be a topic name) must be 1 to 255 printable ASCII
// characters without blanks.
func checkStatsKey(name, key string) error {
	if name == "" || !names.ValidChars(name) || len(name) > 64 {
		return outcome.Errorf(outcome.SystemError, "The stats name %s is not a stats name", names.Quote(name))
	}
	bad := func(why error) error {
		return outcome.Errorf(outcome.SystemError, "The stats key %s is not a topic, topic@group or cluster name: %v",
			names.Quote(key), why)
	}
	if topic, group, ok := strings.Cut(key, "@"); ok {
		if err := names.Topic(topic); err != nil {
			return bad(err)
		}
		if err := names.Group(group); err != nil {
			return bad(err)
		}
		return nil
	}
	if key == "" || len(key) > 255 || strings.IndexFunc(key, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0 {
		return bad(errors.New("not 1 to 255 printable characters"))
	}
	return nil
}

// BrokerConsumeStats is every configured group's progress on each topic it has offsets on
// (GET_BROKER_CONSUME_STATS), only ordered topics when onlyOrder; an online group's topics are
// those it subscribes to. TotalDiff is the lag summed over them all.
func (s *Service) BrokerConsumeStats(onlyOrder bool) body.ConsumeStatsList {
	l := body.ConsumeStatsList{BrokerAddr: s.opts.BrokerAddr}
	for _, group := range s.Groups.Groups() {
		var list []body.ConsumeStats
		for _, name := range s.Offsets.TopicsOfGroup(group) {
			cs, ok := s.topicProgress(group, name, onlyOrder)
			if !ok {
				continue
			}
			for _, w := range cs.OffsetTable {
				l.TotalDiff += w.BrokerOffset - w.ConsumerOffset
			}
			list = append(list, cs)
		}
		l.ConsumeStatsList = append(l.ConsumeStatsList, map[string][]body.ConsumeStats{group: list})
	}
	return l
}

// topicProgress is a group's progress on each write queue of one topic, false for a topic that
// is gone, not ordered when onlyOrder, or not subscribed by the online group.
func (s *Service) topicProgress(group, name string, onlyOrder bool) (body.ConsumeStats, bool) {
	tc, ok := s.Topics.Get(name)
	if !ok || onlyOrder && !tc.Order {
		return body.ConsumeStats{}, false
	}
	if g, online := s.Consumers.Group(group); online && len(g.Subscriptions) > 0 && !subscribes(g.Subscriptions, name) {
		return body.ConsumeStats{}, false
	}
	cs := body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
	s.addProgress(cs.OffsetTable, group, name, tc.WriteQueueNums)
	if d, ok := s.Counters.Data(groupGetNums, name+"@"+group); ok {
		cs.ConsumeTps = d.StatsMinute.Tps
	}
	return cs, true
}

func subscribes(subs []*client.Subscription, topic string) bool {
	for _, sub := range subs {
		if sub.Topic == topic {
			return true
		}
	}
	return false
}
