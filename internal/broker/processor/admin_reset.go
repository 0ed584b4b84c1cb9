package processor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// minClientVersionForReset is MQVersion V3_0_7_SNAPSHOT's ordinal: older clients know neither
// RESET_CONSUMER_CLIENT_OFFSET nor GET_CONSUMER_STATUS_FROM_CLIENT.
const minClientVersionForReset = 28

// languageCPP is the request language for which Java sends the C++ client's reset body.
const languageCPP = "CPP"

// invokeBrokerToResetOffset moves a consumer group's offsets on every queue of a topic to the
// offset of a point in time (INVOKE_BROKER_TO_RESET_OFFSET, Java Broker2Client.resetOffset).
//
// For each queue (0..writeQueueNums-1, as Java counts them) the target is the max offset when
// timestamp is -1, else the store's offset for the timestamp (4.9's nearest-neighbour rule). Unless
// isForce is set a queue only moves back: a target at or beyond the committed offset keeps the
// committed one. A queue without a committed offset fails the request, as in Java. With nobody
// of the group online the answer is CONSUMER_NOT_ONLINE and nothing changes (Java's admin tool
// then falls back to UPDATE_CONSUMER_OFFSET per queue). Otherwise the offsets are committed here
// (so a consumer that starts or rebalances reads them; Java leaves that to the clients, which
// commit the new offsets themselves), every member gets RESET_CONSUMER_CLIENT_OFFSET (oneway),
// and the answer is the ResetOffsetBody of the new offsets.
func (p *Processor) invokeBrokerToResetOffset(_ context.Context, c *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	topicName := f.String("topic")
	group := f.String("group")
	timestamp := f.Int64("timestamp")
	force := f.Bool("isForce")
	if err := f.Err(); err != nil {
		return nil, err
	}
	table, err := p.resetTargets(topicName, group, timestamp, force)
	if err != nil {
		return nil, err
	}
	members := p.Consumers.Channels(group)
	if len(members) == 0 {
		return nil, fail(protocol.ConsumerNotOnline,
			"Consumer not online, so can not reset offset, Group: %s Topic: %s Timestamp: %d", group, topicName, timestamp)
	}
	if err := requireClientVersion(members); err != nil {
		return nil, err
	}
	for mq, off := range table {
		p.Offsets.Commit(group, topicName, mq.QueueID, off)
	}
	resetBody, err := (&body.ResetOffsetBody{OffsetTable: table}).Encode()
	if err != nil {
		return nil, err
	}
	clientBody := resetBody
	if req.Language == languageCPP {
		if clientBody, err = encodeResetOffsetBodyForC(table); err != nil {
			return nil, err
		}
	}
	ext := map[string]string{"topic": topicName, "group": group, "timestamp": itoa64(timestamp),
		"isForce": strconv.FormatBool(force)}
	for _, m := range members {
		call := protocol.NewRequest(protocol.ResetConsumerClientOffset, maps.Clone(ext), clientBody)
		if err := m.Channel.InvokeOneway(call); err != nil {
			p.lg.Warn("reset offset: notify consumer failed", zap.String("group", group),
				zap.String("client", m.ClientID), zap.Error(err))
		}
	}
	p.lg.Info("consumer offsets reset", zap.String("topic", topicName), zap.String("group", group),
		zap.Int64("timestamp", timestamp), zap.Bool("force", force), zap.Int("consumers", len(members)),
		zap.String("from", remoteAddr(c)))
	resp := success(req)
	resp.Body = resetBody
	return resp, nil
}

// resetTargets computes the offset each queue of the topic is reset to.
func (p *Processor) resetTargets(topicName, group string, timestamp int64, force bool) (map[body.MessageQueue]int64, error) {
	tc, ok := p.Topics.Get(topicName)
	if !ok {
		return nil, fail(protocol.SystemError, "[reset-offset] reset offset failed, no topic in this broker. topic=%s", topicName)
	}
	table := make(map[body.MessageQueue]int64, tc.WriteQueueNums)
	for q := int32(0); q < int32(tc.WriteQueueNums); q++ {
		committed, ok := p.Offsets.Query(group, topicName, q)
		if !ok {
			return nil, fail(protocol.SystemError,
				"The consumer group <%s> not exist: it has no committed offset on queue %d of topic %s", group, q, topicName)
		}
		var target int64
		if timestamp == -1 {
			target = p.Store.MaxOffsetInQueue(topicName, q)
		} else {
			target = p.Store.OffsetInQueueByTime(topicName, q, timestamp)
		}
		target = max(target, 0)
		if !force && target >= committed {
			target = committed
		}
		table[body.MessageQueue{Topic: topicName, BrokerName: p.opts.BrokerName, QueueID: q}] = target
	}
	return table, nil
}

// requireClientVersion refuses the request when a member is older than V3_0_7_SNAPSHOT.
func requireClientVersion(members []client.ClientChannel) error {
	for _, m := range members {
		if m.Version < minClientVersionForReset {
			return fail(protocol.SystemError, "the client does not support this feature. version=%d (client %s)",
				m.Version, m.ClientID)
		}
	}
	return nil
}

