package timerrss

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestTimerLateness measures how long after the time asked timer messages are stored in their
// topic, at the default precision (500 ms) or TIMER_PRECISION_MS: 5000 messages due at random
// moments over 20 s. Skipped unless TIMER_LATENESS=1:
//
//	make build && TIMER_LATENESS=1 go test -count=1 -v -run Lateness ./test/timerrss/
func TestTimerLateness(t *testing.T) {
	if os.Getenv("TIMER_LATENESS") != "1" {
		t.Skip("TIMER_LATENESS=1 runs the measurement")
	}
	props := map[string]string{}
	if p := os.Getenv("TIMER_PRECISION_MS"); p != "" {
		props["timerPrecisionMs"] = p
	}
	c := cluster.Start(t, cluster.Options{BrokerProps: props})
	b := c.Brokers[0]
	cli := remoting.NewClient(remoting.ClientOptions{RequestTimeout: 30 * time.Second}, nil)
	t.Cleanup(func() { _ = cli.Close() })
	const n = 5000
	due := map[string]int64{}
	start := time.Now().UnixMilli() + 2000
	for i := range n {
		at := start + rand.Int64N(20_000)
		id := "LATE" + strconv.Itoa(i)
		due[id] = at
		req := protocol.NewHeaderRequest(protocol.SendMessage, &protocol.SendMessageRequestHeader{
			ProducerGroup: "PG_LATE", Topic: "LATENESS", DefaultTopic: "TBW102", DefaultTopicQueueNums: 1,
			BornTimestamp: time.Now().UnixMilli(), Properties: protocol.Some(message.EncodeProperties(map[string]string{
				message.PropertyTimerDeliverMS: strconv.FormatInt(at, 10), message.PropertyUniqClientMessageID: id}))},
			[]byte("x"))
		resp, err := cli.Invoke(context.Background(), b.Addr, req)
		require.NoError(t, err)
		require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	}
	time.Sleep(time.Until(time.UnixMilli(start+20_000)) + 3*time.Second)
	var late []int64
	for off := int64(0); ; {
		resp, err := cli.Invoke(context.Background(), b.Addr, protocol.NewHeaderRequest(protocol.PullMessage,
			&protocol.PullMessageRequestHeader{ConsumerGroup: "CG_LATE", Topic: "LATENESS", QueueOffset: off,
				MaxMsgNums: 32, SysFlag: 4, Subscription: protocol.Some("*")}, nil))
		require.NoError(t, err)
		if resp.ResponseCode() != protocol.Success {
			break
		}
		ms, err := message.DecodeAll(resp.Body, false)
		require.NoError(t, err)
		for _, m := range ms {
			late = append(late, m.StoreTimestamp-due[m.UniqKey()])
			off = m.QueueOffset + 1
		}
	}
	require.Len(t, late, n)
	slices.Sort(late)
	t.Logf("%d timer messages, stored after the time asked (ms): min=%d p50=%d p90=%d p99=%d max=%d",
		n, late[0], late[n/2], late[n*9/10], late[n*99/100], late[n-1])
	require.GreaterOrEqual(t, late[0], int64(0), "none early")
}
