package admin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// OutMessage is a message to send: what Java's Message(topic, tags, keys, body) holds.
type OutMessage struct {
	Topic string
	Tags  string
	Keys  string
	Body  []byte
}

// SendResult is a stored message's place and status, named as Java's SendResult.
type SendResult struct {
	Status      string // SEND_OK, FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE
	MsgID       string // the UNIQ_KEY the producer gave it
	OffsetMsgID string
	Queue       body.MessageQueue
	QueueOffset int64
	BrokerAddr  string
	RegionID    string
}

// sendStatuses are the answers that mean the message is stored.
var sendStatuses = map[protocol.ResponseCode]string{
	protocol.Success:           "SEND_OK",
	protocol.FlushDiskTimeout:  "FLUSH_DISK_TIMEOUT",
	protocol.FlushSlaveTimeout: "FLUSH_SLAVE_TIMEOUT",
	protocol.SlaveNotAvailable: "SLAVE_NOT_AVAILABLE",
}

// sendAttempts is how often a send without a chosen queue is tried, each time on the next
// queue (Java retryTimesWhenSendFailed = 2).
const sendAttempts = 3

// Producer sends messages as Java's DefaultMQProducer does for mqadmin's sendMessage: the
// topic's writable queues from its route (TBW102's, four queues per broker, for a topic not yet
// created, which the broker then creates), a random first queue, a retry on the next one.
type Producer struct {
	c     *Client
	group string
	ids   *message.UniqIDGenerator
	now   func() time.Time
}

// NewProducer returns a producer of group over c.
func (c *Client) NewProducer(group string) *Producer {
	return &Producer{c: c, group: group, now: time.Now,
		ids: message.NewUniqIDGenerator(localIP(), os.Getpid(), rand.Int32(), nil)}
}

