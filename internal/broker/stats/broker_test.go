package stats

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

type fakeProducers map[string][]client.ClientChannel

func (f fakeProducers) Channels(g string) []client.ClientChannel { return f[g] }
func (f fakeProducers) All() map[string][]client.ClientChannel   { return f }

type fakeGroups []string

func (f fakeGroups) Groups() []string { return f }

type fakeCounters map[string]body.BrokerStatsData

func (f fakeCounters) Data(name, key string) (body.BrokerStatsData, bool) {
	d, ok := f[name+" "+key]
	return d, ok
}

func TestProducers(t *testing.T) {
	s := newService(nil, nil)
	seen := time.UnixMilli(1_700_000_000_123)
	s.Producers = fakeProducers{"PG": {{Channel: channel{}, ClientID: "p1", Language: "JAVA", Version: 409, LastUpdate: seen}}}
	pc, err := s.ProducerConnections("PG")
	require.NoError(t, err)
	require.Equal(t, []body.Connection{{ClientID: "p1", ClientAddr: "10.0.0.1:5555", Language: "JAVA", Version: 409}}, pc.ConnectionSet)
	_, err = s.ProducerConnections("Nobody")
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "the producer group[Nobody] not exist"}, err)
	require.Equal(t, body.ProducerTableInfo{Data: map[string][]body.ProducerInfo{"PG": {{ClientID: "p1",
		RemoteIP: "/10.0.0.1:5555", Language: "JAVA", Version: 409, LastUpdateTimestamp: 1_700_000_000_123}}}},
		s.AllProducers())
}

func TestBrokerStats(t *testing.T) {
	s := newService(nil, nil)
	d := body.BrokerStatsData{StatsMinute: body.BrokerStatsItem{Sum: 5, Tps: 0.5, Avgpt: 1}}
	s.Counters = fakeCounters{"TOPIC_PUT_NUMS T": d}
	got, err := s.BrokerStats("TOPIC_PUT_NUMS", "T")
	require.NoError(t, err)
	require.Equal(t, d, got)
	_, err = s.BrokerStats("TOPIC_PUT_NUMS", "U")
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "The stats <TOPIC_PUT_NUMS> <U> not exist"}, err)
	s.Counters = fakeCounters{"GROUP_GET_NUMS T@G": d, "BROKER_PUT_NUMS my.cluster": d}
	_, err = s.BrokerStats("GROUP_GET_NUMS", "T@G")
	require.NoError(t, err)
	_, err = s.BrokerStats("BROKER_PUT_NUMS", "my.cluster")
	require.NoError(t, err, "a cluster name need not be a topic name")
}

// TestBrokerStatsNames: a stats name or key that is not a name is refused, quoted and cut in the
// remark, before it reaches the counters.
func TestBrokerStatsNames(t *testing.T) {
	s := newService(nil, nil)
	s.Counters = fakeCounters{}
	for _, c := range [][2]string{{"TOPIC_PUT_NUMS", "a\nb"}, {"TOPIC_PUT_NUMS", ""}, {"TOPIC_PUT_NUMS", strings.Repeat("k", 300)},
		{"GROUP_GET_NUMS", "T@bad group"}, {"GROUP_GET_NUMS", "../x@G"}, {"BAD NAME", "T"}, {"", "T"}} {
		_, err := s.BrokerStats(c[0], c[1])
		k, remark := outcome.Of(err)
		require.Equal(t, outcome.SystemError, k, "%q", c)
		require.Contains(t, remark, "is not a", "%q", c)
		require.Less(t, len(remark), 300)
		require.NotContains(t, remark, "\n")
	}
}

func TestBrokerConsumeStats(t *testing.T) {
	sub := client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "*"})
	s := newService(fakeOffsets{"G": {"T": {0: 4, 1: 11}}, "Online": {"T": {0: 1}, "O": {0: 1}}, "Idle": {}},
		fakeConsumers{"Online": {Subscriptions: []*client.Subscription{sub}}})
	s.opts.BrokerAddr = "10.0.0.9:10911"
	s.Groups = fakeGroups{"G", "Idle", "Online"}
	s.Counters = fakeCounters{"GROUP_GET_NUMS T@G": {StatsMinute: body.BrokerStatsItem{Tps: 2.5}}}
	l := s.BrokerConsumeStats(false)
	require.Equal(t, "10.0.0.9:10911", l.BrokerAddr)
	require.Len(t, l.ConsumeStatsList, 3, "every configured group")
	g := l.ConsumeStatsList[0]["G"]
	require.Len(t, g, 1)
	require.Equal(t, 2.5, g[0].ConsumeTps)
	require.Equal(t, map[body.MessageQueue]body.OffsetWrapper{
		mq(0): {BrokerOffset: 10, ConsumerOffset: 4, LastTimestamp: 1003, PullOffset: 4},
		mq(1): {BrokerOffset: 11, ConsumerOffset: 11, LastTimestamp: 1010, PullOffset: 11},
	}, g[0].OffsetTable, "the write queues")
	require.Empty(t, l.ConsumeStatsList[1]["Idle"])
	require.Len(t, l.ConsumeStatsList[2]["Online"], 1, "an online group's unsubscribed topic O is left out")
	require.Equal(t, int64(6+0+9+11), l.TotalDiff, "broker offset − consumer offset over every queue")
	require.Empty(t, s.BrokerConsumeStats(true).ConsumeStatsList[0]["G"], "T is not ordered")
}
