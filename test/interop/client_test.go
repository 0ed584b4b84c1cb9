package interop

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
)

// Client-side limits.
const (
	sendTimeout    = 10 * time.Second
	consumeTimeout = 90 * time.Second
	settleTimeout  = 60 * time.Second
)

// idProp is the user property naming each test message; it is also the message's key.
const idProp = "interopid"

var nameSeq atomic.Int64

var nonName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// uniq is a topic, group or instance name no other test uses.
func uniq(t *testing.T, prefix string) string {
	name := nonName.ReplaceAllString(t.Name(), "_")
	if len(name) > 50 {
		name = name[len(name)-50:]
	}
	return fmt.Sprintf("%s_%s_%d", prefix, name, nameSeq.Add(1))
}

// label is kind ("go" or an Apache version) in the characters a group name allows.
func label(kind string) string { return nonName.ReplaceAllString(kind, "_") }

// newProducer starts a Go producer on the name server; t.Cleanup shuts it down.
func newProducer(t *testing.T, ns *namesrv, opts ...producer.Option) rocketmq.Producer {
	t.Helper()
	all := append([]producer.Option{
		producer.WithNameServer(primitive.NamesrvAddr{ns.Addr}),
		producer.WithGroupName(uniq(t, "PG")),
		producer.WithInstanceName(uniq(t, "prod")),
		producer.WithRetry(2),
		producer.WithSendMsgTimeout(sendTimeout),
	}, opts...)
	p, err := rocketmq.NewProducer(all...)
	if err != nil {
		t.Fatalf("interop: new producer: %v", err)
	}
	if err := p.Start(); err != nil {
		t.Fatalf("interop: start producer: %v", err)
	}
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// testMessage is a message with its id as property and key, a tag and a body that names it.
func testMessage(topic, id, tag string) *primitive.Message {
	m := primitive.NewMessage(topic, []byte("body of "+id+" · ünïcode"))
	m.WithProperty(idProp, id)
	m.WithKeys([]string{id})
	m.WithTag(tag)
	return m
}

// sendSync sends m and returns the result, requiring no error (the status is the caller's).
func sendSync(t *testing.T, p rocketmq.Producer, m *primitive.Message) *primitive.SendResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+5*time.Second)
	defer cancel()
	res, err := p.SendSync(ctx, m)
	if err != nil {
		t.Fatalf("interop: SendSync of %s to %s: %v", m.GetProperty(idProp), m.Topic, err)
	}
	return res
}

// sendOK sends m and requires SEND_OK.
func sendOK(t *testing.T, p rocketmq.Producer, m *primitive.Message) *primitive.SendResult {
	t.Helper()
	res := sendSync(t, p, m)
	if res.Status != primitive.SendOK {
		t.Fatalf("interop: SendSync of %s: status %d, want SEND_OK: %v", m.GetProperty(idProp), res.Status, res)
	}
	return res
}

// collector records what a push consumer receives, by idProp.
type collector struct {
	mu     sync.Mutex
	got    map[string][]*primitive.MessageExt
	notify chan struct{}
}

func newCollector() *collector {
	return &collector{got: map[string][]*primitive.MessageExt{}, notify: make(chan struct{}, 1)}
}

func (c *collector) consume(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
	c.mu.Lock()
	for _, m := range msgs {
		id := m.GetProperty(idProp)
		c.got[id] = append(c.got[id], m)
	}
	c.mu.Unlock()
	select {
	case c.notify <- struct{}{}:
	default:
	}
	return consumer.ConsumeSuccess, nil
}

// first is the first delivery of id.
func (c *collector) first(id string) *primitive.MessageExt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ms := c.got[id]; len(ms) > 0 {
		return ms[0]
	}
	return nil
}

// waitFor waits until every id in want has arrived, failing with what is missing.
func (c *collector) waitFor(t *testing.T, want []string) {
	t.Helper()
	deadline := time.NewTimer(consumeTimeout)
	defer deadline.Stop()
	for {
		missing := c.missing(want)
		if len(missing) == 0 {
			return
		}
		select {
		case <-c.notify:
		case <-deadline.C:
			sort.Strings(missing)
			t.Fatalf("interop: after %v the consumer misses %d of %d messages, e.g. %v",
				consumeTimeout, len(missing), len(want), missing[:min(5, len(missing))])
		}
	}
}

func (c *collector) missing(want []string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, id := range want {
		if len(c.got[id]) == 0 {
			out = append(out, id)
		}
	}
	return out
}

// newPushConsumer starts a clustering push consumer of group on topic from the first offset;
// t.Cleanup shuts it down.
func newPushConsumer(t *testing.T, ns *namesrv, group, topic string, col *collector) {
	t.Helper()
	pc, err := rocketmq.NewPushConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{ns.Addr}),
		consumer.WithGroupName(group),
		consumer.WithInstance(uniq(t, "cons")),
		consumer.WithConsumerModel(consumer.Clustering),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset))
	if err != nil {
		t.Fatalf("interop: new push consumer: %v", err)
	}
	sel := consumer.MessageSelector{Type: consumer.TAG, Expression: "*"}
	if err := pc.Subscribe(topic, sel, col.consume); err != nil {
		t.Fatalf("interop: subscribe: %v", err)
	}
	if err := pc.Start(); err != nil {
		t.Fatalf("interop: start push consumer of %s: %v", group, err)
	}
	t.Cleanup(func() { _ = pc.Shutdown() })
}

// eventually polls cond every tick until it holds or timeout passes.
func eventually(timeout, tick time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(tick)
	}
}
