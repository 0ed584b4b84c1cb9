package broker

import (
	"strconv"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// pullExt is a PULL_MESSAGE that asks to be held for suspend ms at offset 0 of topic's queue 0.
func pullExt(group, topic string, suspend int64) map[string]string {
	return map[string]string{"consumerGroup": group, "topic": topic, "queueId": "0", "queueOffset": "0",
		"maxMsgNums": "32", "sysFlag": "6", "commitOffset": "0", "suspendTimeoutMillis": strconv.FormatInt(suspend, 10),
		"subscription": "*", "subVersion": "0", "expressionType": "TAG"}
}

func createTopic(t *testing.T, c *rawConn, topic string, queues int) {
	t.Helper()
	n := strconv.Itoa(queues)
	resp := c.call(17, map[string]string{"topic": topic, "defaultTopic": "TBW102", "readQueueNums": n, "writeQueueNums": n,
		"perm": "6", "topicFilterType": "SINGLE_TAG"}, nil)
	requireAnswer(t, resp, respSuccess, "")
}

// TestHeldPullFlood plays issue 7's row 5: one connection sends 20,000 PULL_MESSAGE asking a
// suspend of 10^12 ms, then closes. Before: heap +43 MB held for good, a later message "delivered"
// 20,000 times to the dead holds. Now: at most longPollingMaxHeldPerConnection (10,000) are held,
// the rest answered SYSTEM_BUSY at once; on close the holds are dropped (a later message is
// delivered to none of them) and the heap comes back within 16 MiB of where it was; a pull asking
// 10^12 ms is answered within longPollingMaxSuspendMillis (set to 15 s here).
func TestHeldPullFlood(t *testing.T) {
	t.Parallel()
	c, b, metrics := hostileCluster(t, map[string]string{"longPollingMaxSuspendMillis": "15000"})
	w := startWorkload(t, c, nil)
	admin := dial(t, b.Addr)
	createTopic(t, admin, "HoldTopic", 1)

	capped := dial(t, b.Addr)
	cappedOp := capped.send(codePullMessage, pullExt("HoldCapped", "HoldTopic", 1e12), nil)
	cappedAt := time.Now()

	time.Sleep(2 * time.Second) // the workload settles
	heap0, rss0 := heapInUse(t, metrics), vmRSS(t, b.Pid())

	hostile := dial(t, b.Addr)
	const flood = 20000
	for range flood {
		hostile.send(codePullMessage, pullExt("HoldFlood", "HoldTopic", 1e12), nil)
	}
	deadline := time.Now().Add(30 * time.Second)
	for hostile.answered() < flood/2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	answers := hostile.takeAnswers()
	if len(answers) < flood/2 {
		t.Fatalf("only %d of %d pulls answered: at most 10,000 may be held", len(answers), flood)
	}
	for _, resp := range answers {
		if resp.Code != respSystemBusy {
			t.Fatalf("a pull beyond the limit: %s", resp)
		}
	}
	heap1, rss1 := heapInUse(t, metrics), vmRSS(t, b.Pid())
	t.Logf("%d pulls sent: %d answered SYSTEM_BUSY (%s), %d held; heap in use %s -> %s, VmRSS %s -> %s",
		flood, len(answers), firstRemark(answers), flood-len(answers), mib(heap0), mib(heap1), mib(rss0), mib(rss1))

	hostile.Close()
	time.Sleep(500 * time.Millisecond)
	// A message now must wake none of the closed connection's pulls.
	resp := admin.call(codeSendMessage, map[string]string{"producerGroup": "PG_HOLD", "topic": "HoldTopic",
		"defaultTopic": "TBW102", "defaultTopicQueueNums": "4", "queueId": "0", "sysFlag": "0",
		"bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0", "properties": ""}, []byte("later"))
	requireAnswer(t, resp, respSuccess, "")

	// The capped pull is woken by that message; a fresh one must end within the cap.
	if got := capped.await(cappedOp, 20*time.Second); got.Code != respSuccess && got.Code != respPullNotFound {
		t.Fatalf("capped pull: %s", got)
	}
	start := time.Now()
	fresh := capped.send(codePullMessage, map[string]string{"consumerGroup": "HoldCapped2", "topic": "HoldTopic",
		"queueId": "0", "queueOffset": "1", "maxMsgNums": "32", "sysFlag": "6", "commitOffset": "0",
		"suspendTimeoutMillis": "1000000000000", "subscription": "*", "subVersion": "0", "expressionType": "TAG"}, nil)
	got := capped.await(fresh, 25*time.Second)
	requireAnswer(t, got, respPullNotFound, "")
	t.Logf("a pull asking 10^12 ms was answered PULL_NOT_FOUND after %v (cap 15 s; the first pull was held %v)",
		time.Since(start).Round(100*time.Millisecond), time.Since(cappedAt).Round(time.Second))

	out := sumSeries(t, metrics, "rocketmq_messages_out_total", `consumer_group="HoldFlood"`)
	if out != 0 {
		t.Fatalf("%v messages were delivered to the closed connection's held pulls", out)
	}
	heap2 := waitHeap(t, metrics, heap0+16<<20, time.Minute)
	t.Logf("after close: heap in use %s, VmRSS %s", mib(heap2), mib(vmRSS(t, b.Pid())))
	w.check()
}

func firstRemark(answers map[int32]*cluster.Response) string {
	for _, r := range answers {
		return r.Remark
	}
	return ""
}
