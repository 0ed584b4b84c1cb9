package crash

import (
	"context"
	"encoding/binary"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestTimerSlaveTakesOverAfterMasterKill: what a slave has of its master's timer messages when
// the master is lost, and what it does with them when it is started as the master.
//
// While the master delivers, its slave holds every timer message the master stored (in its copy
// of rmq_sys_wheel_timer), takes them into its own timer log and wheel, delivers none, and keeps
// the master's delivery progress (GET_TIMER_CHECK_POINT, synced with the metadata). After kill -9
// of the master the slave is started again on its store as the master: every timer message is then
// delivered exactly once, counting those the master had delivered (which reached the slave with
// the CommitLog), and none before its time.
func TestTimerSlaveTakesOverAfterMasterKill(t *testing.T) {
	props := brokerProps("ASYNC_FLUSH")
	props["timerPrecisionMs"] = "100"
	props["timerFlushIntervalMs"] = "200"
	props["flushCommitLogThoroughInterval"] = "500"
	c := cluster.Start(t, cluster.Options{BrokerProps: props})
	master := c.Brokers[0]
	slave := c.AddSlave(master.Name, 1, props)
	topic := uniq(t, "TIMERHA")
	createTopic(t, c, master, topic, timerQueues)

	p := newProducer(t, c, uniq(t, "PG"))
	due := map[string]int64{}
	start := time.Now().UnixMilli()
	for i := range 400 {
		key := "ha-" + strconv.Itoa(i)
		at := start + 1000 + int64(i)*20 // due over 8 s
		msg := primitive.NewMessage(topic, []byte(key))
		msg.WithKeys([]string{key})
		msg.WithProperty(message.PropertyTimerDeliverMS, strconv.FormatInt(at, 10))
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
		res, err := p.SendSync(ctx, msg)
		cancel()
		require.NoError(t, err)
		require.Equal(t, primitive.SendOK, res.Status)
		due[key] = at
	}
	mc, sc := newRawClient(t, master.Addr), newRawClient(t, slave.Addr)
	waitUntil(t, dispatchTimeout, 50*time.Millisecond, "the slave holds every timer message", func() (bool, string) {
		m, err1 := mc.maxOffset(context.Background(), systopic.Timer, 0)
		s, err2 := sc.maxOffset(context.Background(), systopic.Timer, 0)
		return err1 == nil && err2 == nil && s == m && m >= 400, strconv.FormatInt(s, 10) + " of " + strconv.FormatInt(m, 10)
	})
	var progress int64
	waitUntil(t, 40*time.Second, 200*time.Millisecond, "the slave knows the master's delivery progress", func() (bool, string) {
		progress = checkpointReadMs(t, sc)
		return progress > start, strconv.FormatInt(progress, 10)
	})
	// Let the master deliver part of them, then lose it.
	pause(time.Until(time.UnixMilli(start + 4000)))
	require.NoError(t, master.Kill())
	before := deliveries(t, sc, topic)
	t.Logf("master killed: the slave holds all 400 timer messages and %d of the master's deliveries; "+
		"its copy of the master's checkpoint is at %d (%d ms after the first send)", countAll(before), progress, progress-start)
	for key, n := range before {
		require.Equal(t, 1, n, "the slave holds %s once", key)
	}
	pending := timingCount(t, sc, topic)
	t.Logf("the slave's GET_TIMER_METRICS (the master's counts, synced): %d pending", pending)

	promote(t, slave)
	last := start + 1000 + 399*20
	pause(time.Until(time.UnixMilli(last)) + timerGrace)
	pc := newRawClient(t, slave.Addr)
	after := map[string][]int64{}
	for q := range timerQueues {
		for _, m := range pullQueue(t, pc, topic, q) {
			after[m.Props[message.PropertyKeys]] = append(after[m.Props[message.PropertyKeys]], m.StoreTimestamp)
		}
	}
	lost, twice, early := 0, 0, 0
	for key, at := range due {
		switch ts := after[key]; {
		case len(ts) == 0:
			lost++
		case len(ts) > 1:
			twice += len(ts) - 1
		case ts[0] < at:
			early++
		}
	}
	t.Logf("timer failover summary: sent=400 delivered-by-the-master=%d delivered-after-promotion=%d lost=%d duplicated=%d early=%d",
		countAll(before), len(after)-countAll(before), lost, twice, early)
	t.Logf("the promoted broker's recovery:\n%s", grepLog(slave.Broker, 10, "timer recovered", "timer redelivery check done",
		"pending timer messages counted"))
	require.Zero(t, lost, "lost")
	require.Zero(t, twice, "duplicated")
	require.Zero(t, early, "early")
}

// checkpointReadMs is GET_TIMER_CHECK_POINT's lastReadTimeMs; 0 until the answer has this
// broker's extension.
func checkpointReadMs(t *testing.T, rc *rawClient) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), rawTimeout)
	defer cancel()
	resp, err := rc.cli.Invoke(ctx, rc.addr, protocol.NewRequest(protocol.GetTimerCheckPoint, nil, nil))
	require.NoError(t, err)
	require.Equal(t, protocol.Success, resp.ResponseCode(), resp.Remark)
	if len(resp.Body) < 96 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(resp.Body))
}

// timingCount is GET_TIMER_METRICS's count for topic.
func timingCount(t *testing.T, rc *rawClient, topic string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), rawTimeout)
	defer cancel()
	resp, err := rc.cli.Invoke(ctx, rc.addr, protocol.NewRequest(protocol.GetTimerMetrics, nil, nil))
	require.NoError(t, err)
	s := string(resp.Body)
	i := strings.Index(s, `"`+topic+`":{"count":`)
	if i < 0 {
		return 0
	}
	s = s[i+len(topic)+len(`"":{"count":`):]
	n, _ := strconv.ParseInt(s[:strings.IndexAny(s, ",}")], 10, 64)
	return n
}

// deliveries counts the messages of each key in topic's queues.
func deliveries(t *testing.T, rc *rawClient, topic string) map[string]int {
	out := map[string]int{}
	for q := range timerQueues {
		for _, m := range pullQueue(t, rc, topic, q) {
			out[m.Props[message.PropertyKeys]]++
		}
	}
	return out
}

func countAll(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// promote stops the slave and starts it again on its store as the master (brokerId 0,
// ASYNC_MASTER), as an operator would after losing the master.
func promote(t *testing.T, s *cluster.Slave) {
	require.NoError(t, s.Stop())
	s.Props["brokerRole"] = "ASYNC_MASTER"
	s.Props["brokerId"] = "0"
	keys := make([]string, 0, len(s.Props))
	for k := range s.Props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# the former slave, started as the master by TestTimerSlaveTakesOverAfterMasterKill\n")
	for _, k := range keys {
		b.WriteString(k + "=" + s.Props[k] + "\n")
	}
	require.NoError(t, os.WriteFile(s.Conf, []byte(b.String()), 0o644))
	s.Broker.StartAgain()
}
