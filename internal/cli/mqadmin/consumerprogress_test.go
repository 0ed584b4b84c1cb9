package mqadmin

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestConsumerProgress: with -g one line per queue with the broker's and the group's offsets and
// the lag in 4.9's columns, then the totals; -s true adds the Client IP column, -t one topic;
// without -g one line per group.
func TestConsumerProgress(t *testing.T) {
	cl := admintest.Start(t)
	b := cl.Brokers[0]
	cl.CreateTopic(t, "Prog", 2)
	for range 5 {
		admintest.Send(t, b, brokertest.Msg{Topic: "Prog", QueueID: 0, Body: []byte("x")})
	}
	admintest.Send(t, b, brokertest.Msg{Topic: "Prog", QueueID: 1, Body: []byte("y")})
	admintest.Heartbeat(t, b, "10.1.1.1@7", "ProgGroup", map[string]string{"Prog": "*"})
	admintest.CommitOffset(t, b, "ProgGroup", "Prog", 0, 2)
	admintest.CommitOffset(t, b, "ProgGroup", "Prog", 1, 1)
	cl.WaitRoute(t, "%RETRY%ProgGroup")
	consumed := b.Store().MessageStoreTime("Prog", 0, 1)

	out := mustRunAdmin(t, "consumerProgress", "-g", "ProgGroup", "-n", cl.NamesrvAddr)
	ls := lines(out)
	require.Len(t, ls, 6, out)
	require.Regexp(t, `^#Topic\s+#Broker Name\s+#QID\s+#Broker Offset\s+#Consumer Offset\s+#Diff\s+#LastTime$`, ls[0])
	require.Regexp(t, `^Prog {60}\s+broker-a\s+0\s+5\s+2\s+3\s+`+dateTime(consumed)+`$`, ls[1])
	require.Regexp(t, `^Prog\s+broker-a\s+1\s+1\s+1\s+0\s+\S`, ls[2])
	require.Equal(t, []string{"", "Consume TPS: 0.00", "Diff Total: 3"}, ls[3:])

	// -s true adds the Client IP column; the heartbeat's client cannot be asked for its running
	// info, so its queues read N/A as in Java. -t (RocketMQ 5) keeps one topic.
	out = mustRunAdmin(t, "consumerProgress", "-g", "ProgGroup", "-s", "true", "-t", "Prog", "-n", cl.NamesrvAddr)
	ls = lines(out)
	require.Len(t, ls, 6, out)
	require.Regexp(t, `^#Topic\s+#Broker Name\s+#QID\s+#Broker Offset\s+#Consumer Offset\s+#Client IP\s+#Diff\s+#LastTime$`, ls[0])
	require.Regexp(t, `^Prog\s+broker-a\s+0\s+5\s+2\s+N/A\s+3\s+`+dateTime(consumed)+`$`, ls[1])
	out = mustRunAdmin(t, "consumerProgress", "-g", "ProgGroup", "-t", "%RETRY%ProgGroup", "-n", cl.NamesrvAddr)
	require.NotContains(t, out, "Prog ", out)
	require.Contains(t, out, "%RETRY%ProgGroup", out)

	out = mustRunAdmin(t, "consumerProgress", "-n", cl.NamesrvAddr)
	require.Regexp(t, `^#Group\s+#Count\s+#Version\s+#Type\s+#Model\s+#TPS\s+#Diff Total$`, lines(out)[0])
	requireLine(t, out, `^ProgGroup\s+1\s+V4_9_8\s+PUSH\s+CLUSTERING\s+0\s+3$`)

	_, errOut, err := runAdmin(t, "consumerProgress", "-g", "NoGroup", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "offset table is empty")
}

// TestConsumeStatsClientIP: the Client IP column comes from each member's running info when the
// broker relays GET_CONSUMER_RUNNING_INFO (here a stand-in broker answers it): the part of the
// client id before '@', as Java's consumerProgress prints it.
func TestConsumeStatsClientIP(t *testing.T) {
	mq0 := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 0}
	mq1 := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 1}
	cs := &body.ConsumeStats{ConsumeTps: 1.5, OffsetTable: map[body.MessageQueue]body.OffsetWrapper{
		mq0: {BrokerOffset: 4, ConsumerOffset: 4}, mq1: {BrokerOffset: 9, ConsumerOffset: 2},
	}}
	statsBody, err := cs.Encode()
	require.NoError(t, err)
	conns, err := body.Marshal(body.ConsumerConnection{ConnectionSet: []body.Connection{
		{ClientID: "10.2.3.4@5555", ClientAddr: "127.0.0.1:5555", Language: "GO", Version: 317}}})
	require.NoError(t, err)
	answers := map[protocol.RequestCode][]byte{
		protocol.GetConsumeStats:           statsBody,
		protocol.GetConsumerConnectionList: conns,
		// The Go client writes mqTable with MessageQueue objects as keys, as fastjson does.
		protocol.GetConsumerRunningInfo: []byte(`{"mqTable":{{"brokerName":"b","queueId":1,"topic":"T"}:{"cachedMsgCount":0}},"properties":{}}`),
	}
	// The stand-in also plays the name server: the group's retry route points back at it, once
	// its address is known.
	var route atomic.Pointer[[]byte]
	srv := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.HandleDefault(remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = answers[req.RequestCode()]
			if req.RequestCode() == protocol.GetRouteinfoByTopic {
				resp.Body = *route.Load()
			}
			return resp
		}))
	})
	addr := srv.Addr().String()
	rb, err := (&body.TopicRouteData{BrokerDatas: []body.BrokerData{{BrokerName: "b", BrokerAddrs: body.BrokerAddrs{0: addr}}}}).Encode()
	require.NoError(t, err)
	route.Store(&rb)

	c := admin.New(admin.Options{NamesrvAddrs: []string{addr}}, nil)
	defer c.Close()
	owners, err := c.QueueOwners(context.Background(), "G")
	require.NoError(t, err)
	require.Equal(t, map[body.MessageQueue]string{mq1: "10.2.3.4"}, owners)

	var buf bytes.Buffer
	printConsumeStats(&buf, cs, owners)
	ls := lines(buf.String())
	require.Regexp(t, `^T\s+b\s+0\s+4\s+4\s+N/A\s+0\s+N/A$`, ls[1])
	require.Regexp(t, `^T\s+b\s+1\s+9\s+2\s+10\.2\.3\.4\s+7\s+N/A$`, ls[2])
	require.Equal(t, []string{"", "Consume TPS: 1.50", "Diff Total: 7"}, ls[3:])
}
