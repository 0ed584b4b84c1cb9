package processor

import (
	"context"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"

	"github.com/rocketgo/rocketgo/internal/broker/schedule"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// sendTarget is where a checked send goes.
type sendTarget struct {
	topic   string
	queueID int32
	cfg     body.TopicConfig
}

// sendMessage stores one message (SEND_MESSAGE, SEND_MESSAGE_V2).
func (p *Processor) sendMessage(ctx context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	h, err := parseSendHeader(req)
	if err != nil {
		return nil, err
	}
	if h.batch {
		return p.sendBatch(ctx, c, req)
	}
	t, err := p.checkSend(&h, req)
	if err != nil {
		return nil, err
	}
	if len(req.Body) > p.opts.MaxMessageSize {
		return nil, fail(protocol.MessageIllegal, "the message body size %d exceeds maxMessageSize %d", len(req.Body), p.opts.MaxMessageSize)
	}
	dlq := false
	if t, dlq, err = p.retryOrDLQ(&h, t); err != nil {
		return nil, err
	}
	msg := store.Message{
		Topic:          t.topic,
		QueueID:        t.queueID,
		Flag:           h.flag,
		SysFlag:        h.sysFlag,
		BornTimestamp:  h.bornTimestamp,
		BornHost:       bornHost(c),
		ReconsumeTimes: h.reconsumeTimes,
		Body:           req.Body,
		Properties:     p.withUniqKey(h.properties),
	}
	if transaction.IsHalfSend(h.properties, h.reconsumeTimes) {
		// The first half of a transaction: stored invisible until END_TRANSACTION commits it.
		if err := p.Transactions.Prepare(&msg); err != nil {
			return nil, fail(protocol.NoPermission, "the broker[%s] sending transaction message is forbidden", p.opts.StoreHost.Addr())
		}
	} else if level := schedule.DelayLevel(h.properties); level > 0 && !dlq {
		schedule.Defer(&msg, level, p.opts.MaxDelayLevel)
	}
	res := p.Store.PutMessage(&msg)
	if res.Status.Stored() {
		p.Metrics.MessagesIn(t.topic, messageType(h.properties, t.cfg), 1, int(res.WroteBytes))
	}
	return p.sendResponse(req, &res, t.queueID)
}

// checkSend validates the target topic and queue (Java msgCheck), creating the topic from
// defaultTopic when it is new and auto-creation allows it.
func (p *Processor) checkSend(h *sendHeader, req *protocol.Command) (sendTarget, error) {
	if p.opts.BrokerPermission&body.PermWrite == 0 {
		return sendTarget{}, fail(protocol.NoPermission, "the broker[%s] sending message is forbidden", p.opts.BrokerName)
	}
	if err := topic.ValidateTopic(h.topic); err != nil {
		return sendTarget{}, fail(protocol.MessageIllegal, "%s topic: %q", err.Error(), h.topic)
	}
	if systopic.IsNotAllowedSend(h.topic) {
		return sendTarget{}, fail(protocol.NoPermission, "Sending message to topic[%s] is forbidden.", h.topic)
	}
	cfg, ok := p.Topics.Get(h.topic)
	if !ok {
		sysFlag := 0
		if h.unitMode {
			sysFlag = 1 // TopicSysFlag UNIT
		}
		if strings.HasPrefix(h.topic, systopic.RetryPrefix) {
			cfg, ok = p.Topics.CreateTopicInSendMessageBack(h.topic, 1, body.PermRead|body.PermWrite, sysFlag), true
		} else {
			cfg, ok = p.Topics.CreateTopicInSendMessage(h.topic, h.defaultTopic, int(h.defaultTopicQueueNums), sysFlag)
		}
		if !ok {
			return sendTarget{}, fail(protocol.TopicNotExist, "topic[%s] not exist, apply first please!", h.topic)
		}
	}
	if cfg.Perm&body.PermWrite == 0 {
		return sendTarget{}, fail(protocol.NoPermission, "the topic[%s] sending message is forbidden", h.topic)
	}
	qid := h.queueID
	if limit := int32(max(cfg.ReadQueueNums, cfg.WriteQueueNums)); qid >= limit {
		return sendTarget{}, fail(protocol.SystemError, "request queueId[%d] is illegal, topic %s has %d queues, producer: %s",
			qid, h.topic, limit, req.ExtFields.Get("a")+req.ExtFields.Get("producerGroup"))
	}
	if qid < 0 {
		qid = rand.Int32N(int32(max(cfg.WriteQueueNums, 1)))
	}
	return sendTarget{topic: h.topic, queueID: qid, cfg: cfg}, nil
}

// retryOrDLQ moves a message sent to a %RETRY% topic that has been reconsumed too often to the
// group's dead-letter queue (Java handleRetryAndDLQ); dlq reports that it did.
func (p *Processor) retryOrDLQ(h *sendHeader, t sendTarget) (_ sendTarget, dlq bool, _ error) {
	group, ok := strings.CutPrefix(t.topic, systopic.RetryPrefix)
	if !ok {
		return t, false, nil
	}
	gc, ok := p.Groups.FindOrCreate(group)
	if !ok {
		return t, false, fail(protocol.SubscriptionGroupNotExist, "subscription group not exist, %s", group)
	}
	maxTimes := int32(gc.RetryMaxTimes)
	if h.maxReconsumeTimes >= 0 {
		maxTimes = h.maxReconsumeTimes
	}
	if h.reconsumeTimes < maxTimes {
		return t, false, nil
	}
	name := systopic.DLQ(group)
	cfg := p.Topics.CreateTopicInSendMessageBack(name, 1, body.PermRead|body.PermWrite, 0)
	return sendTarget{topic: name, queueID: 0, cfg: cfg}, true, nil
}

// withUniqKey returns props with a UNIQ_KEY added when it has none (ali-ons and batches of the Go
// client send none); props that have one pass through untouched, without copying.
func (p *Processor) withUniqKey(props string) string {
	if _, ok := message.LookupPropertyString(props, message.PropertyUniqClientMessageID); ok {
		return props
	}
	buf := make([]byte, 0, len(props)+64)
	buf = append(buf, props...)
	if len(buf) > 0 && buf[len(buf)-1] != message.PropertySeparator {
		buf = append(buf, message.PropertySeparator)
	}
	buf = append(buf, message.PropertyUniqClientMessageID...)
	buf = append(buf, message.NameValueSeparator)
	buf = p.uniq.Append(buf)
	buf = append(buf, message.PropertySeparator)
	return string(buf)
}

// sendResponse maps a put's outcome to the answer (Java handlePutMessageResult).
func (p *Processor) sendResponse(req *protocol.Command, res *store.PutResult, queueID int32) (*protocol.Command, error) {
	code, remark := putResponseCode(res)
	if !res.Status.Stored() {
		return nil, fail(code, "%s", remark)
	}
	resp := protocol.NewResponse(req, code, remark)
	var ids []byte
	if len(res.Offsets) > 0 {
		ids = res.AppendMsgIDs(make([]byte, 0, len(res.Offsets)*33))
	} else {
		var buf [64]byte
		ids = res.AppendMsgIDs(buf[:0])
	}
	resp.SetExt("msgId", string(ids))
	resp.SetExt("queueId", strconv.FormatInt(int64(queueID), 10))
	resp.SetExt("queueOffset", strconv.FormatInt(res.QueueOffset, 10))
	resp.SetExt("MSG_REGION", p.opts.RegionID)
	resp.SetExt("TRACE_ON", strconv.FormatBool(p.opts.TraceOn))
	return resp, nil
}

// putResponseCode is the one table from store outcomes to send response codes.
func putResponseCode(res *store.PutResult) (protocol.ResponseCode, string) {
	switch res.Status {
	case store.PutOK:
		return protocol.Success, ""
	case store.FlushDiskTimeout:
		return protocol.FlushDiskTimeout, "flush disk timeout"
	case store.FlushSlaveTimeout:
		return protocol.FlushSlaveTimeout, "flush slave timeout"
	case store.SlaveNotAvailable:
		return protocol.SlaveNotAvailable, "slave not available"
	case store.MessageIllegal, store.PropertiesSizeExceeded:
		return protocol.MessageIllegal, orRemark(res, "the message is illegal: body or properties too long")
	case store.ServiceNotAvailable:
		return protocol.ServiceNotAvailable, orRemark(res, "service not available now: the message store is not writable")
	case store.CreateMappedFileFailed:
		return protocol.ServiceNotAvailable, orRemark(res, "create mapped file failed, the disk may be full")
	case store.OSPageCacheBusy:
		return protocol.SystemBusy, "[PC_SYNCHRONIZED]broker busy, start flow control for a while"
	default:
		return protocol.SystemError, orRemark(res, "unknown error storing the message")
	}
}

func orRemark(res *store.PutResult, def string) string {
	if res.Remark != "" {
		return res.Remark
	}
	return def
}

// bornHost is the producer's address as the connection sees it.
func bornHost(c *remoting.Conn) netip.AddrPort {
	ap, err := netip.ParseAddrPort(c.RemoteAddr())
	if err != nil {
		return netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
	}
	return ap
}

// messageType classifies a send for the metrics, as RocketMQ 5 does.
func messageType(props string, cfg body.TopicConfig) metrics.MessageType {
	if v, ok := message.LookupPropertyString(props, message.PropertyTransactionPrepared); ok && strings.EqualFold(v, "true") {
		return metrics.Transaction
	}
	if v, ok := message.LookupPropertyString(props, message.PropertyDelayTimeLevel); ok && v != "0" {
		return metrics.Delay
	}
	if _, ok := message.LookupPropertyString(props, message.PropertyTimerDeliverMS); ok {
		return metrics.Delay
	}
	if cfg.Order {
		return metrics.FIFO
	}
	return metrics.Normal
}
