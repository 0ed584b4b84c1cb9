package interop

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Request codes this suite sends raw, as Apache's tools do (RequestCode in Apache RocketMQ).
const (
	reqQueryMessage          = 12
	reqUpdateConsumerOffset  = 15
	reqUpdateAndCreateTopic  = 17
	reqGetAllTopicConfig     = 21
	reqViewMessageByID       = 33
	reqGetAllConsumerOffset  = 43
	reqGetAllDelayOffset     = 45
	reqCreateSubscription    = 200
	reqGetAllSubscriptionCfg = 201
)

// rpcTimeout bounds one raw request.
const rpcTimeout = 10 * time.Second

// invoke sends one request and requires SUCCESS.
func invoke(t *testing.T, addr string, code int, ext map[string]string, body []byte) *cluster.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	resp, err := cluster.Invoke(ctx, addr, code, ext, body)
	if err != nil {
		t.Fatalf("interop: request %d to %s: %v", code, addr, err)
	}
	if resp.Code != cluster.CodeSuccess {
		t.Fatalf("interop: request %d %v to %s answered %v", code, ext, addr, resp)
	}
	return resp
}

// topicConfig is a TopicConfig as GET_ALL_TOPIC_CONFIG carries it; the fields both versions have.
type topicConfig struct {
	TopicName       string `json:"topicName"`
	ReadQueueNums   int    `json:"readQueueNums"`
	WriteQueueNums  int    `json:"writeQueueNums"`
	Perm            int    `json:"perm"`
	TopicFilterType string `json:"topicFilterType"`
	TopicSysFlag    int    `json:"topicSysFlag"`
	Order           bool   `json:"order"`
}

// createTopic sends UPDATE_AND_CREATE_TOPIC for tc to the broker at addr.
func createTopic(t *testing.T, addr string, tc topicConfig) {
	t.Helper()
	invoke(t, addr, reqUpdateAndCreateTopic, map[string]string{
		"topic":           tc.TopicName,
		"defaultTopic":    "TBW102",
		"readQueueNums":   strconv.Itoa(tc.ReadQueueNums),
		"writeQueueNums":  strconv.Itoa(tc.WriteQueueNums),
		"perm":            strconv.Itoa(tc.Perm),
		"topicFilterType": tc.TopicFilterType,
		"topicSysFlag":    strconv.Itoa(tc.TopicSysFlag),
		"order":           strconv.FormatBool(tc.Order),
	}, nil)
}

// allTopics is GET_ALL_TOPIC_CONFIG's table.
func allTopics(t *testing.T, addr string) map[string]topicConfig {
	t.Helper()
	var body struct {
		TopicConfigTable map[string]topicConfig `json:"topicConfigTable"`
	}
	decodeBody(t, invoke(t, addr, reqGetAllTopicConfig, nil, nil), &body)
	return body.TopicConfigTable
}

// groupConfig is a SubscriptionGroupConfig; the fields both versions have.
type groupConfig struct {
	GroupName                      string `json:"groupName"`
	ConsumeEnable                  bool   `json:"consumeEnable"`
	ConsumeFromMinEnable           bool   `json:"consumeFromMinEnable"`
	ConsumeBroadcastEnable         bool   `json:"consumeBroadcastEnable"`
	RetryQueueNums                 int    `json:"retryQueueNums"`
	RetryMaxTimes                  int    `json:"retryMaxTimes"`
	BrokerID                       int64  `json:"brokerId"`
	WhichBrokerWhenConsumeSlowly   int64  `json:"whichBrokerWhenConsumeSlowly"`
	NotifyConsumerIdsChangedEnable bool   `json:"notifyConsumerIdsChangedEnable"`
}

// createGroup sends UPDATE_AND_CREATE_SUBSCRIPTIONGROUP with gc as its body.
func createGroup(t *testing.T, addr string, gc groupConfig) {
	t.Helper()
	body, err := json.Marshal(gc)
	if err != nil {
		t.Fatal(err)
	}
	invoke(t, addr, reqCreateSubscription, nil, body)
}

// allGroups is GET_ALL_SUBSCRIPTIONGROUP_CONFIG's table.
func allGroups(t *testing.T, addr string) map[string]groupConfig {
	t.Helper()
	var body struct {
		SubscriptionGroupTable map[string]groupConfig `json:"subscriptionGroupTable"`
	}
	decodeBody(t, invoke(t, addr, reqGetAllSubscriptionCfg, nil, nil), &body)
	return body.SubscriptionGroupTable
}

// commitOffset sends UPDATE_CONSUMER_OFFSET.
func commitOffset(t *testing.T, addr, group, topic string, queue int, offset int64) {
	t.Helper()
	invoke(t, addr, reqUpdateConsumerOffset, map[string]string{
		"consumerGroup": group, "topic": topic, "queueId": strconv.Itoa(queue),
		"commitOffset": strconv.FormatInt(offset, 10),
	}, nil)
}

