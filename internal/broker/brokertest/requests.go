package brokertest

import (
	"strconv"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
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

// RequiredSendFields are the required fields of SEND_MESSAGE, long names, in Java's order.
var RequiredSendFields = RequiredFields(&protocol.SendMessageRequestHeader{})

// RequiredSendFieldsV2 are the required fields of SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE.
var RequiredSendFieldsV2 = RequiredFields(&protocol.SendMessageRequestHeaderV2{})

// RequiredFields lists the ext fields h always sends, which are its required ones, in order:
// the names a request without them is refused for.
func RequiredFields(h protocol.Header) []string {
	var ext protocol.Ext
	h.Encode(&ext)
	var names []string
	for k := range ext.All() {
		names = append(names, k)
	}
	return names
}

// sendHeader is the header of a test send to topic and queueID, as the Go client fills it.
func sendHeader(topic string, queueID int32, props string) protocol.SendMessageRequestHeader {
	return protocol.SendMessageRequestHeader{
		ProducerGroup: "PG_TEST", Topic: topic, DefaultTopic: systopic.AutoCreate, DefaultTopicQueueNums: 4,
		QueueID: queueID, BornTimestamp: time.Now().UnixMilli(), Properties: protocol.Some(props),
		ReconsumeTimes: protocol.Some[int32](0), UnitMode: protocol.Some(false),
		MaxReconsumeTimes: protocol.Some[int32](16), Batch: protocol.Some(false),
	}
}

// SendRequest is SEND_MESSAGE with the long field names (the Go client's single send).
func SendRequest(m Msg) *protocol.Command {
	h := sendHeader(m.Topic, m.QueueID, m.Properties())
	return protocol.NewHeaderRequest(protocol.SendMessage, &h, m.Body)
}

// SendV2Request is SEND_MESSAGE_V2 with the one-letter names (ali-ons).
func SendV2Request(m Msg) *protocol.Command {
	h := protocol.SendMessageRequestHeaderV2(sendHeader(m.Topic, m.QueueID, m.Properties()))
	return protocol.NewHeaderRequest(protocol.SendMessageV2, &h, m.Body)
}

// BatchRequest is SEND_BATCH_MESSAGE of msgs (their topic and queue are the first's), with the
// one-letter names and batch=true, as the Go client sends it.
func BatchRequest(msgs ...Msg) *protocol.Command {
	var b []byte
	for _, m := range msgs {
		b = message.AppendBatchEntry(b, 0, m.Body, m.Properties())
	}
	h := protocol.SendMessageRequestHeaderV2(sendHeader(msgs[0].Topic, msgs[0].QueueID, ""))
	h.Batch = protocol.Some(true)
	return protocol.NewHeaderRequest(protocol.SendBatchMessage, &h, b)
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
var RequiredPullFields = RequiredFields(&protocol.PullMessageRequestHeader{})

// PullRequest builds PULL_MESSAGE.
func PullRequest(p Pull) *protocol.Command {
	if p.MaxMsgs == 0 {
		p.MaxMsgs = 32
	}
	h := &protocol.PullMessageRequestHeader{
		ConsumerGroup:        p.Group,
		Topic:                p.Topic,
		QueueID:              p.QueueID,
		QueueOffset:          p.Offset,
		MaxMsgNums:           p.MaxMsgs,
		SysFlag:              p.SysFlag,
		CommitOffset:         p.CommitOffset,
		SuspendTimeoutMillis: p.Suspend.Milliseconds(),
		SubVersion:           p.SubVersion,
		ExpressionType:       protocol.Some(body.ExpressionTag),
	}
	if p.Sub != "" {
		h.Subscription = protocol.Some(p.Sub)
	}
	return protocol.NewHeaderRequest(protocol.PullMessage, h, nil)
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
	return protocol.NewRequest(protocol.HeartBeat, nil, data)
}

// CreateTopicRequest is UPDATE_AND_CREATE_TOPIC with queues read and write queues, perm RW.
func CreateTopicRequest(topic string, queues int) *protocol.Command {
	return protocol.NewHeaderRequest(protocol.UpdateAndCreateTopic, &protocol.CreateTopicRequestHeader{
		Topic: topic, DefaultTopic: systopic.AutoCreate, ReadQueueNums: int32(queues), WriteQueueNums: int32(queues),
		Perm: body.PermRead | body.PermWrite, TopicFilterType: protocol.Some(body.SingleTag),
		TopicSysFlag: protocol.Some[int32](0), Order: protocol.Some(false),
	}, nil)
}

// QueueRequest is a request that names a topic queue and nothing else: GET_MAX_OFFSET,
// GET_MIN_OFFSET or GET_EARLIEST_MSG_STORETIME.
func QueueRequest(code protocol.RequestCode, topic string, queueID int32) *protocol.Command {
	var h protocol.Header
	switch code {
	case protocol.GetMinOffset:
		h = &protocol.GetMinOffsetRequestHeader{Topic: topic, QueueID: queueID}
	case protocol.GetEarliestMsgStoreTime:
		h = &protocol.GetEarliestMsgStoretimeRequestHeader{Topic: topic, QueueID: queueID}
	default:
		h = &protocol.GetMaxOffsetRequestHeader{Topic: topic, QueueID: queueID}
	}
	return protocol.NewHeaderRequest(code, h, nil)
}

// ExtInt parses a numeric ext field of cmd, failing the test when it is missing or malformed.
func ExtInt(t testing.TB, cmd *protocol.Command, key string) int64 {
	t.Helper()
	v, ok := cmd.ExtFields.Lookup(key)
	if !ok {
		t.Fatalf("response (code %d %q) has no ext field %q: %v", cmd.Code, cmd.Remark, key, cmd.ExtFields.Map())
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
