package processor

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestParseProperties(t *testing.T) {
	got := parseProperties("# comment\n! also\n\nbrokerName=broker-a\r\n  listenPort : 10911\nflag\n" +
		"deleteWhen 04\nempty=\nnamesrvAddr=a:1;b:2\n")
	require.Equal(t, map[string]string{
		"brokerName": "broker-a", "listenPort": "10911", "flag": "", "deleteWhen": "04", "empty": "",
		"namesrvAddr": "a:1;b:2",
	}, got)
}

// FuzzParseProperties: any text parses without a panic, and a key=value line written from what
// was parsed reads back the same.
func FuzzParseProperties(f *testing.F) {
	for _, seed := range []string{
		"brokerClusterName=DefaultCluster\nbrokerName=broker-a\nbrokerId=0\n",
		"deleteWhen = 04\nfileReservedTime : 48\n# c\n! c\n",
		"a\\\n  b=c\n", "=x\n", ":\n", " \t\f\n", "k=v=w\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		props := parseProperties(text)
		for k, v := range props {
			if k == "" || strings.ContainsAny(k, "=: \t\f\n\r") || strings.ContainsAny(v, "\n\r") ||
				strings.TrimLeft(v, " \t\f=:") != v || !utf8.ValidString(k+v) {
				continue
			}
			require.Equal(t, map[string]string{k: v}, parseProperties(k+"="+v+"\n"))
		}
	})
}

// TestConsumerStatusBodyDecodes: the GetConsumerStatusBody written for admin tools reads back
// with the object-key JSON reader.
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
