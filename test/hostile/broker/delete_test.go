package broker

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDeleteTopicHostile plays issue 7's rows 1 and 2, with more names of the same kinds: before,
// DELETE_TOPIC_IN_BROKER with ".." removed the whole store, "../../victim" a directory outside it,
// "" every consume queue, and SCHEDULE_TOPIC_XXXX every delayed message. Now each is refused
// with a remark and nothing is removed: the store's files, a directory beside it, a delayed
// message and the well-behaved workload's topic all stay.
func TestDeleteTopicHostile(t *testing.T) {
	t.Parallel()
	c, b, _ := hostileCluster(t, nil)
	w := startWorkload(t, c, nil)
	hostile := dial(t, b.Addr)
	victim := filepath.Join(filepath.Dir(b.StoreDir), "victim") // what consumequeue/../../victim names
	must(t, os.MkdirAll(victim, 0o755))
	must(t, os.WriteFile(filepath.Join(victim, "keep"), []byte("keep"), 0o644))

	delayed := hostile.call(codeSendMessage, map[string]string{"producerGroup": "PG_H", "topic": "Later",
		"defaultTopic": "TBW102", "defaultTopicQueueNums": "4", "queueId": "0", "sysFlag": "0",
		"bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0",
		"properties": "DELAY\x0118\x02"}, []byte("in two hours"))
	requireAnswer(t, delayed, respSuccess, "")
	waitMaxOffset(t, hostile, "SCHEDULE_TOPIC_XXXX", 17, 1)

	const illegal = "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
	system := func(name string) string { return "The topic[" + name + "] is a system topic: it cannot be deleted." }
	for _, tc := range []struct {
		topic  string
		code   int
		remark string
	}{
		{"..", respSystemError, illegal},
		{"../../victim", respSystemError, illegal},
		{"../..", respSystemError, illegal},
		{".", respSystemError, illegal},
		{"consumequeue/../..", respSystemError, illegal},
		{"/etc", respSystemError, illegal},
		{"a\x00b", respSystemError, illegal},
		{"", respSystemError, "The specified topic is blank."},
		{"   ", respSystemError, "The specified topic is blank."},
		{strings.Repeat("t", 128), respSystemError, "The specified topic is longer than topic max length."},
		{"SCHEDULE_TOPIC_XXXX", respSystemError, system("SCHEDULE_TOPIC_XXXX")},
		{"TBW102", respSystemError, system("TBW102")},
		{"RMQ_SYS_TRANS_HALF_TOPIC", respSystemError, system("RMQ_SYS_TRANS_HALF_TOPIC")},
		{"RMQ_SYS_TRANS_OP_HALF_TOPIC", respSystemError, system("RMQ_SYS_TRANS_OP_HALF_TOPIC")},
		{"RMQ_SYS_TRACE_TOPIC", respSystemError, system("RMQ_SYS_TRACE_TOPIC")},
		{"rmq_sys_REVIVE_LOG_HostileCluster", respSystemError, system("rmq_sys_REVIVE_LOG_HostileCluster")},
		{"HostileCluster", respSystemError, system("HostileCluster")},
		{b.Name, respSystemError, system(b.Name)},
		{"NeverCreated", respTopicNotExist, "The topic[NeverCreated] does not exist on this broker."},
	} {
		resp := hostile.call(codeDeleteTopic, map[string]string{"topic": tc.topic}, nil)
		requireAnswer(t, resp, tc.code, tc.remark)
	}
	for _, p := range []string{"commitlog", "config/topics.json", "checkpoint", "consumequeue/SCHEDULE_TOPIC_XXXX",
		"consumequeue/" + w.topic} {
		if _, err := os.Stat(filepath.Join(b.StoreDir, p)); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Errorf("the directory beside the store is gone: %v", err)
	}
	waitMaxOffset(t, hostile, "SCHEDULE_TOPIC_XXXX", 17, 1) // the delayed message stays
	w.check()
}

// waitMaxOffset waits until a queue's max offset is want.
func waitMaxOffset(t *testing.T, c *rawConn, topic string, queueID, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp := c.call(codeGetMaxOffset, map[string]string{"topic": topic, "queueId": strconv.Itoa(queueID)}, nil)
		if resp.ExtFields["offset"] == strconv.Itoa(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/%d: max offset %s, want %d", topic, queueID, resp.ExtFields["offset"], want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
