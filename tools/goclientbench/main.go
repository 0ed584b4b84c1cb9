// Command goclientbench measures the official RocketMQ Go client (apache/rocketmq-client-go)
// sending asynchronously: -messages sends of -size bytes with at most -window callbacks
// outstanding, over one producer, to whatever broker the name server routes the topic to (ours or
// tools/stubbroker, for docs/benchmarks.md's "ours ÷ stub"). It prints one JSON object: messages
// acknowledged, failures, seconds and the rate, and this process's CPU per message.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
)

type config struct {
	namesrv, topic string
	messages       int
	size, window   int
	timeout        time.Duration
}

// result is what a run prints.
type result struct {
	Messages     int64   `json:"messages"`
	Failed       int64   `json:"failed"`
	FirstError   string  `json:"first_error,omitempty"`
	Seconds      float64 `json:"seconds"`
	MsgsPerSec   float64 `json:"msgs_per_s"`
	ClientUsPerM float64 `json:"client_cpu_us_per_msg"`
}

func main() {
	var c config
	flag.StringVar(&c.namesrv, "n", "127.0.0.1:9876", "name server host:port")
	flag.StringVar(&c.topic, "topic", "BenchTopic", "topic (must exist, or be auto-created by the broker)")
	flag.IntVar(&c.messages, "messages", 100000, "messages to send")
	flag.IntVar(&c.size, "size", 1024, "body bytes")
	flag.IntVar(&c.window, "window", 256, "sends outstanding at once")
	flag.DurationVar(&c.timeout, "timeout", 5*time.Minute, "limit for the whole run")
	flag.Parse()
	rlog.SetLogLevel("error")
	r, err := run(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "goclientbench:", err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}

func run(c config) (result, error) {
	p, err := rocketmq.NewProducer(producer.WithNameServer(primitive.NamesrvAddr{c.namesrv}),
		producer.WithGroupName("goclientbench"), producer.WithRetry(0), producer.WithSendMsgTimeout(30*time.Second))
	if err != nil {
		return result{}, err
	}
	if err := p.Start(); err != nil {
		return result{}, fmt.Errorf("start producer: %w", err)
	}
	defer func() { _ = p.Shutdown() }()
	body := make([]byte, c.size)
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	// One synchronous send first: the route is looked up and the connection opened off the clock.
	if _, err := p.SendSync(context.Background(), primitive.NewMessage(c.topic, body)); err != nil {
		return result{}, fmt.Errorf("first send: %w", err)
	}
	return sendAll(p, c, body), nil
}

// sendAll sends c.messages with at most c.window outstanding and waits for every callback.
func sendAll(p rocketmq.Producer, c config, body []byte) result {
	var r result
	var acked, failed atomic.Int64
	var firstErr sync.Once
	tokens := make(chan struct{}, c.window)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	cpu0, begin := selfCPU(), time.Now()
	fail := func(err error) {
		failed.Add(1)
		firstErr.Do(func() { r.FirstError = err.Error() })
	}
	for range c.messages {
		tokens <- struct{}{}
		err := p.SendAsync(ctx, func(_ context.Context, res *primitive.SendResult, err error) {
			switch {
			case err != nil:
				fail(err)
			case res.Status != primitive.SendOK:
				fail(fmt.Errorf("status %d", res.Status))
			default:
				acked.Add(1)
			}
			<-tokens
		}, primitive.NewMessage(c.topic, body))
		if err != nil {
			fail(err)
			<-tokens
		}
	}
	for range c.window {
		tokens <- struct{}{}
	}
	d := time.Since(begin)
	r.Messages, r.Failed, r.Seconds = acked.Load(), failed.Load(), d.Seconds()
	r.MsgsPerSec = float64(r.Messages) / r.Seconds
	if r.Messages > 0 {
		r.ClientUsPerM = float64((selfCPU() - cpu0).Microseconds()) / float64(r.Messages)
	}
	return r
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
