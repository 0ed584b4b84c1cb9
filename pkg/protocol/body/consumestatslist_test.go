package body

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecodeConsumeStatsList reads what Java's broker writes (queues as object keys) and what
// Encode writes back.
func TestDecodeConsumeStatsList(t *testing.T) {
	java := `{"brokerAddr":"10.0.0.9:10911","consumeStatsList":[{"G":[{"consumeTps":1.5,"offsetTable":` +
		`{{"brokerName":"b","queueId":1,"topic":"T"}:{"brokerOffset":5,"consumerOffset":2,"lastTimestamp":7,"pullOffset":0}}}]},` +
		`{"Idle":[]}],"totalDiff":3,"totalInflightDiff":0}`
	l, err := DecodeConsumeStatsList([]byte(java))
	require.NoError(t, err)
	mq := MessageQueue{Topic: "T", BrokerName: "b", QueueID: 1}
	want := &ConsumeStatsList{BrokerAddr: "10.0.0.9:10911", TotalDiff: 3, ConsumeStatsList: []map[string][]ConsumeStats{
		{"G": {{ConsumeTps: 1.5, OffsetTable: map[MessageQueue]OffsetWrapper{mq: {BrokerOffset: 5, ConsumerOffset: 2, LastTimestamp: 7}}}}},
		{},
	}}
	require.Equal(t, want, l)
	data, err := l.Encode()
	require.NoError(t, err)
	back, err := DecodeConsumeStatsList(data)
	require.NoError(t, err)
	require.Equal(t, l, back)

	_, err = DecodeConsumeStatsList([]byte(`{"consumeStatsList":[{"G":[{"offsetTable":{"not a queue":{}}}]}]}`))
	require.ErrorContains(t, err, `group "G"`)
	_, err = DecodeConsumeStatsList([]byte(`{"consumeStatsList":`))
	require.Error(t, err)
}

// FuzzDecodeConsumeStatsList: anything decoded re-encodes and decodes again.
func FuzzDecodeConsumeStatsList(f *testing.F) {
	f.Add([]byte(`{"brokerAddr":"a","consumeStatsList":[{"G":[{"consumeTps":1.5,"offsetTable":` +
		`{{"brokerName":"b","queueId":1,"topic":"T"}:{"brokerOffset":5}}}]}],"totalDiff":3}`))
	f.Add([]byte(`{"consumeStatsList":[{}],"totalDiff":-1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		l, err := DecodeConsumeStatsList(in)
		if err != nil {
			return
		}
		enc, err := l.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeConsumeStatsList(enc); err != nil {
			t.Fatalf("re-decode %q: %v", enc, err)
		}
	})
}
