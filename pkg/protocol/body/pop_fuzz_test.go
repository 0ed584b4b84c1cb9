package body

import (
	"testing"
)

// FuzzDecodePopAndListBodies runs the decoders of the POP, assignment and list-creation bodies
// (BATCH_ACK_MESSAGE, QUERY_ASSIGNMENT, SET_MESSAGE_REQUEST_MODE, messageRequestMode.json,
// UPDATE_AND_CREATE_TOPIC_LIST, UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST) over arbitrary input: no
// panic, a decoded bitSet within MaxBitSetBytes, and a decoded batch ack that re-encodes to the
// same acks.
func FuzzDecodePopAndListBodies(f *testing.F) {
	for _, s := range []string{
		`{"brokerName":"b","acks":[{"c":"G","t":"T","r":"0","so":5,"q":1,"rq":2,"pt":9,"it":60000,"b":"Aw=="}]}`,
		`{"acks":[{"consumerGroup":"G","topic":"T","startOffset":1,"bitSet":[1,-128]}]}`,
		`{"topic":"T","consumerGroup":"G","clientId":"c@1","strategyName":"AVG","messageModel":"CLUSTERING"}`,
		`{"topic":"T","consumerGroup":"G","mode":"POP","popShareQueueNum":2}`,
		`{"messageRequestModeMap":{"T":{"G":{"topic":"T","consumerGroup":"G","mode":"POP"}}}}`,
		`{"topicConfigList":[{"topicName":"T","readQueueNums":4,"writeQueueNums":4,"perm":6}]}`,
		`{"groupConfigList":[{"groupName":"G","consumeEnable":true}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if b, err := DecodeBatchAckMessageRequestBody(in); err == nil {
			checkBatchAck(t, b)
		}
		_, _ = DecodeQueryAssignmentRequestBody(in)
		_, _ = DecodeSetMessageRequestModeRequestBody(in)
		_, _ = DecodeMessageRequestModeSerializeWrapper(in)
		var topics CreateTopicListRequestBody
		_ = Unmarshal(in, &topics)
		var groups SubscriptionGroupList
		_ = Unmarshal(in, &groups)
	})
}

func checkBatchAck(t *testing.T, b *BatchAckMessageRequestBody) {
	for _, a := range b.Acks {
		if len(a.BitSet) > MaxBitSetBytes {
			t.Fatalf("bitSet of %d bytes decoded", len(a.BitSet))
		}
	}
	enc, err := Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := DecodeBatchAckMessageRequestBody(enc)
	if err != nil {
		t.Fatalf("re-decode %q: %v", enc, err)
	}
	if len(b2.Acks) != len(b.Acks) {
		t.Fatalf("%d acks re-decoded as %d", len(b.Acks), len(b2.Acks))
	}
	for i := range b.Acks {
		x, y := b.Acks[i], b2.Acks[i]
		if x.ConsumerGroup != y.ConsumerGroup || x.Topic != y.Topic || x.StartOffset != y.StartOffset || string(x.BitSet) != string(y.BitSet) {
			t.Fatalf("ack %d changed: %+v -> %+v", i, x, y)
		}
	}
}
