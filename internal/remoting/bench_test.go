package remoting_test

import (
	"context"
	"testing"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// sendLike answers like a broker's send: three ext fields, no body.
var sendLike = remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
	resp := protocol.NewResponse(req, protocol.Success, "")
	resp.ExtFields = protocol.NewExt(map[string]string{"msgId": "7F00000100002A9F00000000000F4240", "queueId": "1", "queueOffset": "42"})
	return resp
})

func benchServer(b *testing.B) (addr string, cli *remoting.Client) {
	s := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0"}, nil)
	s.Handle(protocol.SendMessageV2, sendLike)
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	cli = remoting.NewClient(remoting.ClientOptions{}, nil)
	b.Cleanup(func() {
		_ = cli.Close()
		_ = s.Close()
	})
	return s.Addr().String(), cli
}

func benchRequest() *protocol.Command {
	return protocol.NewRequest(protocol.SendMessageV2, map[string]string{
		"a": "please_rename_unique_group_name", "b": "TopicTest", "c": "TBW102", "d": "4", "e": "1",
		"f": "0", "g": "1700000000123", "h": "0", "i": "UNIQ_KEY\x017F0000010C6F18B4AAC2A3B1D0C40000\x02",
		"j": "0", "k": "false", "m": "false",
	}, make([]byte, 128))
}

// BenchmarkRoundTripSerial: one call at a time (latency).
func BenchmarkRoundTripSerial(b *testing.B) {
	addr, cli := benchServer(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cli.Invoke(ctx, addr, benchRequest()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripSync: many goroutines each waiting on its own call, all
// over one connection.
func BenchmarkRoundTripSync(b *testing.B) {
	addr, cli := benchServer(b)
	ctx := context.Background()
	b.SetParallelism(64)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := cli.Invoke(ctx, addr, benchRequest())
			if err != nil || resp.Code != 0 {
				b.Errorf("invoke: %v", err)
				return
			}
		}
	})
}

// BenchmarkRoundTripAsync keeps 256 calls in flight on one connection.
func BenchmarkRoundTripAsync(b *testing.B) {
	addr, cli := benchServer(b)
	ctx := context.Background()
	window := make(chan struct{}, 256)
	done := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		window <- struct{}{}
		cli.InvokeAsync(ctx, addr, benchRequest(), func(_ *protocol.Command, err error) {
			if err != nil {
				select {
				case done <- err:
				default:
				}
			}
			<-window
		})
	}
	for i := 0; i < cap(window); i++ {
		window <- struct{}{}
	}
	select {
	case err := <-done:
		b.Fatal(err)
	default:
	}
}

// BenchmarkRoundTripAsyncSharedCtx keeps 256 calls in flight on one
// connection, all under one cancellable context, as mqbench's senders do.
func BenchmarkRoundTripAsyncSharedCtx(b *testing.B) {
	addr, cli := benchServer(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := cli.Conn(ctx, addr)
	if err != nil {
		b.Fatal(err)
	}
	window := make(chan struct{}, 256)
	done := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		window <- struct{}{}
		conn.InvokeAsync(ctx, benchRequest(), func(_ *protocol.Command, err error) {
			if err != nil {
				select {
				case done <- err:
				default:
				}
			}
			<-window
		})
	}
	for i := 0; i < cap(window); i++ {
		window <- struct{}{}
	}
	select {
	case err := <-done:
		b.Fatal(err)
	default:
	}
}
