package main

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// counts are the publishers' shared tallies.
type counts struct {
	next, acked, failed atomic.Int64
	mu                  sync.Mutex
	firstErr            string
	lat                 []time.Duration // synchronous publishes only
}

func (k *counts) fail(err error) {
	k.failed.Add(1)
	k.mu.Lock()
	if k.firstErr == "" {
		k.firstErr = err.Error()
	}
	k.mu.Unlock()
}

// take reserves the next message; false when every message is taken.
func (k *counts) take(total int) bool { return k.next.Add(1) <= int64(total) }

// publish runs c.senders senders, each on its own connection, until c.messages are published.
func publish(ctx context.Context, c config) (result, error) {
	nc, js, err := connect(c.url)
	if err != nil {
		return result{}, err
	}
	defer nc.Close()
	if err := ensureStream(ctx, js, c); err != nil {
		return result{}, err
	}
	body := make([]byte, c.size)
	for i := range body {
		body[i] = 'a' + byte(i%26)
	}
	var k counts
	var wg sync.WaitGroup
	errs := make(chan error, c.senders)
	begin := time.Now()
	for range c.senders {
		wg.Go(func() {
			if err := sender(ctx, c, body, &k); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	d := time.Since(begin)
	close(errs)
	if err := <-errs; err != nil {
		return result{}, err
	}
	r := result{Messages: k.acked.Load(), Failed: k.failed.Load(), FirstError: k.firstErr}
	r.finish(d)
	r.P50Us, r.P99Us = percentile(k.lat, 0.50), percentile(k.lat, 0.99)
	return r, nil
}

// sender publishes on a connection of its own: synchronously with window 1, else asynchronously.
func sender(ctx context.Context, c config, body []byte, k *counts) error {
	nc, js, err := connect(c.url, jetstream.WithPublishAsyncMaxPending(c.window), jetstream.WithPublishAsyncTimeout(c.timeout),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, _ *nats.Msg, err error) { k.fail(err) }))
	if err != nil {
		return err
	}
	defer nc.Close()
	if c.window == 1 {
		syncSend(ctx, js, c, body, k)
		return nil
	}
	return asyncSend(ctx, js, c, body, k)
}

func syncSend(ctx context.Context, js jetstream.JetStream, c config, body []byte, k *counts) {
	lat := make([]time.Duration, 0, c.messages/c.senders+1)
	for k.take(c.messages) {
		t := time.Now()
		if _, err := js.Publish(ctx, c.subject, body); err != nil {
			k.fail(err)
			continue
		}
		lat = append(lat, time.Since(t))
		k.acked.Add(1)
	}
	k.mu.Lock()
	k.lat = append(k.lat, lat...)
	k.mu.Unlock()
}

func asyncSend(ctx context.Context, js jetstream.JetStream, c config, body []byte, k *counts) error {
	var sent int64
	for k.take(c.messages) {
		if _, err := js.PublishAsync(c.subject, body, jetstream.WithStallWait(c.timeout)); err != nil {
			k.fail(err)
			continue
		}
		sent++
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	// Every future is resolved: failures were counted by the error handler.
	k.acked.Add(sent)
	return nil
}

// percentile returns the q-quantile of ds in microseconds (0 for none).
func percentile(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[int(q*float64(len(s)-1))].Microseconds())
}