// messageQueueForC is one entry of the C++ client's reset body (Java MessageQueueForC), keys in
// fastjson's order.
type messageQueueForC struct {
	BrokerName string `json:"brokerName"`
	Offset     int64  `json:"offset"`
	QueueID    int32  `json:"queueId"`
	Topic      string `json:"topic"`
}

// encodeResetOffsetBodyForC writes Java's ResetOffsetBodyForC: {"offsetTable":[{...},...]}.
func encodeResetOffsetBodyForC(table map[body.MessageQueue]int64) ([]byte, error) {
	list := make([]messageQueueForC, 0, len(table))
	for _, mq := range slices.SortedFunc(maps.Keys(table), body.MessageQueue.Compare) {
		list = append(list, messageQueueForC{BrokerName: mq.BrokerName, Offset: table[mq], QueueID: mq.QueueID, Topic: mq.Topic})
	}
	return body.Marshal(struct {
		OffsetTable []messageQueueForC `json:"offsetTable"`
	}{list})
}

// invokeBrokerToGetConsumerStatus asks the group's members for the offsets they hold of a topic
// (GET_CONSUMER_STATUS_FROM_CLIENT) and answers GetConsumerStatusBody:
// {"consumerTable":{clientId:{MQ:offset}},"messageQueueTable":{}} (Java Broker2Client.getConsumeStatus).
// A non-empty clientAddr picks the member with that client id. Members that fail to answer are
// left out.
func (p *Processor) invokeBrokerToGetConsumerStatus(ctx context.Context, _ *remoting.Conn, req *protocol.Command) (*protocol.Command, error) {
	f := protocol.Fields(req)
	topicName := f.String("topic")
	group := f.String("group")
	only := f.OptString("clientAddr", "")
	if err := f.Err(); err != nil {
		return nil, err
	}
	members := p.Consumers.Channels(group)
	if len(members) == 0 {
		return nil, fail(protocol.SystemError, "No Any Consumer online in the consumer group: [%s]", group)
	}
	if err := requireClientVersion(members); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, clientCallTimeout)
	defer cancel()
	var (
		mu     sync.Mutex
		tables = map[string]map[body.MessageQueue]int64{}
		wg     sync.WaitGroup
	)
	for _, m := range members {
		conn, ok := m.Channel.(*remoting.Conn)
		if !ok || (only != "" && only != m.ClientID) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			call := protocol.NewRequest(protocol.GetConsumerStatusFromClient,
				map[string]string{"topic": topicName, "group": group}, nil)
			table, err := askConsumerStatus(ctx, conn, call)
			if err != nil {
				p.lg.Warn("get consumer status failed", zap.String("group", group), zap.String("client", m.ClientID), zap.Error(err))
				return
			}
			if table != nil {
				mu.Lock()
				tables[m.ClientID] = table
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	data, err := encodeConsumerStatusBody(tables)
	if err != nil {
		return nil, err
	}
	resp := success(req)
	resp.Body = data
	return resp, nil
}

// askConsumerStatus sends call to one client and decodes its {"messageQueueTable":{MQ:offset}};
// an answer other than SUCCESS, or one without a body, yields nil.
func askConsumerStatus(ctx context.Context, conn *remoting.Conn, call *protocol.Command) (map[body.MessageQueue]int64, error) {
	answer, err := conn.Invoke(ctx, call)
	if err != nil {
		return nil, err
	}
	if answer.ResponseCode() != protocol.Success || len(answer.Body) == 0 {
		return nil, nil
	}
	var raw struct {
		MessageQueueTable map[string]int64 `json:"messageQueueTable"`
	}
	if err := body.Unmarshal(answer.Body, &raw); err != nil {
		return nil, fmt.Errorf("decode consumer status: %w", err)
	}
	table := make(map[body.MessageQueue]int64, len(raw.MessageQueueTable))
	for k, off := range raw.MessageQueueTable {
		mq, err := body.ParseMessageQueueKey(k)
		if err != nil {
			return nil, fmt.Errorf("decode consumer status: %w", err)
		}
		table[mq] = off
	}
	return table, nil
}

// encodeConsumerStatusBody writes GetConsumerStatusBody with fastjson's object keys for the
// queues; client ids and queues in order.
func encodeConsumerStatusBody(tables map[string]map[body.MessageQueue]int64) ([]byte, error) {
	out := []byte(`{"consumerTable":{`)
	for i, id := range slices.Sorted(maps.Keys(tables)) {
		if i > 0 {
			out = append(out, ',')
		}
		key, err := body.Marshal(id)
		if err != nil {
			return nil, err
		}
		out = append(append(out, key...), ':')
		if out, err = appendQueueOffsets(out, tables[id]); err != nil {
			return nil, err
		}
	}
	return append(out, `},"messageQueueTable":{}}`...), nil
}

// appendQueueOffsets writes {MQ:offset,...} with the queues as object keys, in order.
func appendQueueOffsets(out []byte, table map[body.MessageQueue]int64) ([]byte, error) {
	out = append(out, '{')
	for i, mq := range slices.SortedFunc(maps.Keys(table), body.MessageQueue.Compare) {
		if i > 0 {
			out = append(out, ',')
		}
		key, err := body.Marshal(mq)
		if err != nil {
			return nil, err
		}
		out = append(append(out, key...), ':')
		out = strconv.AppendInt(out, table[mq], 10)
	}
	return append(out, '}'), nil
}
