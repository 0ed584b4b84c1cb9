// Command natsbench is the NATS JetStream side of make bench-compare (docs/benchmarks.md): the
// same pipelined load mqbench puts on our broker, through the official nats.go client.
//
//	natsbench publish -window 256               async publishes, at most 256 unacknowledged
//	natsbench publish -senders 16 -window 1     16 connections, each one synchronous publish at a time
//	natsbench consume -messages N               a pull consumer (AckNone) reading the stream from its start
//
// It prints one JSON object: messages acknowledged (publish) or received (consume), failures,
// seconds, the rate and the latency percentiles of synchronous publishes. It lives in a Go module of
// its own so that the product's go.mod does not gain NATS; the same module's go.mod pins
// nats-server (a tool directive), which make bench-compare builds.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

type config struct {
	url, stream, subject string
	messages             int
	size, window         int
	senders              int
	pull                 int
	timeout              time.Duration
}

// result is what a run prints.
type result struct {
	Messages   int64   `json:"messages"`
	Failed     int64   `json:"failed"`
	FirstError string  `json:"first_error,omitempty"`
	Seconds    float64 `json:"seconds"`
	MsgsPerSec float64 `json:"msgs_per_s"`
	P50Us      float64 `json:"p50_us,omitempty"`
	P99Us      float64 `json:"p99_us,omitempty"`
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "publish" && os.Args[1] != "consume") {
		fmt.Fprintln(os.Stderr, "usage: natsbench publish|consume [flags]")
		os.Exit(2)
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	var c config
	fs.StringVar(&c.url, "url", nats.DefaultURL, "server URL")
	fs.StringVar(&c.stream, "stream", "BENCH", "stream (created with file storage, one replica, if missing)")
	fs.StringVar(&c.subject, "subject", "bench", "subject published to")
	fs.IntVar(&c.messages, "messages", 100000, "messages to publish or read")
	fs.IntVar(&c.size, "size", 1024, "body bytes")
	fs.IntVar(&c.window, "window", 256, "publish: unacknowledged publishes per sender; 1 publishes synchronously")
	fs.IntVar(&c.senders, "senders", 1, "publish: senders, each on a connection of its own")
	fs.IntVar(&c.pull, "pull", 1024, "consume: messages asked for at once (PullMaxMessages)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "limit for the whole run")
	_ = fs.Parse(os.Args[2:])
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var r result
	var err error
	if mode == "publish" {
		r, err = publish(ctx, c)
	} else {
		r, err = consume(ctx, c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsbench:", err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}

// connect opens a connection and its JetStream context.
func connect(url string, opts ...jetstream.JetStreamOpt) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	js, err := jetstream.New(nc, opts...)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// ensureStream creates the stream if it does not exist.
func ensureStream(ctx context.Context, js jetstream.JetStream, c config) error {
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: c.stream, Subjects: []string{c.subject},
		Storage: jetstream.FileStorage, Replicas: 1})
	if err != nil {
		return fmt.Errorf("create stream %s: %w", c.stream, err)
	}
	return nil
}

// consume reads c.messages from the stream's start with an ephemeral pull consumer.
func consume(ctx context.Context, c config) (result, error) {
	nc, js, err := connect(c.url)
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	cons, err := js.CreateConsumer(ctx, c.stream, jetstream.ConsumerConfig{AckPolicy: jetstream.AckNonePolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return result{}, fmt.Errorf("create consumer: %w", err)
	}
	begin := time.Now()
	it, err := cons.Messages(jetstream.PullMaxMessages(c.pull))
	if err != nil {
		return result{}, err
	}
	defer it.Stop()
	var r result
	for r.Messages < int64(c.messages) {
		if _, err := it.Next(jetstream.NextContext(ctx)); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				r.FirstError = err.Error()
				break
			}
			return result{}, err
		}
		r.Messages++
	}
	r.finish(time.Since(begin))
	return r, nil
}

func (r *result) finish(d time.Duration) {
	r.Seconds = d.Seconds()
	if r.Seconds > 0 {
		r.MsgsPerSec = float64(r.Messages) / r.Seconds
	}
}
