package stats

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// fakeStore: queue q holds offsets [q, 10+q); the message at offset o was stored at 1000+o.
type fakeStore struct{}

func (fakeStore) RuntimeInfo() map[string]string {
	return map[string]string{"putMessageTimesTotal": "42"}
}
func (fakeStore) MinOffsetInQueue(_ string, q int32) int64 {
	if q == 0 {
		return -1 // an empty queue answers -1
	}
	return int64(q)
}
func (fakeStore) MaxOffsetInQueue(_ string, q int32) int64          { return 10 + int64(q) }
func (fakeStore) EarliestMessageTime(_ string, q int32) int64       { return 1000 + int64(q) }
func (fakeStore) MessageStoreTime(_ string, _ int32, o int64) int64 { return 1000 + o }

type fakeTopics map[string]body.TopicConfig

func (f fakeTopics) Get(t string) (body.TopicConfig, bool) {
	c, ok := f[t]
	return c, ok
}

type fakeOffsets map[string]map[string]map[int32]int64 // group → topic → queue → offset

func (f fakeOffsets) Query(g, t string, q int32) (int64, bool) {
	off, ok := f[g][t][q]
	return off, ok
}

func (f fakeOffsets) TopicsOfGroup(g string) []string {
	var out []string
	for t := range f[g] {
		out = append(out, t)
	}
	return out
}

func (f fakeOffsets) GroupsOfTopic(t string) []string {
	var out []string
	for g, ts := range f {
		if _, ok := ts[t]; ok {
			out = append(out, g)
		}
	}
	return out
}

type fakeConsumers map[string]client.GroupInfo

func (f fakeConsumers) Group(g string) (client.GroupInfo, bool) {
	info, ok := f[g]
	return info, ok
}

func (f fakeConsumers) GroupsOf(t string) []string {
	var out []string
	for g, info := range f {
		for _, s := range info.Subscriptions {
			if s.Topic == t {
				out = append(out, g)
			}
		}
	}
	return out
}

type channel struct{}

func (channel) ID() uint64                           { return 1 }
func (channel) RemoteAddr() string                   { return "10.0.0.1:5555" }
func (channel) InvokeOneway(*protocol.Command) error { return nil }

var boot = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newService(offsets fakeOffsets, consumers fakeConsumers) *Service {
	tc := body.NewTopicConfig("T")
	tc.ReadQueueNums, tc.WriteQueueNums = 3, 2
	s := New(Options{BrokerName: "broker-a", BootTime: boot, Version: 409, VersionDesc: "V4_9_8"},
		Deps{Store: fakeStore{}, Topics: fakeTopics{"T": tc}, Offsets: offsets, Consumers: consumers})
	s.now = func() time.Time { return boot.Add(26*time.Hour + 3*time.Minute + 4*time.Second) }
	return s
}

func mq(q int32) body.MessageQueue {
	return body.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: q}
}

func TestRuntimeInfo(t *testing.T) {
	m := newService(nil, nil).RuntimeInfo()
	require.Equal(t, "[ 1 days, 2 hours, 3 minutes, 4 seconds ]", m["runtime"])
	require.Equal(t, "1767225600000", m["bootTimestamp"])
	require.Equal(t, "409", m["brokerVersion"])
	require.Equal(t, "V4_9_8", m["brokerVersionDesc"])
	require.Equal(t, "42", m["msgPutTotalTodayNow"], "today's puts are the total")
	require.Equal(t, "0", m["msgGetTotalTodayMorning"])
	require.Equal(t, "10000", m["pullThreadPoolQueueCapacity"])
}

func TestTopicStats(t *testing.T) {
	s := newService(nil, nil)
	ts, err := s.TopicStats("T")
	require.NoError(t, err)
	require.Equal(t, map[body.MessageQueue]body.TopicOffset{
		mq(0): {MinOffset: 0, MaxOffset: 10, LastUpdateTimestamp: 1009},
		mq(1): {MinOffset: 1, MaxOffset: 11, LastUpdateTimestamp: 1010},
	}, ts.OffsetTable, "the write queues; an empty queue's min is 0")
	_, err = s.TopicStats("U")
	require.Equal(t, &outcome.Error{Kind: outcome.TopicNotExist, Remark: "topic[U] not exist"}, err)
}

