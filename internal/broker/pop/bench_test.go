package pop

import (
	"strconv"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/internal/store/storetest"
)

// BenchmarkPop pops 32 messages per op from a real store, writing a checkpoint each time;
// BenchmarkAck acknowledges one popped message per op (an ack record each). Run with -benchmem:
// allocs/op of BenchmarkPop is per 32 messages.
func BenchmarkPop(b *testing.B) {
	e, _ := benchEnv(b, b.N*32)
	b.ReportAllocs()
	b.ResetTimer()
	popped := 0
	for range b.N {
		res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 60000})
		if len(res.Records) == 0 {
			b.Fatal("popped nothing")
		}
		popped += len(res.Records)
		res.Release()
	}
	b.ReportMetric(float64(popped)/float64(b.N), "msgs/op")
}

func BenchmarkAck(b *testing.B) {
	e, _ := benchEnv(b, b.N)
	var acks []AckRequest
	for len(acks) < b.N {
		res := e.pop(Request{Group: "G", Topic: "T", QueueID: 0, MaxMsgNums: 32, InvisibleTime: 60000})
		for i, rec := range res.Records {
			_ = rec
			off := int64(len(acks))
			acks = append(acks, AckRequest{Group: "G", Topic: "T", QueueID: 0,
				ExtraInfo: extraOf(res, 0, off-int64(i)), Offset: off})
		}
		res.Release()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := e.svc.Ack(acks[i]); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEnv(b *testing.B, msgs int) (*env, int) {
	e := newEnv(b)
	e.svc.now = time.Now
	e.createTopic("T", 1)
	body := make([]byte, 256)
	for i := range msgs {
		m := storetest.Msg("T", 0, body, map[string]string{"UNIQ_KEY": strconv.Itoa(i)})
		if r := e.st.PutMessage(m); !r.Status.Stored() {
			b.Fatal(r.Remark)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for e.st.MaxOffsetInQueue("T", 0) < int64(msgs) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return e, msgs
}
