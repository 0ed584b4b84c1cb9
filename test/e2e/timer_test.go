package e2e

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Request codes of timer messages (protocol.md §2.9).
const (
	reqSendMessage        = 10
	reqGetTimerCheckPoint = 60
	reqGetTimerMetrics    = 61
	reqRecallMessage      = 370
	codeMessageIllegal    = 13
	codeIllegalOperation  = 604
)

// timerCluster is a nameserver and a broker with RECALL_MESSAGE on, and a topic of one queue.
func timerCluster(t *testing.T) (*cluster.Cluster, string) {
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{"recallMessageEnable": "true"}})
	topic := uniq(t, "TIMER")
	createTopic(t, c, topic, 1)
	return c, topic
}

// props encodes message properties (name\x01value\x02 ...).
func props(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString(kv[i] + "\x01" + kv[i+1] + "\x02")
	}
	return b.String()
}

// rawSend sends SEND_MESSAGE (code 10, the Go client's JSON header) to queue 0.
func rawSend(t *testing.T, addr, topic, properties, body string) *cluster.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	resp, err := cluster.Invoke(ctx, addr, reqSendMessage, map[string]string{
		"producerGroup": "PG_TIMER", "topic": topic, "defaultTopic": "TBW102", "defaultTopicQueueNums": "4",
		"queueId": "0", "sysFlag": "0", "bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0",
		"properties": properties, "reconsumeTimes": "0", "unitMode": "false",
	}, []byte(body))
	require.NoError(t, err)
	return resp
}

func invokeCode(t *testing.T, addr string, code int, ext map[string]string) *cluster.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	resp, err := cluster.Invoke(ctx, addr, code, ext, nil)
	require.NoError(t, err)
	return resp
}

// pullAll reads queue 0 of topic from its start.
func pullAll(t *testing.T, addr, topic string) []cluster.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	res, err := cluster.Pull(ctx, addr, cluster.PullRequest{Group: "CG_TIMER", Topic: topic, MaxMsgs: 32})
	require.NoError(t, err)
	return res.Messages
}

// A message sent with TIMER_DELIVER_MS is answered with a recall handle, waits, and reaches its
// topic no earlier than the time it asked for, with Java's timer properties.
func TestTimerMessageRawFrames(t *testing.T) {
	c, topic := timerCluster(t)
	addr := c.Brokers[0].Addr
	deliver := time.Now().UnixMilli() + 2500
	resp := rawSend(t, addr, topic, props("TIMER_DELIVER_MS", strconv.FormatInt(deliver, 10), "UNIQ_KEY", "ID-TIMER-1", "KEYS", "k1"), "later")
	require.Equal(t, cluster.CodeSuccess, resp.Code, resp.String())
	handle := decodeHandle(t, resp.ExtFields["recallHandle"])
	require.Equal(t, []string{"v1", topic, "broker-a"}, handle[:3])
	require.Equal(t, "ID-TIMER-1", handle[4])
	assert.Empty(t, pullAll(t, addr, topic), "a timer message is not in its topic before its time")

	var got []cluster.Record
	waitFor(t, 10*time.Second, "the timer message delivered", func() bool {
		got = pullAll(t, addr, topic)
		return len(got) > 0
	})
	require.Len(t, got, 1)
	m := got[0]
	require.Equal(t, "later", string(m.Body))
	p := m.Properties
	require.Equal(t, "ID-TIMER-1", p["UNIQ_KEY"])
	require.GreaterOrEqual(t, m.StoreTimestamp, deliver, "stored no earlier than asked")
	for _, k := range []string{"TIMER_OUT_MS", "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_DELIVER_MS"} {
		require.Contains(t, p, k)
	}
	require.NotContains(t, p, "REAL_TOPIC")
	t.Logf("asked for %d, stored at %d: %d ms after", deliver, m.StoreTimestamp, m.StoreTimestamp-deliver)
}

func decodeHandle(t *testing.T, h string) []string {
	t.Helper()
	raw, err := base64.URLEncoding.DecodeString(h)
	require.NoError(t, err, "recallHandle %q", h)
	parts := strings.Split(string(raw), " ")
	require.Len(t, parts, 5, string(raw))
	return parts
}

// Sends the broker refuses, with Java's codes and remarks.
func TestTimerMessageRefusals(t *testing.T) {
	c, topic := timerCluster(t)
	addr := c.Brokers[0].Addr
	const illegal = "timer message illegal, the delay time should not be bigger than the max delay 259200000ms; " +
		"or if set del msg, the delay time should be bigger than the current time"
	for _, p := range []string{
		props("TIMER_DELAY_SEC", strconv.Itoa(3*24*3600+60)),
		props("TIMER_DELAY_MS", "ten"),
		props("TIMER_DELIVER_MS", strconv.FormatInt(time.Now().Add(10*24*time.Hour).UnixMilli(), 10)),
	} {
		resp := rawSend(t, addr, topic, p, "x")
		require.Equal(t, codeMessageIllegal, resp.Code, resp.String())
		require.Equal(t, illegal, resp.Remark)
	}
	resp := rawSend(t, addr, "rmq_sys_wheel_timer", props("REAL_TOPIC", topic), "x")
	require.Equal(t, 16, resp.Code, "clients may not write the timer topic: %s", resp)
	// A time already passed is an ordinary message.
	resp = rawSend(t, addr, topic, props("TIMER_DELIVER_MS", "1"), "now")
	require.Equal(t, cluster.CodeSuccess, resp.Code, resp.String())
	require.NotContains(t, resp.ExtFields, "recallHandle")
	require.Len(t, pullAll(t, addr, topic), 1)
}

