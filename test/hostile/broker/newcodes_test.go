package broker

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Codes served since issue 7's first audit.
const (
	codeCreateTopicList     = 18
	codeCreateGroupList     = 225
	codeResetOffset         = 222
	codeViewBrokerStatsData = 315
	codeChangeInvisibleTime = 200053
	codePopMessage          = 200050
	codeBatchAckMessage     = 200151
	respGroupNotExist       = 26
	respInvalidParameter    = 29
	respNoMessage           = 208
)

// TestNewCodesHostile plays the request codes that landed after issue 7's first audit as an
// attacker on 127.0.0.1 would, with ACL off (the default: every client is an admin):
//   - UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST / UPDATE_AND_CREATE_TOPIC_LIST of 1,001 entries:
//     before, accepted, each entry rewriting the whole file; now refused with a remark, nothing
//     created; 1,000 groups are created and in subscriptionGroup.json when answered.
//   - BATCH_ACK_MESSAGE of 1,025 entries: refused (INVALID_PARAMETER) before any is looked at.
//   - CHANGE_MESSAGE_INVISIBLETIME of offsets never popped, with an invisible time of 10^12 ms:
//     before, each wrote a checkpoint held for good (one account could fill the table to
//     1,000,000 and make every POP SYSTEM_BUSY); now NO_MESSAGE, and a POP still works.
//   - INVOKE_BROKER_TO_RESET_OFFSET of one queue for a group the broker does not have, or a bad
//     group name: before, an offset committed for any string; now SUBSCRIPTION_GROUP_NOT_EXIST.
//   - VIEW_BROKER_STATS_DATA with a key of control characters or 10,000 bytes: refused with the
//     key quoted and cut in the remark.
func TestNewCodesHostile(t *testing.T) {
	t.Parallel()
	c, b, _ := hostileCluster(t, nil)
	w := startWorkload(t, c, nil)
	hostile := dial(t, b.Addr)

	t.Run("group and topic lists", func(t *testing.T) { listFlood(t, hostile, b.StoreDir) })
	t.Run("batch ack", func(t *testing.T) {
		resp := hostile.call(codeBatchAckMessage, nil, batchAckBody(t, 1025))
		requireAnswer(t, resp, respInvalidParameter, "the batch holds 1025 acks, more than 1024")
	})
	t.Run("change invisible time", func(t *testing.T) { changeFlood(t, hostile) })
	t.Run("reset offset", func(t *testing.T) {
		for _, g := range []string{"NoSuchGroup", "bad group", strings.Repeat("g", 300)} {
			resp := hostile.call(codeResetOffset, map[string]string{"topic": "NewCodesTopic", "group": g, "timestamp": "-1",
				"isForce": "true", "queueId": "0", "offset": "0"}, nil)
			requireAnswer(t, resp, respGroupNotExist, "")
		}
	})
	t.Run("broker stats", func(t *testing.T) {
		for _, key := range []string{"a\nb\x00c", strings.Repeat("k", 10000), "T@bad group"} {
			resp := hostile.call(codeViewBrokerStatsData, map[string]string{"statsName": "TOPIC_PUT_NUMS", "statsKey": key}, nil)
			requireAnswer(t, resp, respSystemError, "is not a topic, topic@group or cluster name")
			if len(resp.Remark) > 400 || strings.ContainsAny(resp.Remark, "\n\x00") {
				t.Fatalf("the remark echoes the key: %q", resp.Remark)
			}
		}
	})
	w.check()
}

func listFlood(t *testing.T, c *rawConn, storeDir string) {
	before := groupCount(t, storeDir)
	groups := func(n int) []byte {
		list := make([]map[string]any, n)
		for i := range list {
			list[i] = map[string]any{"groupName": fmt.Sprintf("ListG%d", i), "consumeEnable": true}
		}
		data, err := json.Marshal(map[string]any{"groupConfigList": list})
		must(t, err)
		return data
	}
	resp := c.call(codeCreateGroupList, nil, groups(1001))
	requireAnswer(t, resp, respSystemError, "the subscription group config list holds 1001 groups, more than 1000")
	if got := groupCount(t, storeDir); got != before {
		t.Fatalf("a refused list created %d groups", got-before)
	}
	start := time.Now()
	resp = c.call(codeCreateGroupList, nil, groups(1000))
	requireAnswer(t, resp, respSuccess, "")
	if got := groupCount(t, storeDir); got != before+1000 {
		t.Fatalf("subscriptionGroup.json holds %d new groups once the list is answered, want 1000", got-before)
	}
	t.Logf("1,000 groups by UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST: created and written in %v", time.Since(start).Round(time.Millisecond))

	topics := make([]map[string]any, 1001)
	for i := range topics {
		topics[i] = map[string]any{"topicName": "ListT" + strconv.Itoa(i), "readQueueNums": 1, "writeQueueNums": 1, "perm": 6}
	}
	data, err := json.Marshal(map[string]any{"topicConfigList": topics})
	must(t, err)
	resp = c.call(codeCreateTopicList, nil, data)
	requireAnswer(t, resp, respSystemError, "the topic config list holds 1001 topics, more than 1000")
}

func batchAckBody(t *testing.T, n int) []byte {
	acks := make([]map[string]any, n)
	for i := range acks {
		acks[i] = map[string]any{"c": "AckG", "t": "NewCodesTopic", "r": "0", "so": i, "q": 0, "rq": 0, "pt": 1, "it": 1000, "b": "AQ=="}
	}
	data, err := json.Marshal(map[string]any{"brokerName": "x", "acks": acks})
	must(t, err)
	return data
}

// changeFlood asks 2,000 invisible-time changes of offsets nobody popped, then pops.
func changeFlood(t *testing.T, c *rawConn) {
	createTopic(t, c, "NewCodesTopic", 1)
	for i := range 3 {
		resp := c.call(codeSendMessage, map[string]string{"producerGroup": "PG_NEW", "topic": "NewCodesTopic",
			"defaultTopic": "TBW102", "defaultTopicQueueNums": "4", "queueId": "0", "sysFlag": "0",
			"bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0", "properties": ""}, []byte("m"+strconv.Itoa(i)))
		requireAnswer(t, resp, respSuccess, "")
	}
	time.Sleep(300 * time.Millisecond) // dispatched to the consume queue
	const flood = 2000
	var ops []int32
	for i := range flood {
		ops = append(ops, c.send(codeChangeInvisibleTime, map[string]string{"consumerGroup": "ChangeG", "topic": "NewCodesTopic",
			"queueId": "0", "offset": strconv.Itoa(i % 2), "invisibleTime": "1000000000000",
			"extraInfo": fmt.Sprintf("0 %d 1000 0 0 broker 0 0", i+1)}, nil))
	}
	for _, op := range ops {
		resp := c.await(op, 30*time.Second)
		requireAnswer(t, resp, respNoMessage, "not invisible under the checkpoint")
	}
	resp := c.call(codePopMessage, map[string]string{"consumerGroup": "PopG", "topic": "NewCodesTopic", "queueId": "-1",
		"maxMsgNums": "3", "invisibleTime": "60000", "pollTime": "0", "bornTime": strconv.FormatInt(time.Now().UnixMilli(), 10),
		"initMode": "0"}, nil)
	requireAnswer(t, resp, respSuccess, "")
	t.Logf("%d changes of offsets never popped refused NO_MESSAGE; a POP after them: %d", flood, resp.Code)
}
