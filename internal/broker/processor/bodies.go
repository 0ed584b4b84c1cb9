package processor

import (
	"maps"
	"slices"
	"strconv"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// resetOffsetBody encodes reset offsets as Java's ResetOffsetBody, or for C++ clients as
// ResetOffsetBodyForC.
func resetOffsetBody(table map[body.MessageQueue]int64, forC bool) ([]byte, error) {
	if forC {
		return encodeResetOffsetBodyForC(table)
	}
	return (&body.ResetOffsetBody{OffsetTable: table}).Encode()
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
