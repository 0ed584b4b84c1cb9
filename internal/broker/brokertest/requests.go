package brokertest

import (
	"strconv"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Msg is one message to send.
type Msg struct {
	Topic   string
	QueueID int32
	Body    []byte
	Tags    string            // TAGS, left out when empty
	Keys    string            // KEYS, left out when empty
	Props   map[string]string // further properties (UNIQ_KEY only if given here)
}

// Properties encodes the message's properties.
func (m Msg) Properties() string {
	props := map[string]string{}
	for k, v := range m.Props {
		props[k] = v
	}
	if m.Tags != "" {
		props[message.PropertyTags] = m.Tags
	}
	if m.Keys != "" {
		props[message.PropertyKeys] = m.Keys
	}
	if len(props) == 0 {
		return ""
	}
	return message.EncodeProperties(props)
}

// sendFields are the SEND_MESSAGE header fields in long and short (V2) spelling, as
// sendheader.go's table and protocol.md §2.3 list them.
var sendFields = [...][2]string{
	{"producerGroup", "a"}, {"topic", "b"}, {"defaultTopic", "c"}, {"defaultTopicQueueNums", "d"},
	{"queueId", "e"}, {"sysFlag", "f"}, {"bornTimestamp", "g"}, {"flag", "h"}, {"properties", "i"},
	{"reconsumeTimes", "j"}, {"unitMode", "k"}, {"maxReconsumeTimes", "l"}, {"batch", "m"},
}

// RequiredSendFields are the required fields of SEND_MESSAGE, long names.
var RequiredSendFields = []string{"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums",
	"queueId", "sysFlag", "bornTimestamp", "flag"}

// RequiredSendFieldsV2 are the required fields of SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE.
var RequiredSendFieldsV2 = []string{"a", "b", "c", "d", "e", "f", "g", "h"}

func sendExt(short int, topic string, queueID int32, props string) map[string]string {
	vals := []string{"PG_TEST", topic, "TBW102", "4", strconv.Itoa(int(queueID)), "0",
		strconv.FormatInt(time.Now().UnixMilli(), 10), "0", props, "0", "false", "16", "false"}
	ext := make(map[string]string, len(vals))
	for i, v := range vals {
		ext[sendFields[i][short]] = v
	}
	return ext
}

// SendRequest is SEND_MESSAGE with the long field names (the Go client's single send).
func SendRequest(m Msg) *protocol.Command {
	return protocol.NewRequest(protocol.SendMessage, sendExt(0, m.Topic, m.QueueID, m.Properties()), m.Body)
}

// SendV2Request is SEND_MESSAGE_V2 with the one-letter names (ali-ons).
func SendV2Request(m Msg) *protocol.Command {
	return protocol.NewRequest(protocol.SendMessageV2, sendExt(1, m.Topic, m.QueueID, m.Properties()), m.Body)
}

// BatchRequest is SEND_BATCH_MESSAGE of msgs (their topic and queue are the first's), with the
// one-letter names and batch=true, as the Go client sends it.
func BatchRequest(msgs ...Msg) *protocol.Command {
	var b []byte
	for _, m := range msgs {
		b = message.AppendBatchEntry(b, 0, m.Body, m.Properties())
	}
	ext := sendExt(1, msgs[0].Topic, msgs[0].QueueID, "")
	ext["m"] = "true"
	return protocol.NewRequest(protocol.SendBatchMessage, ext, b)
}

// Pull sysFlag bits (protocol.md §2.6).
const (
	PullCommitOffset int32 = 1 << 0
	PullSuspend      int32 = 1 << 1
	PullSubscription int32 = 1 << 2
)

// Pull is one PULL_MESSAGE.
type Pull struct {
	Group        string
	Topic        string
	QueueID      int32
	Offset       int64
	MaxMsgs      int32 // 32 when 0
	SysFlag      int32
	Suspend      time.Duration // suspendTimeoutMillis; 0 when not set
	Sub          string        // subscription, sent when not empty
	SubVersion   int64
	CommitOffset int64
}

// RequiredPullFields are PULL_MESSAGE's required fields.
var RequiredPullFields = []string{"consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums",
	"sysFlag", "commitOffset", "suspendTimeoutMillis", "subVersion"}

// PullRequest builds PULL_MESSAGE.
func PullRequest(p Pull) *protocol.Command {
	if p.MaxMsgs == 0 {
		p.MaxMsgs = 32
	}
	ext := map[string]string{
		"consumerGroup":        p.Group,
		"topic":                p.Topic,
		"queueId":              strconv.Itoa(int(p.QueueID)),
		"queueOffset":          strconv.FormatInt(p.Offset, 10),
		"maxMsgNums":           strconv.Itoa(int(p.MaxMsgs)),
		"sysFlag":              strconv.Itoa(int(p.SysFlag)),
		"commitOffset":         strconv.FormatInt(p.CommitOffset, 10),
		"suspendTimeoutMillis": strconv.FormatInt(p.Suspend.Milliseconds(), 10),
		"subVersion":           strconv.FormatInt(p.SubVersion, 10),
		"expressionType":       body.ExpressionTag,
	}
	if p.Sub != "" {
		ext["subscription"] = p.Sub
	}
	return protocol.NewRequest(protocol.PullMessage, ext, nil)
}

// HeartbeatRequest is a consumer's HEART_BEAT for group with one subscription per topic (topic →
// tag expression), as the Go push consumer sends it.
func HeartbeatRequest(t testing.TB, clientID, group string, subs map[string]string) *protocol.Command {
	t.Helper()
	cd := body.ConsumerData{GroupName: group, ConsumeType: body.ConsumePassively, MessageModel: body.Clustering,
		ConsumeFromWhere: "CONSUME_FROM_LAST_OFFSET"}
	for topic, expr := range subs {
		sd := body.SubscriptionData{Topic: topic, SubString: expr, ExpressionType: body.ExpressionTag,
			SubVersion: body.Int64(time.Now().UnixNano())}
		for _, tag := range client.ParseTags(expr) {
			sd.TagsSet = append(sd.TagsSet, tag)
			sd.CodeSet = append(sd.CodeSet, message.JavaHash(tag))
		}
		cd.SubscriptionDataSet = append(cd.SubscriptionDataSet, sd)
	}
	hb := body.HeartbeatData{ClientID: clientID, ConsumerDataSet: []body.ConsumerData{cd}, ProducerDataSet: []body.ProducerData{}}
	data, err := body.Marshal(hb)
	if err != nil {
		t.Fatalf("marshal heartbeat: %v", err)
	}
	return protocol.NewRequest(protocol.HeartBeat, map[string]string{}, data)
}

// CreateTopicRequest is UPDATE_AND_CREATE_TOPIC with queues read and write queues, perm RW.
func CreateTopicRequest(topic string, queues int) *protocol.Command {
	q := strconv.Itoa(queues)
	return protocol.NewRequest(protocol.UpdateAndCreateTopic, map[string]string{
		"topic": topic, "defaultTopic": "TBW102", "readQueueNums": q, "writeQueueNums": q,
		"perm": "6", "topicFilterType": body.SingleTag, "topicSysFlag": "0", "order": "false",
	}, nil)
}

// QueueRequest is a request naming a topic queue (GET_MAX_OFFSET, GET_MIN_OFFSET, ...).
func QueueRequest(code protocol.RequestCode, topic string, queueID int32) *protocol.Command {
	return protocol.NewRequest(code, map[string]string{"topic": topic, "queueId": strconv.Itoa(int(queueID))}, nil)
}

// ExtInt parses a numeric ext field of cmd, failing the test when it is missing or malformed.
func ExtInt(t testing.TB, cmd *protocol.Command, key string) int64 {
	t.Helper()
	v, ok := cmd.ExtFields[key]
	if !ok {
		t.Fatalf("response (code %d %q) has no ext field %q: %v", cmd.Code, cmd.Remark, key, cmd.ExtFields)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("ext field %s=%q is not a number", key, v)
	}
	return n
}

// Records decodes a pull or query body, checking every body CRC.
func Records(t testing.TB, cmd *protocol.Command) []*message.MessageExt {
	t.Helper()
	msgs, err := message.DecodeAll(cmd.Body, true)
	if err != nil {
		t.Fatalf("decode records: %v", err)
	}
	return msgs
}