// consumerOffset is QUERY_CONSUMER_OFFSET's answer, -1 for QUERY_NOT_FOUND.
func consumerOffset(t *testing.T, addr, group, topic string, queue int) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	off, found, err := cluster.QueryConsumerOffset(ctx, addr, group, topic, queue)
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	if !found {
		return -1
	}
	return off
}

// delayOffsets is GET_ALL_DELAY_OFFSET's offset table: delay level → offset in its schedule queue.
func delayOffsets(t *testing.T, addr string) map[string]int64 {
	t.Helper()
	var body struct {
		OffsetTable map[string]int64 `json:"offsetTable"`
	}
	decodeBody(t, invoke(t, addr, reqGetAllDelayOffset, nil, nil), &body)
	return body.OffsetTable
}

// allConsumerOffsets is GET_ALL_CONSUMER_OFFSET's table: "topic@group" → queue id → offset.
func allConsumerOffsets(t *testing.T, addr string) map[string]map[string]int64 {
	t.Helper()
	var body struct {
		OffsetTable map[string]map[string]int64 `json:"offsetTable"`
	}
	decodeBody(t, invoke(t, addr, reqGetAllConsumerOffset, nil, nil), &body)
	return body.OffsetTable
}

// decodeBody reads a fastjson body (bare numeric keys allowed) into v.
func decodeBody(t *testing.T, resp *cluster.Response, v any) {
	t.Helper()
	if err := json.Unmarshal(cluster.LenientJSON(resp.Body), v); err != nil {
		t.Fatalf("interop: decode body %q: %v", clipBytes(resp.Body, 400), err)
	}
}

// pullAll reads every record of a queue from offset 0 with raw PULL_MESSAGE.
func pullAll(t *testing.T, addr, topic string, queue int) []cluster.Record {
	t.Helper()
	recs, err := tryPullAll(addr, topic, queue)
	if err != nil {
		t.Fatalf("interop: %v", err)
	}
	return recs
}

// tryPullAll is pullAll returning what went wrong.
func tryPullAll(addr, topic string, queue int) ([]cluster.Record, error) {
	var out []cluster.Record
	for off := int64(0); ; {
		ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
		res, err := cluster.Pull(ctx, addr, cluster.PullRequest{Group: "INTEROP_RAW", Topic: topic,
			QueueID: queue, Offset: off, MaxMsgs: 32})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("pull %s/%d@%d from %s: %w", topic, queue, off, addr, err)
		}
		switch res.Code {
		case cluster.CodeSuccess:
			out = append(out, res.Messages...)
			off = res.NextBeginOffset
		case cluster.CodePullNotFound, cluster.CodePullOffsetMoved:
			if off < res.MaxOffset {
				return nil, fmt.Errorf("pull %s/%d@%d from %s: %d %s below max offset %d", topic, queue, off, addr,
					res.Code, res.Remark, res.MaxOffset)
			}
			return out, nil
		default:
			return nil, fmt.Errorf("pull %s/%d@%d from %s: %d %s", topic, queue, off, addr, res.Code, res.Remark)
		}
	}
}

// queryByKey is QUERY_MESSAGE for key (or, with unique, the UNIQ_KEY index entry) over all time.
func queryByKey(t *testing.T, addr, topic, key string, unique bool) []cluster.Record {
	t.Helper()
	ext := map[string]string{
		"topic": topic, "key": key, "maxNum": "64",
		"beginTimestamp": "0", "endTimestamp": strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10),
	}
	if unique {
		ext["_UNIQUE_KEY_QUERY"] = "true"
	}
	recs, err := cluster.DecodeRecords(invoke(t, addr, reqQueryMessage, ext, nil).Body)
	if err != nil {
		t.Fatalf("interop: QUERY_MESSAGE %s/%s on %s: %v", topic, key, addr, err)
	}
	return recs
}

// viewByID is VIEW_MESSAGE_BY_ID for the CommitLog offset an offsetMsgId names.
func viewByID(t *testing.T, addr, offsetMsgID string) cluster.Record {
	t.Helper()
	raw, err := hex.DecodeString(offsetMsgID)
	if err != nil || len(raw) != 16 {
		t.Fatalf("interop: offsetMsgId %q is not 16 hex bytes", offsetMsgID)
	}
	var phys int64
	for _, b := range raw[8:] {
		phys = phys<<8 | int64(b)
	}
	recs, err := cluster.DecodeRecords(invoke(t, addr, reqViewMessageByID,
		map[string]string{"offset": strconv.FormatInt(phys, 10)}, nil).Body)
	if err != nil || len(recs) != 1 {
		t.Fatalf("interop: VIEW_MESSAGE_BY_ID %d on %s: %d records, %v", phys, addr, len(recs), err)
	}
	return recs[0]
}

func clipBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return fmt.Sprintf("%s...(%d bytes)", b[:n], len(b))
}
