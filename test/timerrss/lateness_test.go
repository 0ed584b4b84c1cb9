package timerrss

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestTimerLateness measures how long after the time asked timer messages are stored in their
// topic, at the default precision (500 ms) or TIMER_PRECISION_MS: TIMER_LATENESS_N messages
// (5000) due at random moments over TIMER_LATENESS_SPREAD_MS (20 s). Skipped unless
// TIMER_LATENESS=1:
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
	n, spread := envInt("TIMER_LATENESS_N", 5000), int64(envInt("TIMER_LATENESS_SPREAD_MS", 20_000))
	due := make([]int64, n)
	sendTime := time.Now()
	start := time.Now().UnixMilli() + 2000 + int64(n/10) // room for the sends (>10k/s)
	for i := range n {
		due[i] = start + rand.Int64N(spread)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				req := protocol.NewHeaderRequest(protocol.SendMessage, &protocol.SendMessageRequestHeader{
					ProducerGroup: "PG_LATE", Topic: "LATENESS", DefaultTopic: "TBW102", DefaultTopicQueueNums: 1,
					BornTimestamp: time.Now().UnixMilli(), Properties: protocol.Some(message.EncodeProperties(map[string]string{
						message.PropertyTimerDeliverMS:      strconv.FormatInt(due[i], 10),
						message.PropertyUniqClientMessageID: "LATE" + strconv.FormatInt(i, 10)}))},
					[]byte("x"))
				resp, err := cli.Invoke(context.Background(), b.Addr, req)
				if err != nil || resp.ResponseCode() != protocol.Success {
					t.Errorf("send %d: %v %v", i, err, resp)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.Less(t, time.Now().UnixMilli(), start, "the sends took longer than the room left for them")
	t.Logf("%d sends in %v", n, time.Since(sendTime).Round(time.Millisecond))
	time.Sleep(time.Until(time.UnixMilli(start+spread)) + 3*time.Second + time.Duration(n/10)*time.Millisecond)
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
			i, _ := strconv.Atoi(strings.TrimPrefix(m.UniqKey(), "LATE"))
			late = append(late, m.StoreTimestamp-due[i])
			off = m.QueueOffset + 1
		}
	}
	require.Len(t, late, n)
	slices.Sort(late)
	t.Logf("%d timer messages, stored after the time asked (ms): min=%d p50=%d p90=%d p99=%d max=%d",
		n, late[0], late[n/2], late[n*9/10], late[n*99/100], late[n-1])
	require.GreaterOrEqual(t, late[0], int64(0), "none early")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
