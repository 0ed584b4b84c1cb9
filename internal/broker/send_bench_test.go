package broker_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/rocketgo/rocketgo/internal/broker"
	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// BenchmarkSendPipelined is the broker's whole send path over loopback: SEND_MESSAGE_V2 frames
// (JSON, 1 KiB bodies, a UNIQ_KEY each, as the clients send them) from one connection with 256
// in flight, decoded, checked, appended to the CommitLog and answered. The client writes frames
// encoded beforehand and reads the answers without decoding them, so allocs/op is the broker's.
func BenchmarkSendPipelined(b *testing.B) {
	for _, flush := range []store.FlushType{store.AsyncFlush, store.SyncFlush} {
		b.Run(flush.String(), func(b *testing.B) { benchSendPipelined(b, flush) })
	}
}

func benchSendPipelined(b *testing.B, flush store.FlushType) {
	br := brokertest.Start(b, func(o *broker.Options) {
		o.Store.FlushType = flush
		o.Store.CommitLogSegmentSize = 1 << 30
	})
	frames := sendFrames(b, 1024)
	nc, err := net.Dial("tcp", br.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	const window = 256
	tokens := make(chan struct{}, window)
	done := make(chan error, 1)
	go func() { done <- readAnswers(bufio.NewReaderSize(nc, 64<<10), b.N+1, tokens) }()
	send := func(i int) {
		select {
		case tokens <- struct{}{}:
		case err := <-done:
			b.Fatalf("reading answers: %v", err)
		}
		if _, err := nc.Write(frames[i%len(frames)]); err != nil {
			b.Fatal(err)
		}
	}
	send(0) // creates the topic
	b.SetBytes(1024)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		send(i)
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// sendFrames returns n SEND_MESSAGE_V2 frames with distinct opaques and UNIQ_KEYs.
func sendFrames(b *testing.B, n int) [][]byte {
	frames := make([][]byte, n)
	body := make([]byte, 1024)
	for i := range frames {
		m := brokertest.Msg{Topic: "BenchSend", QueueID: int32(i % 4), Body: body, Tags: "TagA",
			Props: map[string]string{message.PropertyUniqClientMessageID: fmt.Sprintf("%032X", i)}}
		req := brokertest.SendV2Request(m)
		req.Opaque = int32(i + 1)
		f, err := protocol.EncodeCommand(req)
		if err != nil {
			b.Fatal(err)
		}
		frames[i] = f
	}
	return frames
}

// readAnswers reads n answers, checking that each is a SUCCESS (a JSON header with code 0),
// and returns a token for each.
func readAnswers(r *bufio.Reader, n int, tokens <-chan struct{}) error {
	buf := make([]byte, 64<<10)
	for range n {
		if _, err := io.ReadFull(r, buf[:8]); err != nil {
			return err
		}
		length := int(binary.BigEndian.Uint32(buf))
		if length < 4 || length > len(buf)-4 {
			return fmt.Errorf("answer of %d bytes", length)
		}
		if _, err := io.ReadFull(r, buf[8:4+length]); err != nil {
			return err
		}
		if hl := int(binary.BigEndian.Uint32(buf[4:]) & 0xFFFFFF); !bytes.Contains(buf[8:8+hl], []byte(`"code":0,`)) {
			return fmt.Errorf("not a SUCCESS: %s", buf[8:8+hl])
		}
		<-tokens
	}
	return nil
}
