package namesrv

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestGoClientReadsRoutes has rocketmq-client-go fetch a route and the topic list from the name
// server: its hand-written route parser (brokerAddrs split as text) must see both brokers.
func TestGoClientReadsRoutes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rocketmq-client-go client")
	}
	rlog.SetLogLevel("error")
	s := startServer(t, nil)
	requireCode(t, remotingtest.Dial(t, s.addr).RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, remotingtest.Dial(t, s.addr).RoundTrip(registerRequest(brokerB, topics(1, topicCfg("T", 2, 6)), true, nil)), protocol.Success)
	requireCode(t, remotingtest.Dial(t, s.addr).RoundTrip(registerRequest(slaveA, topics(1), false, nil)), protocol.Success)

	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{s.addr})))
	require.NoError(t, err)
	defer adm.Close()

	mqs, err := adm.FetchPublishMessageQueues(context.Background(), "T")
	require.NoError(t, err)
	var got []primitive.MessageQueue
	for _, mq := range mqs {
		got = append(got, *mq)
	}
	sort.Slice(got, func(i, j int) bool {
		if got[i].BrokerName != got[j].BrokerName {
			return got[i].BrokerName < got[j].BrokerName
		}
		return got[i].QueueId < got[j].QueueId
	})
	want := []primitive.MessageQueue{}
	for q := range 4 {
		want = append(want, primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueId: q})
	}
	for q := range 2 {
		want = append(want, primitive.MessageQueue{Topic: "T", BrokerName: "broker-b", QueueId: q})
	}
	require.Equal(t, want, got)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	list, err := adm.FetchAllTopicList(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"T"}, list.TopicList)
}
