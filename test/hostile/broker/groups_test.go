package broker

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// heartbeatBody is a HEART_BEAT body naming groups, each subscribed to topic.
func heartbeatBody(t *testing.T, clientID, topic string, groups []string) []byte {
	t.Helper()
	type sub struct {
		Topic          string `json:"topic"`
		SubString      string `json:"subString"`
		ExpressionType string `json:"expressionType"`
	}
	type consumer struct {
		GroupName           string `json:"groupName"`
		ConsumeType         string `json:"consumeType"`
		MessageModel        string `json:"messageModel"`
		ConsumeFromWhere    string `json:"consumeFromWhere"`
		SubscriptionDataSet []sub  `json:"subscriptionDataSet"`
	}
	hb := struct {
		ClientID        string     `json:"clientID"`
		ConsumerDataSet []consumer `json:"consumerDataSet"`
		ProducerDataSet []struct{} `json:"producerDataSet"`
	}{ClientID: clientID, ProducerDataSet: []struct{}{}}
	for _, g := range groups {
		hb.ConsumerDataSet = append(hb.ConsumerDataSet, consumer{GroupName: g, ConsumeType: "CONSUME_PASSIVELY",
			MessageModel: "CLUSTERING", ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET",
			SubscriptionDataSet: []sub{{Topic: topic, SubString: "*", ExpressionType: "TAG"}}})
	}
	data, err := json.Marshal(hb)
	must(t, err)
	return data
}

func names(prefix string, n, size int) []string {
	out := make([]string, n)
	for i := range out {
		name := fmt.Sprintf("%s%d_", prefix, i)
		out[i] = name + strings.Repeat("g", max(size-len(name), 0))
	}
	return out
}

// groupCount is the number of consumer groups in the broker's subscriptionGroup.json.
func groupCount(t *testing.T, storeDir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(storeDir, "config", "subscriptionGroup.json"))
	if os.IsNotExist(err) {
		return 0
	}
	must(t, err)
	var w struct {
		SubscriptionGroupTable map[string]json.RawMessage `json:"subscriptionGroupTable"`
	}
	must(t, json.Unmarshal(data, &w))
	return len(w.SubscriptionGroupTable)
}

