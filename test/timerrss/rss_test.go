// Package timerrss measures the broker's memory with many pending timer messages: it starts the
// real binaries, sends TIMER_RSS_COUNT (default 1,000,000) timer messages due in an hour, and
// prints the broker's resident memory (VmRSS, and its anonymous and file-backed parts) at every
// tenth of the way. It is skipped unless TIMER_RSS=1 (docs/timer.md has the figures).
// TIMER_RSS_BASELINE=1 sends the same messages without a delivery time, for comparison:
//
//	make build && TIMER_RSS=1 go test -count=1 -timeout 30m -v ./test/timerrss/
//	make build && TIMER_RSS=1 TIMER_RSS_BASELINE=1 go test -count=1 -timeout 30m -v ./test/timerrss/
package timerrss

import (
	"context"
	"fmt"
	"os"
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

const senders = 64

// baseline: send plain messages (TIMER_RSS_BASELINE=1).
var baseline = os.Getenv("TIMER_RSS_BASELINE") == "1"

func TestPendingTimersRSS(t *testing.T) {
	if os.Getenv("TIMER_RSS") != "1" {
		t.Skip("TIMER_RSS=1 runs the measurement (minutes)")
	}
	total := int64(1_000_000)
	if v, err := strconv.ParseInt(os.Getenv("TIMER_RSS_COUNT"), 10, 64); err == nil && v > 0 {
		total = v
	}
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"mappedFileSizeCommitLog": strconv.Itoa(1 << 30)}})
	b := c.Brokers[0]
	cli := remoting.NewClient(remoting.ClientOptions{RequestTimeout: 30 * time.Second}, nil)
	t.Cleanup(func() { _ = cli.Close() })
	due := time.Now().Add(time.Hour).UnixMilli()
	t.Logf("count\tVmRSS MiB\tRssAnon MiB\tRssFile MiB\tpending (GET_TIMER_METRICS)")
	report(t, cli, b, 0)
	var sent atomic.Int64
	step := total / 10
	for mark := step; mark <= total; mark += step {
		sendUpTo(t, cli, b.Addr, &sent, mark, due)
		if !baseline {
			waitPending(t, cli, b.Addr, mark)
			require.Equal(t, mark, pending(t, cli, b.Addr), "each timer message taken into the wheel once")
		}
		report(t, cli, b, mark)
	}
}

// sendUpTo sends timer messages until sent reaches n.
func sendUpTo(t *testing.T, cli *remoting.Client, addr string, sent *atomic.Int64, n, due int64) {
	var wg sync.WaitGroup
	var failed atomic.Value
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := sent.Add(1); i <= n; i = sent.Add(1) {
				if err := send(cli, addr, i, due); err != nil {
					failed.Store(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sent.Store(n)
	if err, ok := failed.Load().(error); ok {
		t.Fatal(err)
	}
}

func send(cli *remoting.Client, addr string, i, due int64) error {
	p := map[string]string{
		message.PropertyTimerDeliverMS:      strconv.FormatInt(due+i%3_600_000, 10),
		message.PropertyUniqClientMessageID: fmt.Sprintf("RSS%029d", i),
	}
	if baseline {
		p["NO_TIMER"] = p[message.PropertyTimerDeliverMS] // the same size, no delivery time
		delete(p, message.PropertyTimerDeliverMS)
	}
	props := message.EncodeProperties(p)
	req := protocol.NewHeaderRequest(protocol.SendMessage, &protocol.SendMessageRequestHeader{
		ProducerGroup: "PG_RSS", Topic: "RSS_TIMER", DefaultTopic: "TBW102", DefaultTopicQueueNums: 4,
		QueueID: int32(i % 4), BornTimestamp: time.Now().UnixMilli(), Properties: protocol.Some(props),
	}, []byte("pending timer message body, 64 bytes long...................."))
	resp, err := cli.Invoke(context.Background(), addr, req)
	if err != nil {
		return err
	}
	if resp.ResponseCode() != protocol.Success {
		return fmt.Errorf("send %d: code %d %s", i, resp.Code, resp.Remark)
	}
	return nil
}

// waitPending waits until GET_TIMER_METRICS counts n pending messages.
func waitPending(t *testing.T, cli *remoting.Client, addr string, n int64) {
	deadline := time.Now().Add(5 * time.Minute)
	for pending(t, cli, addr) < n {
		if time.Now().After(deadline) {
			t.Fatalf("pending timers did not reach %d", n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func pending(t *testing.T, cli *remoting.Client, addr string) int64 {
	resp, err := cli.Invoke(context.Background(), addr, protocol.NewRequest(protocol.GetTimerMetrics, nil, nil))
	require.NoError(t, err)
	s := string(resp.Body)
	i := strings.Index(s, `"RSS_TIMER":{"count":`)
	if i < 0 {
		return 0
	}
	s = s[i+len(`"RSS_TIMER":{"count":`):]
	n, _ := strconv.ParseInt(s[:strings.IndexAny(s, ",}")], 10, 64)
	return n
}

// report logs the broker's resident memory from /proc/<pid>/status.
func report(t *testing.T, cli *remoting.Client, b *cluster.Broker, count int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", b.Pid()))
	require.NoError(t, err)
	kb := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && strings.HasPrefix(f[0], "Rss") || len(f) >= 2 && f[0] == "VmRSS:" {
			kb[strings.TrimSuffix(f[0], ":")], _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	t.Logf("%d\t%d\t%d\t%d\t%d", count, kb["VmRSS"]/1024, kb["RssAnon"]/1024, kb["RssFile"]/1024, pending(t, cli, b.Addr))
}
