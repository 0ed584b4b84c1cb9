package processor

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TestConsumerStatusBodyDecodes: the GetConsumerStatusBody written for admin tools reads back
// with the object-key JSON reader. (Moved here from admin_config_test.go.)
func TestConsumerStatusBodyDecodes(t *testing.T) {
	mq := func(q int32) body.MessageQueue { return body.MessageQueue{Topic: "t", BrokerName: "b", QueueID: q} }
	data, err := encodeConsumerStatusBody(map[string]map[body.MessageQueue]int64{
		"c2": {mq(1): 5, mq(0): 3}, "c1": {}, `q"uote`: {mq(0): -1},
	})
	require.NoError(t, err)
	require.Equal(t, `{"consumerTable":{"c1":{},"c2":{{"brokerName":"b","queueId":0,"topic":"t"}:3,`+
		`{"brokerName":"b","queueId":1,"topic":"t"}:5},"q\"uote":{{"brokerName":"b","queueId":0,"topic":"t"}:-1}},`+
		`"messageQueueTable":{}}`, string(data))
	var back struct {
		ConsumerTable map[string]map[string]int64 `json:"consumerTable"`
	}
	require.NoError(t, body.Unmarshal(data, &back))
	require.Len(t, back.ConsumerTable, 3)
	for key, off := range back.ConsumerTable["c2"] {
		q, err := body.ParseMessageQueueKey(key)
		require.NoError(t, err)
		require.Equal(t, map[int32]int64{0: 3, 1: 5}[q.QueueID], off)
	}
}

func TestResetOffsetBodies(t *testing.T) {
	table := map[body.MessageQueue]int64{{Topic: "t", BrokerName: "b", QueueID: 1}: 7, {Topic: "t", BrokerName: "b", QueueID: 0}: 3}
	data, err := resetOffsetBody(table, true)
	require.NoError(t, err)
	require.Equal(t, `{"offsetTable":[{"brokerName":"b","offset":3,"queueId":0,"topic":"t"},`+
		`{"brokerName":"b","offset":7,"queueId":1,"topic":"t"}]}`, string(data))
	data, err = resetOffsetBody(table, false)
	require.NoError(t, err)
	back, err := body.DecodeResetOffsetBody(data)
	require.NoError(t, err)
	require.Equal(t, table, back.OffsetTable)
}

func TestDecodeConsumerStatus(t *testing.T) {
	table, err := decodeConsumerStatus([]byte(`{"messageQueueTable":{{"topic":"t","brokerName":"b","queueId":2}:9}}`))
	require.NoError(t, err)
	require.Equal(t, map[body.MessageQueue]int64{{Topic: "t", BrokerName: "b", QueueID: 2}: 9}, table)
	_, err = decodeConsumerStatus([]byte(`{"messageQueueTable":{"nonsense":9}}`))
	require.ErrorContains(t, err, "decode consumer status")
	_, err = decodeConsumerStatus([]byte(`[`))
	require.ErrorContains(t, err, "decode consumer status")
}