// RECALL_MESSAGE withdraws a pending message: it is never delivered, while one sent beside it is.
func TestRecallMessageRawFrames(t *testing.T) {
	c, topic := timerCluster(t)
	addr := c.Brokers[0].Addr
	send := func(key string) string {
		resp := rawSend(t, addr, topic, props("TIMER_DELAY_SEC", "3", "UNIQ_KEY", key), key)
		require.Equal(t, cluster.CodeSuccess, resp.Code, resp.String())
		return resp.ExtFields["recallHandle"]
	}
	gone := send("ID-GONE")
	send("ID-KEPT")
	recall := func(topic, handle string) *cluster.Response {
		return invokeCode(t, addr, reqRecallMessage, map[string]string{"producerGroup": "PG_TIMER", "topic": topic,
			"recallHandle": handle, "bname": "broker-a"})
	}
	resp := recall(topic, gone)
	require.Equal(t, cluster.CodeSuccess, resp.Code, resp.String())
	require.Equal(t, "ID-GONE", resp.ExtFields["msgId"])
	require.Contains(t, resp.ExtFields, "MSG_REGION")

	resp = recall(topic, "not base64!")
	require.Equal(t, codeIllegalOperation, resp.Code)
	require.Equal(t, "recall handle is invalid", resp.Remark)
	resp = recall(uniq(t, "OTHER"), gone)
	require.Equal(t, 17, resp.Code, resp.String()) // TOPIC_NOT_EXIST
	resp = recall("../"+topic, gone)
	require.Equal(t, 17, resp.Code, resp.String()) // not a topic name: TOPIC_NOT_EXIST, with the rule it broke
	require.Contains(t, resp.Remark, "illegal characters")
	createTopic(t, c, topic+"_B", 1)
	resp = recall(topic+"_B", gone)
	require.Equal(t, codeIllegalOperation, resp.Code)
	require.Equal(t, "recall failed, topic not match", resp.Remark)

	var got []cluster.Record
	waitFor(t, 15*time.Second, "the kept message delivered", func() bool {
		got = pullAll(t, addr, topic)
		return len(got) > 0
	})
	time.Sleep(time.Second) // the recalled one would have come in the same slot
	got = pullAll(t, addr, topic)
	require.Len(t, got, 1)
	require.Equal(t, "ID-KEPT", got[0].Properties["UNIQ_KEY"])
}

// GET_TIMER_CHECK_POINT answers Java's 56-byte checkpoint (and this broker's extension);
// GET_TIMER_METRICS the pending messages per topic.
func TestTimerCheckpointAndMetricsRawFrames(t *testing.T) {
	c, topic := timerCluster(t)
	addr := c.Brokers[0].Addr
	for i := range 3 {
		resp := rawSend(t, addr, topic, props("TIMER_DELAY_SEC", "600", "UNIQ_KEY", "ID-"+strconv.Itoa(i)), "x")
		require.Equal(t, cluster.CodeSuccess, resp.Code, resp.String())
	}
	var metrics struct {
		TimingCount map[string]struct{ Count int64 } `json:"timingCount"`
		DataVersion struct{ Counter int64 }          `json:"dataVersion"`
	}
	waitFor(t, 10*time.Second, "3 pending in GET_TIMER_METRICS", func() bool {
		resp := invokeCode(t, addr, reqGetTimerMetrics, nil)
		require.Equal(t, cluster.CodeSuccess, resp.Code, resp.String())
		require.NoError(t, json.Unmarshal(resp.Body, &metrics), string(resp.Body))
		return metrics.TimingCount[topic].Count == 3
	})
	var cp []int64
	// A checkpoint is written once the CommitLog is flushed past it: up to flushCommitLogThoroughInterval.
	waitFor(t, 30*time.Second, "a checkpoint past the 3 messages", func() bool {
		resp := invokeCode(t, addr, reqGetTimerCheckPoint, nil)
		require.Equal(t, cluster.CodeSuccess, resp.Code, resp.String())
		require.GreaterOrEqual(t, len(resp.Body), 56)
		cp = nil
		for i := 0; i+8 <= 56; i += 8 {
			cp = append(cp, int64(binary.BigEndian.Uint64(resp.Body[i:])))
		}
		return cp[2] == 3
	})
	now := time.Now().UnixMilli()
	require.InDelta(t, now, cp[0], 60_000, "lastReadTimeMs is the delivery position, about now")
	require.Equal(t, int64(3*64), cp[1], "lastTimerLogFlushPos: 3 records of 64 bytes")
	require.Equal(t, int64(3), cp[3], "masterTimerQueueOffset")
	require.Positive(t, cp[6], "the data version counter")
}

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
