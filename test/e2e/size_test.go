package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

const mib = 1 << 20

// randomBody returns n bytes that zlib cannot shrink.
func randomBody(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n - n%8; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestMessageSizeLimit sends, with client-side compression off so that the broker sees the exact
// body, a 3.9 MiB body (under maxMessageSize = 4 MiB) and a 4.1 MiB body (over it). The first must
// be stored and consumed byte for byte; the second must be refused with MESSAGE_ILLEGAL (13) and
// not stored; and the broker must go on serving: a small message sent afterwards is stored and
// consumed too.
func TestMessageSizeLimit(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic := uniq(t, "T")
	const queues = 2
	createTopic(t, c, topic, queues)
	p := newProducer(t, c, producer.WithCompressMsgBodyOverHowmuch(1<<30), producer.WithRetry(0),
		producer.WithSendMsgTimeout(30*time.Second))

	big := randomBody(1, 39*mib/10)
	bigRes := sendSync(t, p, message(topic, "big", big))

	tooBig := randomBody(2, 41*mib/10)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	res, err := p.SendSync(ctx, message(topic, "too-big", tooBig))
	cancel()
	if assert.Error(t, err, "a %d-byte body must be refused (maxMessageSize 4194304), got %v", len(tooBig), res) {
		assert.Contains(t, err.Error(), "CODE: 13", "the refusal must be MESSAGE_ILLEGAL")
	}

	smallRes := sendSync(t, p, message(topic, "small", []byte("still serving")))

	col := newCollector()
	pc := newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col)
	col.waitFor(t, []string{"big", "small"}, consumeTimeout)
	waitDrained(t, pc, topic)
	got := col.first("big")
	assert.Equal(t, len(big), len(got.Body), "length of the 3.9 MiB body")
	assert.Equal(t, sha256.Sum256(big), sha256.Sum256(got.Body), "the 3.9 MiB body changed")
	assert.Equal(t, bigRes.MsgID, got.MsgId)
	assert.Equal(t, "still serving", string(col.first("small").Body))
	assert.Equal(t, smallRes.MsgID, col.first("small").MsgId)
	assert.Zero(t, col.ids()["too-big"], "the refused message was delivered")

	// Exactly two messages were stored.
	total := int64(0)
	for q := range queues {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		m, err := cluster.MaxOffset(ctx, b.Addr, topic, q)
		cancel()
		require.NoError(t, err)
		total += m
	}
	assert.Equal(t, int64(2), total, "messages stored in %s (the refused one must not be)", topic)
}

// TestCompressedBodies sends bodies of 4 KiB and more, which the Go client zlib-compresses and
// flags (sysFlag bit 0), mixed with bodies just under the threshold. The broker stores compressed
// bodies untouched; the consumer must get every body back exactly, with the compressed flag set
// exactly on those the client compressed.
func TestCompressedBodies(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	topic := uniq(t, "T")
	createTopic(t, c, topic, 4)
	p := newProducer(t, c) // default threshold: compress bodies of 4096 bytes and more

	text := []byte(strings.Repeat("RocketMQ compressible text, line after line. ", 2000))
	bodies := map[string][]byte{
		"text-4096":    text[:4096],
		"text-90000":   text[:90000],
		"random-5000":  randomBody(3, 5000),
		"random-300k":  randomBody(4, 300*1024),
		"zeros-1MiB":   make([]byte, mib),
		"under-4095":   text[:4095],
		"binary-16KiB": bytes.Repeat([]byte{0, 1, 2, 0xff, 0xfe, '\n'}, 16*1024/6),
	}
	var ids []string
	for id, body := range bodies {
		ids = append(ids, id)
		sendSync(t, p, message(topic, id, body))
	}

	col := newCollector()
	newPushConsumer(t, c, uniq(t, "CG"), topic, selectAll, col)
	col.waitFor(t, ids, consumeTimeout)
	for id, body := range bodies {
		m := col.first(id)
		assert.True(t, bytes.Equal(body, m.Body), "%s: body of %d bytes came back as %d bytes (%s)", id, len(body), len(m.Body), firstDiff(body, m.Body))
		wantCompressed := len(body) >= 4096
		assert.Equal(t, wantCompressed, m.SysFlag&primitive.FlagCompressed != 0, "%s: compressed flag (sysFlag %#x)", id, m.SysFlag)
	}
}

func firstDiff(a, b []byte) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at byte %d", i)
		}
	}
	if len(a) != len(b) {
		return "one is a prefix of the other"
	}
	return "equal"
}
