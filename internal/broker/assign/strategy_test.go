package assign

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func mqs(n int) []body.MessageQueue {
	out := make([]body.MessageQueue, n)
	for i := range out {
		out[i] = body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: int32(i)}
	}
	return out
}

func ids(q []body.MessageQueue) []int32 {
	out := []int32{}
	for _, m := range q {
		out = append(out, m.QueueID)
	}
	return out
}

// TestStrategies: Java's AVG and AVG_BY_CIRCLE on 5 queues and 3 clients, and a stranger.
func TestStrategies(t *testing.T) {
	cids := []string{"a", "b", "c"}
	for _, tc := range []struct {
		s    strategy
		cid  string
		want []int32
	}{
		{averagely, "a", []int32{0, 1}}, {averagely, "b", []int32{2, 3}}, {averagely, "c", []int32{4}},
		{byCircle, "a", []int32{0, 3}}, {byCircle, "b", []int32{1, 4}}, {byCircle, "c", []int32{2}},
		{averagely, "x", []int32{}}, {byCircle, "x", []int32{}},
	} {
		require.Equal(t, tc.want, ids(tc.s(tc.cid, mqs(5), cids)), "%s", tc.cid)
	}
	require.Equal(t, []int32{}, ids(averagely("b", mqs(1), []string{"a", "b"})), "more clients than queues: the last get none")
}

// TestAllocatePop: Java's allocate4Pop.
func TestAllocatePop(t *testing.T) {
	all := append(mqs(4), body.MessageQueue{Topic: "T", BrokerName: "c", QueueID: 0})
	whole := allocatePop(averagely, "a", all, []string{"a", "b"}, 0)
	require.Equal(t, []body.MessageQueue{{Topic: "T", BrokerName: "b", QueueID: -1}, {Topic: "T", BrokerName: "c", QueueID: -1}}, whole)
	require.Equal(t, whole, allocatePop(averagely, "a", all, []string{"a", "b"}, 1), "share ≥ the other clients: all")
	require.Equal(t, []int32{0, 1, 2, 3}, ids(allocatePop(averagely, "a", mqs(6), []string{"a", "b", "c"}, 1)))
	require.Equal(t, []int32{1}, ids(allocatePop(averagely, "b", mqs(2), []string{"a", "b", "c", "d"}, 1)))
}

type fakeDeps struct{ topics map[string]bool }

func (f fakeDeps) Get(topic string) (body.TopicConfig, bool) {
	return body.NewTopicConfig(topic), f.topics[topic]
}
func (fakeDeps) FindOrCreate(g string) (body.SubscriptionGroupConfig, bool) {
	return body.NewSubscriptionGroupConfig(g), g != "NoGroup"
}
func (fakeDeps) ClientIDs(string) []string                      { return []string{"c2", "c1"} }
func (fakeDeps) TopicQueues(string) ([]body.MessageQueue, bool) { return mqs(4), true }

// TestModes: a set mode survives a reload of the file and is told to ModeChanged; retry topics
// are always pulled.
func TestModes(t *testing.T) {
	dir := t.TempDir()
	d := fakeDeps{topics: map[string]bool{"T": true}}
	var changed []string
	newSvc := func() *Service {
		s, err := New(Options{StorePathRootDir: dir, ServerLoadBalancerEnable: true,
			ModeChanged: func(topic, group string) { changed = append(changed, topic+"/"+group) }},
			Deps{Topics: d, Groups: d, Consumers: d, Routes: d}, zap.NewNop())
		require.NoError(t, err)
		return s
	}
	s := newSvc()
	got, ok, err := s.Assign(Query{Topic: "T", ConsumerGroup: "G", ClientID: "c1", StrategyName: "AVG"})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, body.RequestModePull, got[0].Mode)
	require.Equal(t, []int32{0, 1}, ids([]body.MessageQueue{got[0].MessageQueue, got[1].MessageQueue}))
	require.NoError(t, s.SetMode(body.SetMessageRequestModeRequestBody{Topic: "T", ConsumerGroup: "G", Mode: body.RequestModePop}))
	require.Equal(t, []string{"T/G"}, changed)
	require.Equal(t, body.RequestModePop, s.Mode("T", "G"))
	require.Equal(t, body.RequestModePull, s.Mode("T", "G2"), "a group no one set pulls (the default)")
	require.True(t, outcome.Is(s.SetMode(body.SetMessageRequestModeRequestBody{Topic: "T", ConsumerGroup: "NoGroup",
		Mode: body.RequestModePop}), outcome.GroupNotExist))
	got, _, _ = newSvc().Assign(Query{Topic: "T", ConsumerGroup: "G", ClientID: "c1", StrategyName: "AVG"})
	require.Equal(t, []body.MessageQueueAssignment{{MessageQueue: body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: -1},
		Mode: body.RequestModePop}}, got, "kept in the file")
	require.Equal(t, body.RequestModePull, s.mode("%RETRY%G", "G").Mode)
}

// TestNamesFromTheWireAreChecked: a topic, group or client id that is not a valid name is
// refused before it reaches the modes table, the route lookup or the file.
func TestNamesFromTheWireAreChecked(t *testing.T) {
	d := fakeDeps{topics: map[string]bool{"T": true}}
	s, err := New(Options{StorePathRootDir: t.TempDir(), ServerLoadBalancerEnable: true},
		Deps{Topics: d, Groups: d, Consumers: d, Routes: d}, zap.NewNop())
	require.NoError(t, err)
	for _, q := range []Query{
		{Topic: "T/../x", ConsumerGroup: "G", ClientID: "c1"},
		{Topic: "T", ConsumerGroup: "G\n", ClientID: "c1"},
		{Topic: "T", ConsumerGroup: strings.Repeat("g", 256), ClientID: "c1"},
		{Topic: "T", ConsumerGroup: "G", ClientID: "c 1"},
		{Topic: "T", ConsumerGroup: "G", ClientID: ""},
	} {
		_, ok, err := s.Assign(q)
		require.Error(t, err, "%+v", q)
		require.False(t, ok)
	}
	for _, m := range []body.SetMessageRequestModeRequestBody{
		{Topic: "T\x00", ConsumerGroup: "G", Mode: body.RequestModePop},
		{Topic: "T", ConsumerGroup: "", Mode: body.RequestModePop},
	} {
		require.Error(t, s.SetMode(m))
	}
	require.Empty(t, s.All().MessageRequestModeMap)
}