// TestGroupFlood plays issue 7's row 8 and more of its kind. Before: one HEART_BEAT naming 300
// groups of 1,000-character names took 16.5 s of serialized fsyncs, creating every group from an
// unvalidated name and rewriting the whole file for each (quadratic). Now: it is refused at once
// with a remark; so are a heartbeat naming more new groups than maxNewGroupsPerRequest (100), a
// bad client id, and groups beyond maxNewGroupsPerConnection (set to 300 here) made by
// heartbeats, pulls or send-backs; a heartbeat's 100 new groups are written with one write of
// each file, and are in subscriptionGroup.json when it is answered.
func TestGroupFlood(t *testing.T) {
	t.Parallel()
	c, b, _ := hostileCluster(t, map[string]string{"maxNewGroupsPerConnection": "300", "maxNewTopicsPerConnection": "50"})
	w := startWorkload(t, c, nil)
	hostile := dial(t, b.Addr)
	before := groupCount(t, b.StoreDir)

	start := time.Now()
	resp := hostile.call(codeHeartBeat, nil, heartbeatBody(t, "10.0.0.66@flood", "T", names("G", 300, 1000)))
	requireAnswer(t, resp, respSystemError, "is longer than group max length 255")
	t.Logf("300 groups of 1,000 characters: refused in %v: %s", time.Since(start).Round(time.Millisecond), resp.Remark)

	resp = hostile.call(codeHeartBeat, nil, heartbeatBody(t, "10.0.0.66@flood", "T", names("G", 300, 200)))
	requireAnswer(t, resp, respSystemError, "one request may create at most 100 (maxNewGroupsPerRequest)")
	resp = hostile.call(codeHeartBeat, nil, heartbeatBody(t, "bad client\nid", "T", names("G", 1, 10)))
	requireAnswer(t, resp, respSystemError, "The client id")
	resp = hostile.call(codeHeartBeat, nil, heartbeatBody(t, "10.0.0.66@flood", "../../etc", names("G", 1, 10)))
	requireAnswer(t, resp, respSystemError, "The specified topic contains illegal characters")
	if got := groupCount(t, b.StoreDir); got != before {
		t.Fatalf("refused heartbeats created %d groups", got-before)
	}

	// 100 new groups of 200 characters: one write of each file, durable once answered.
	start = time.Now()
	resp = hostile.call(codeHeartBeat, nil, heartbeatBody(t, "10.0.0.66@flood", "T", names("H", 100, 200)))
	requireAnswer(t, resp, respSuccess, "")
	took := time.Since(start)
	if got := groupCount(t, b.StoreDir); got != before+100 {
		t.Fatalf("subscriptionGroup.json holds %d new groups once the heartbeat is answered, want 100", got-before)
	}
	t.Logf("100 new groups of 200 characters: created and written in %v", took.Round(time.Millisecond))

	// The connection's quota: 300 groups however they are made.
	resp = hostile.call(codeHeartBeat, nil, heartbeatBody(t, "10.0.0.66@flood", "T", names("I", 100, 50)))
	requireAnswer(t, resp, respSuccess, "")
	refused := 0
	for i := range 150 {
		ext := pullExt("P"+strconv.Itoa(i), w.topic, 0)
		ext["sysFlag"] = "4"
		if r := hostile.call(codePullMessage, ext, nil); r.Code == respSystemError && strings.Contains(r.Remark, "maxNewGroupsPerConnection") {
			refused++
		}
	}
	if refused != 50 {
		t.Fatalf("%d pulls were refused a new group, want 50 (the quota is 300)", refused)
	}
	resp = hostile.call(codeConsumerSendMsgBack, map[string]string{"offset": "0", "group": "Back1", "delayLevel": "1"}, nil)
	requireAnswer(t, resp, respSystemError, "maxNewGroupsPerConnection")

	// Topics: 50 auto-created by sends, then refused.
	refused = 0
	for i := range 60 {
		r := hostile.call(codeSendMessage, map[string]string{"producerGroup": "PG_H", "topic": "Auto" + strconv.Itoa(i),
			"defaultTopic": "TBW102", "defaultTopicQueueNums": "4", "queueId": "0", "sysFlag": "0",
			"bornTimestamp": strconv.FormatInt(time.Now().UnixMilli(), 10), "flag": "0", "properties": ""}, []byte("x"))
		if r.Code == respSystemError && strings.Contains(r.Remark, "maxNewTopicsPerConnection") {
			refused++
		}
	}
	if refused != 10 {
		t.Fatalf("%d sends were refused a new topic, want 10 (the quota is 50)", refused)
	}
	// Offsets name only what exists: no table entries for made-up topics, groups or queues.
	committer := dial(t, b.Addr)
	commit := func(group, topic, queue string) *cluster.Response {
		return committer.call(codeUpdateConsumerOff, map[string]string{"consumerGroup": group, "topic": topic,
			"queueId": queue, "commitOffset": "1"}, nil)
	}
	requireAnswer(t, commit("CG_"+w.topic, "NoSuchTopic", "0"), respTopicNotExist, `Topic "NoSuchTopic" not exist!`)
	requireAnswer(t, commit("a/b", w.topic, "0"), 26, "contains illegal characters")
	requireAnswer(t, commit("CG_"+w.topic, w.topic, "4096"), respSystemError, "is not a queue of topic")

	// A new connection has a quota of its own.
	other := dial(t, b.Addr)
	requireAnswer(t, other.call(codeHeartBeat, nil, heartbeatBody(t, "10.0.0.67@other", "T", names("J", 10, 20))), respSuccess, "")
	w.check()
}