func TestConsumeStats(t *testing.T) {
	s := newService(fakeOffsets{"G": {"T": {0: 4, 2: 0}, "Gone": {0: 1}}}, nil)
	want := map[body.MessageQueue]body.OffsetWrapper{
		mq(0): {BrokerOffset: 10, ConsumerOffset: 4, LastTimestamp: 1003, PullOffset: 4},
		mq(1): {BrokerOffset: 11},
		mq(2): {BrokerOffset: 12},
	}
	require.Equal(t, want, s.ConsumeStats("G", "").OffsetTable, "the read queues of the topics it has offsets on")
	require.Equal(t, want, s.ConsumeStats("G", "T").OffsetTable)
	require.Empty(t, s.ConsumeStats("G", "Gone").OffsetTable, "a topic that is gone")
}

func TestConnections(t *testing.T) {
	sub := client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "a"})
	s := newService(nil, fakeConsumers{"G": {ConsumeType: "CONSUME_PASSIVELY", MessageModel: "CLUSTERING",
		ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
		Members:          []client.ClientChannel{{Channel: channel{}, ClientID: "c1", Language: "GO", Version: 317}},
		Subscriptions:    []*client.Subscription{sub}}})
	cc, err := s.Connections("G")
	require.NoError(t, err)
	require.Equal(t, []body.Connection{{ClientID: "c1", ClientAddr: "10.0.0.1:5555", Language: "GO", Version: 317}}, cc.ConnectionSet)
	require.Equal(t, "CLUSTERING", cc.MessageModel)
	sd := cc.SubscriptionTable["T"]
	require.Equal(t, []string{"a"}, sd.TagsSet)
	require.Len(t, sd.CodeSet, 1)
	_, err = s.Connections("Nobody")
	require.Equal(t, &outcome.Error{Kind: outcome.ConsumerNotOnline, Remark: "the consumer group[Nobody] not online"}, err)
}

func TestConsumedBy(t *testing.T) {
	sub := client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "*"})
	s := newService(fakeOffsets{"G1": {"T": {0: 1}}, "G2": {"T": {0: 1}}},
		fakeConsumers{"G1": {Subscriptions: []*client.Subscription{sub}}})
	got := s.ConsumedBy("T")
	require.Equal(t, "G1", got[0], "subscribers first")
	require.ElementsMatch(t, []string{"G1", "G2"}, got, "each once")
	require.Empty(t, s.ConsumedBy("U"))
}

func TestTimeSpans(t *testing.T) {
	s := newService(fakeOffsets{"G": {"T": {0: 4, 1: 11}}}, nil)
	spans, err := s.TimeSpans("T", "G")
	require.NoError(t, err)
	now := s.now().UnixMilli()
	require.Equal(t, []QueueTimeSpan{
		{MessageQueue: mq(0), MinTimeStamp: 1000, MaxTimeStamp: 1009, ConsumeTimeStamp: 1003, DelayTime: now - 1004},
		{MessageQueue: mq(1), MinTimeStamp: 1001, MaxTimeStamp: 1010, ConsumeTimeStamp: 1010, DelayTime: 0},
	}, spans, "queue 1 is consumed to its end")

	spans, err = s.TimeSpans("T", "New")
	require.NoError(t, err)
	require.Equal(t, int64(1000), spans[0].ConsumeTimeStamp, "a group without offsets is at the start")
	require.Equal(t, now-1000, spans[0].DelayTime)
	_, err = s.TimeSpans("U", "G")
	require.Equal(t, &outcome.Error{Kind: outcome.TopicNotExist, Remark: "topic[U] not exist"}, err)
}
