package mqbench

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// benchProducer is a producer for codec benchmarks (no connections).
func benchProducer(b *testing.B, batch int, st protocol.SerializeType) (*producer, queueRef) {
	o := &Options{Mode: ModeProduce, Messages: 1 << 40, Batch: batch, Serialize: st, Tags: "TagA", Wait: true}
	if err := o.Validate(); err != nil {
		b.Fatal(err)
	}
	return newProducer(o, testKeys(), nil, nil, nil), newQueueRef("broker-a", "127.0.0.1:10911", 3)
}

// benchSendEncode measures building one send request and encoding its
// frame header: what mqbench spends per request before the writev.
func benchSendEncode(b *testing.B, batch int, st protocol.SerializeType) {
	p, q := benchProducer(b, batch, st)
	var scr scratch
	var hdr []byte
	var seq uint64
	b.ReportAllocs()
	cpu0 := selfCPU()
	for b.Loop() {
		req := p.request(seq, batch, q, &scr)
		seq += uint64(batch)
		var err error
		if hdr, err = protocol.AppendFrameHeader(hdr[:0], req); err != nil {
			b.Fatal(err)
		}
		req.Release() // as the transport does once the frame is written
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/msg")
	// CPU time resists a busy machine better than wall time.
	b.ReportMetric(float64(selfCPU()-cpu0)/float64(b.N*batch), "cpu-ns/msg")
}

func BenchmarkSendEncodeV2JSON(b *testing.B)      { benchSendEncode(b, 1, protocol.JSON) }
func BenchmarkSendEncodeV2RocketMQ(b *testing.B)  { benchSendEncode(b, 1, protocol.RocketMQ) }
func BenchmarkSendEncodeBatch32JSON(b *testing.B) { benchSendEncode(b, 32, protocol.JSON) }

// BenchmarkPullBodyScan measures checking and counting one pull answer of
// 32 records of 1 KiB: what mqbench spends per pulled message.
func BenchmarkPullBodyScan(b *testing.B) {
	for _, crc := range []bool{false, true} {
		name := "nocrc"
		if crc {
			name = "crc"
		}
		b.Run(name, func(b *testing.B) {
			keys := testKeys()
			var bodyBuf []byte
			payload := makeBody(1024)
			for i := range 32 {
				props := message.AppendProperty(nil, message.PropertyUniqClientMessageID, string(keys.appendKey(nil, uint64(i))))
				m := &message.Message{Topic: DefaultTopic, QueueID: 0, QueueOffset: int64(i),
					BornHost: netip.MustParseAddrPort("127.0.0.1:1"), StoreHost: netip.MustParseAddrPort("127.0.0.1:2"),
					BodyCRC: message.BodyCRC(payload), Body: payload, Properties: string(props)}
				rec := make([]byte, m.EncodedSize())
				if _, err := message.Encode(rec, m); err != nil {
					b.Fatal(err)
				}
				bodyBuf = append(bodyBuf, rec...)
			}
			o := &Options{Mode: ModeConsume, CheckCRC: crc}
			if err := o.Validate(); err != nil {
				b.Fatal(err)
			}
			c := newConsumer(o, keys, nil)
			pq := &pullQueue{q: newQueueRef("b", "x", 0)}
			b.SetBytes(int64(len(bodyBuf)))
			b.ReportAllocs()
			cpu0 := selfCPU()
			for b.Loop() {
				if k := c.records(pq, span{0, 32}, bodyBuf); k != 32 {
					b.Fatalf("%d records", k)
				}
			}
			if c.badOrder.Load() != 0 || c.badCRC.Load() != 0 {
				b.Fatal("records failed their checks")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*32), "ns/msg")
			b.ReportMetric(float64(selfCPU()-cpu0)/float64(b.N*32), "cpu-ns/msg")
		})
	}
}

// BenchmarkLoopbackProduce is mqbench's own ceiling: sends of 1 KiB to a
// peer process that answers SUCCESS at once, 4 senders × window 256.
// cpu-µs/msg is mqbench's alone (the peer is another process): what one
// message costs the tool, whatever the broker does.
func BenchmarkLoopbackProduce(b *testing.B) {
	for _, c := range []struct {
		batch int
		st    protocol.SerializeType
	}{{1, protocol.JSON}, {1, protocol.RocketMQ}, {32, protocol.JSON}} {
		b.Run("batch"+strconv.Itoa(c.batch)+"-"+strings.ToLower(c.st.String()), func(b *testing.B) {
			batch := c.batch
			addr := startPeerProcess(b)
			o := Options{Mode: ModeProduce, Messages: int64(b.N) * int64(batch), Size: 1024, Concurrency: 4,
				Window: 256, Batch: batch, Timeout: time.Minute, Serialize: c.st}
			if err := o.Validate(); err != nil {
				b.Fatal(err)
			}
			r := &runner{o: &o, lg: zap.NewNop(), keys: testKeys(), rep: &Report{}}
			var qs []queueRef
			for i := range 8 {
				qs = append(qs, newQueueRef("peer", addr, i))
			}
			b.ResetTimer()
			ph := r.produce(context.Background(), qs, nil, nil)
			b.StopTimer()
			if ph.Errors != 0 || !ph.Complete {
				b.Fatalf("run failed: %+v", ph)
			}
			b.ReportMetric(ph.MsgsPerSec, "msgs/s")
			b.ReportMetric(ph.Latency.P99Us, "p99-µs")
			b.ReportMetric(ph.CPU.MqbenchUsPerMsg, "cpu-µs/msg")
		})
	}
}

// BenchmarkRemotingInvokeAsync isolates the remoting client: 1024
// pipelined small requests at a time over one connection to a peer
// process that answers at once; ns/op is per request, the client's side
// only in this process.
func BenchmarkRemotingInvokeAsync(b *testing.B) {
	addr := startPeerProcess(b)
	cli := remoting.NewClient(remoting.ClientOptions{}, nil)
	defer cli.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := cli.Conn(ctx, addr)
	if err != nil {
		b.Fatal(err)
	}
	tokens := make(chan struct{}, 1024)
	cpu0 := selfCPU()
	// Requests are recycled as mqbench's own are, so that building them costs next to nothing.
	reqs := newReqPool(protocol.GetMaxOffset, protocol.JSON, false)
	b.ReportAllocs()
	for b.Loop() {
		tokens <- struct{}{}
		req := reqs.get()
		protocol.GetMaxOffsetRequestHeader{Topic: "t"}.Encode(&req.ExtFields)
		conn.InvokeAsync(ctx, req, func(*protocol.Command, error) {
			<-tokens
		})
	}
	for range cap(tokens) {
		tokens <- struct{}{}
	}
	b.StopTimer()
	b.ReportMetric(float64(selfCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/req")
}
