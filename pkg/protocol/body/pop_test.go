package body

import (
	"slices"
	"testing"
)

// TestBatchAckJavaBody decodes a BATCH_ACK_MESSAGE body as the 5.3.3 client writes it (fastjson,
// short names, the BitSet as base64 of toByteArray) and one with Java's long names.
func TestBatchAckJavaBody(t *testing.T) {
	java := `{"acks":[{"b":"BQE=","c":"G","it":60000,"pt":1700000000000,"q":2,"r":"0","rq":3,"so":12,"t":"T"}],"brokerName":"broker-a"}`
	b, err := DecodeBatchAckMessageRequestBody([]byte(java))
	if err != nil {
		t.Fatal(err)
	}
	a := b.Acks[0]
	want := BatchAck{ConsumerGroup: "G", Topic: "T", Retry: "0", StartOffset: 12, QueueID: 2, ReviveQueueID: 3,
		PopTime: 1700000000000, InvisibleTime: 60000, BitSet: BitSet{5, 1}}
	if b.BrokerName != "broker-a" || len(b.Acks) != 1 || !sameAck(a, want) {
		t.Fatalf("%+v", b)
	}
	var set []int
	a.BitSet.Bits(func(i int) bool { set = append(set, i); return true })
	if !slices.Equal(set, []int{0, 2, 8}) {
		t.Fatalf("bits %v", set)
	}
	long := `{"acks":[{"consumerGroup":"G","topic":"T","retry":"0","startOffset":12,"queueId":2,"reviveQueueId":3,` +
		`"popTime":1700000000000,"invisibleTime":60000,"bitSet":[5,1]}],"brokerName":"broker-a"}`
	b2, err := DecodeBatchAckMessageRequestBody([]byte(long))
	if err != nil || !sameAck(b2.Acks[0], want) {
		t.Fatalf("long names: %+v %v", b2, err)
	}
	if _, err := DecodeBatchAckMessageRequestBody([]byte(`{"acks":[{"b":"!!"}]}`)); err == nil {
		t.Fatal("bad base64 accepted")
	}
	enc, err := Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeBatchAckMessageRequestBody(enc)
	if err != nil || !sameAck(back.Acks[0], want) {
		t.Fatalf("round trip %s: %v", enc, err)
	}
	if !slices.Equal(NewBitSet(0, 2, 8), BitSet{5, 1}) {
		t.Fatal("NewBitSet")
	}
}

func sameAck(a, b BatchAck) bool {
	return slices.Equal(a.BitSet, b.BitSet) && a.ConsumerGroup == b.ConsumerGroup && a.Topic == b.Topic &&
		a.Retry == b.Retry && a.StartOffset == b.StartOffset && a.QueueID == b.QueueID &&
		a.ReviveQueueID == b.ReviveQueueID && a.PopTime == b.PopTime && a.InvisibleTime == b.InvisibleTime
}

func TestRequestModeBodies(t *testing.T) {
	req, err := DecodeSetMessageRequestModeRequestBody([]byte(`{"consumerGroup":"G","popShareQueueNum":0,"topic":"T"}`))
	if err != nil || req.Mode != RequestModePull || req.Topic != "T" {
		t.Fatalf("%+v %v", req, err)
	}
	w := MessageRequestModeSerializeWrapper{}
	enc, _ := Marshal(w)
	if string(enc) != `{"messageRequestModeMap":{}}` {
		t.Fatalf("%s", enc)
	}
	w.MessageRequestModeMap = map[string]map[string]SetMessageRequestModeRequestBody{"T": {"G": {Topic: "T", ConsumerGroup: "G", Mode: RequestModePop}}}
	enc, _ = Marshal(w)
	back, err := DecodeMessageRequestModeSerializeWrapper(enc)
	if err != nil || back.MessageRequestModeMap["T"]["G"].Mode != RequestModePop {
		t.Fatalf("%s %v", enc, err)
	}
	q, err := DecodeQueryAssignmentRequestBody([]byte(`{"clientId":"c1","consumerGroup":"G","messageModel":"CLUSTERING","strategyName":"AVG","topic":"T"}`))
	if err != nil || q.ClientID != "c1" || q.MessageModel != MessageModelClustering {
		t.Fatalf("%+v %v", q, err)
	}
}