// Send stores m on the queue given, or on one the route offers.
func (p *Producer) Send(ctx context.Context, m OutMessage, target *body.MessageQueue) (*SendResult, error) {
	route, auto, err := p.publishRoute(ctx, m.Topic)
	if err != nil {
		return nil, err
	}
	queues := writeQueues(route, m.Topic, auto)
	if target != nil {
		queues = []body.MessageQueue{*target}
	}
	if len(queues) == 0 {
		return nil, fmt.Errorf("admin: no writable queue of topic %s", m.Topic)
	}
	props := p.properties(m)
	start := rand.IntN(len(queues))
	var errs []error
	for i := range min(sendAttempts, len(queues)) {
		mq := queues[(start+i)%len(queues)]
		r, err := p.sendTo(ctx, route, mq, m, props)
		if err == nil {
			return r, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// publishRoute is the topic's route, or TBW102's when the topic has none (auto is then true).
func (p *Producer) publishRoute(ctx context.Context, topic string) (route *body.TopicRouteData, auto bool, err error) {
	route, err = p.c.TopicRoute(ctx, topic)
	if !IsCode(err, protocol.TopicNotExist) {
		return route, false, err
	}
	route, err = p.c.TopicRoute(ctx, systopic.AutoCreate)
	if err != nil {
		return nil, false, fmt.Errorf("admin: topic %s has no route, nor has %s to create it from: %w", topic, systopic.AutoCreate, err)
	}
	return route, true, nil
}

// defaultTopicQueueNums is how many queues a topic created by a send gets on each broker.
const defaultTopicQueueNums = 4

// writeQueues lists the write queues of the route's writable broker groups that have a master.
func writeQueues(route *body.TopicRouteData, topic string, auto bool) []body.MessageQueue {
	var mqs []body.MessageQueue
	for _, qd := range sortedQueueDatas(route) {
		if qd.Perm&body.PermWrite == 0 || masterOf(route, qd.BrokerName) == "" {
			continue
		}
		n := qd.WriteQueueNums
		if auto {
			n = min(n, defaultTopicQueueNums)
		}
		for q := range int32(n) {
			mqs = append(mqs, body.MessageQueue{Topic: topic, BrokerName: qd.BrokerName, QueueID: q})
		}
	}
	return mqs
}

func sortedQueueDatas(route *body.TopicRouteData) []body.QueueData {
	qds := slices.Clone(route.QueueDatas)
	slices.SortFunc(qds, func(a, b body.QueueData) int { return cmp.Compare(a.BrokerName, b.BrokerName) })
	return qds
}

// masterOf is a broker group's master address in the route, or "".
func masterOf(route *body.TopicRouteData, brokerName string) string {
	for _, bd := range route.BrokerDatas {
		if bd.BrokerName == brokerName {
			return bd.BrokerAddrs[body.MasterID]
		}
	}
	return ""
}

// properties are the message's properties as Java's Message sets them, with a new UNIQ_KEY.
func (p *Producer) properties(m OutMessage) map[string]string {
	props := map[string]string{message.PropertyWaitStoreMsgOK: "true",
		message.PropertyUniqClientMessageID: p.ids.New()}
	if m.Tags != "" {
		props[message.PropertyTags] = m.Tags
	}
	if m.Keys != "" {
		props[message.PropertyKeys] = m.Keys
	}
	return props
}

// sendTo sends one SEND_MESSAGE to the master of mq's broker group.
func (p *Producer) sendTo(ctx context.Context, route *body.TopicRouteData, mq body.MessageQueue, m OutMessage,
	props map[string]string) (*SendResult, error) {
	addr := masterOf(route, mq.BrokerName)
	if addr == "" {
		return nil, fmt.Errorf("admin: broker %s of topic %s has no master in the route", mq.BrokerName, mq.Topic)
	}
	h := &protocol.SendMessageRequestHeader{ProducerGroup: p.group, Topic: m.Topic, DefaultTopic: systopic.AutoCreate,
		DefaultTopicQueueNums: defaultTopicQueueNums, QueueID: mq.QueueID, BornTimestamp: p.now().UnixMilli(),
		Properties: protocol.Some(message.EncodeProperties(props)), ReconsumeTimes: protocol.Some(int32(0)),
		UnitMode: protocol.Some(false), Batch: protocol.Some(false), BrokerName: protocol.Some(mq.BrokerName)}
	resp, err := p.c.invokeAny(ctx, addr, protocol.NewHeaderRequest(protocol.SendMessage, h, m.Body))
	if err != nil {
		return nil, err
	}
	status, ok := sendStatuses[resp.ResponseCode()]
	if !ok {
		return nil, &ServerError{Addr: addr, Request: protocol.SendMessage, Code: resp.ResponseCode(), Remark: resp.Remark}
	}
	var rh protocol.SendMessageResponseHeader
	if err := rh.Decode(resp.ExtFields); err != nil {
		return nil, fmt.Errorf("admin: %s SEND_MESSAGE: %w in the answer", addr, err)
	}
	mq.QueueID = rh.QueueID
	region := rh.MsgRegion.V
	if region == "" {
		region = "DefaultRegion"
	}
	return &SendResult{Status: status, MsgID: props[message.PropertyUniqClientMessageID], OffsetMsgID: rh.MsgID, Queue: mq,
		QueueOffset: rh.QueueOffset, BrokerAddr: addr, RegionID: region}, nil
}

// SendTrace writes the message trace of a send to RMQ_SYS_TRACE_TOPIC as Java's trace hook does
// (a "Pub" record: TraceDataEncoder's fields, \x01 between them, \x02 after), with the message's
// id and keys as the trace's keys. cost is how long the send took.
func (p *Producer) SendTrace(ctx context.Context, m OutMessage, r *SendResult, cost time.Duration) error {
	fields := []string{"Pub", strconv.FormatInt(p.now().UnixMilli(), 10), r.RegionID, p.group, m.Topic, r.MsgID,
		javaStr(m.Tags), javaStr(m.Keys), r.BrokerAddr, strconv.Itoa(len(m.Body)), strconv.FormatInt(cost.Milliseconds(), 10),
		"0", r.OffsetMsgID, "true"}
	keys := strings.TrimSpace(r.MsgID + " " + m.Keys)
	trace := OutMessage{Topic: systopic.Trace, Keys: keys, Body: []byte(strings.Join(fields, "\x01") + "\x02")}
	_, err := (&Producer{c: p.c, group: "_INNER_TRACE_PRODUCER-" + p.group, ids: p.ids, now: p.now}).Send(ctx, trace, nil)
	return err
}

// javaStr is a string as Java's StringBuilder appends it: null when unset.
func javaStr(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// localIP is the host's first non-loopback IPv4 address, for message ids; 127.0.0.1 without one.
func localIP() netip.Addr {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() && !p.Addr().IsLoopback() {
			return p.Addr()
		}
	}
	return netip.MustParseAddr("127.0.0.1")
}
