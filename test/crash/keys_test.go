package crash

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
)

// TestKeysAndIDsSurviveKill9 sends messages with keys from the Go client to a SYNC_FLUSH broker,
// kills it with SIGKILL right after the last acknowledgement and starts it again; then, and again
// after a clean restart, every message must be found by each of its keys (QUERY_MESSAGE), by its
// UNIQ_KEY (QUERY_MESSAGE with _UNIQUE_KEY_QUERY=true; the Go client's SendResult.MsgID) and by
// its offset msgId (VIEW_MESSAGE_BY_ID at the commit log offset the Go client parses out of it).
// The Go client has no query API of its own (it defines QUERY_MESSAGE but never sends it), so the
// requests are raw, and their answers are decoded with the Go client's primitive.DecodeMessage to
// show that what the broker returns is what that client reads.
func TestKeysAndIDsSurviveKill9(t *testing.T) {
	t.Parallel()
	c, b := startCluster(t, "SYNC_FLUSH")
	topic := uniq(t, "KEYS")
	createTopic(t, c, b, topic, 4)
	p := newProducer(t, c, uniq(t, "PG"))

	const n, groups = 30, 3
	type sentMsg struct {
		key, groupKey, tag string
		body               []byte
		res                *primitive.SendResult
	}
	msgs := make([]sentMsg, n)
	for i := range msgs {
		m := sentMsg{key: fmt.Sprintf("order-%d", i), groupKey: fmt.Sprintf("customer-%d", i%groups),
			tag: fmt.Sprintf("Tag%d", i%2), body: []byte(fmt.Sprintf("body of order %d, kept across kill -9", i))}
		msg := primitive.NewMessage(topic, m.body)
		msg.WithKeys([]string{m.key, m.groupKey})
		msg.WithTag(m.tag)
		ctx, cancel := context.WithTimeout(context.Background(), sendTimeout+2*time.Second)
		res, err := p.SendSync(ctx, msg)
		cancel()
		require.NoError(t, err, "send %s", m.key)
		require.Equal(t, primitive.SendOK, res.Status, "send %s: %v", m.key, res)
		m.res = res
		msgs[i] = m
	}
	require.NoError(t, b.Kill(), "kill -9 the broker right after the last acknowledgement")
	b.StartAgain()

	rc := newRawClient(t, b.Addr)
	check := func(when string) {
		for _, m := range msgs {
			// By the message's own key: exactly this message.
			got := queryDecoded(t, rc, topic, m.key, false)
			if assert.Len(t, got, 1, "%s: QUERY_MESSAGE by key %s", when, m.key) {
				assertSame(t, when+": by key "+m.key, got[0], topic, m.key, m.groupKey, m.tag, m.body, m.res)
			}
			// By the UNIQ_KEY the Go client calls MsgID.
			got = queryDecoded(t, rc, topic, m.res.MsgID, true)
			if assert.Len(t, got, 1, "%s: QUERY_MESSAGE by UNIQ_KEY %s (%s)", when, m.res.MsgID, m.key) {
				assertSame(t, when+": by UNIQ_KEY "+m.res.MsgID, got[0], topic, m.key, m.groupKey, m.tag, m.body, m.res)
			}
			// By the offset msgId, parsed the way the Go client parses it.
			id, err := primitive.UnmarshalMsgID([]byte(m.res.OffsetMsgID))
			require.NoError(t, err, "offset msgId %s", m.res.OffsetMsgID)
			assert.Equal(t, b.Addr, fmt.Sprintf("%s:%d", id.Addr, id.Port), "%s: the offset msgId names the broker", m.key)
			code, body, err := rc.viewByOffset(context.Background(), id.Offset)
			require.NoError(t, err)
			if assert.Equal(t, protocol.Success, code, "%s: VIEW_MESSAGE_BY_ID %d (%s)", when, id.Offset, m.key) {
				got = primitive.DecodeMessage(body)
				if assert.Len(t, got, 1, "%s: VIEW_MESSAGE_BY_ID %d", when, id.Offset) {
					assertSame(t, when+": by offset msgId "+m.res.OffsetMsgID, got[0], topic, m.key, m.groupKey, m.tag, m.body, m.res)
				}
			}
		}
		// By a key several messages share: all of them.
		for g := range groups {
			groupKey := fmt.Sprintf("customer-%d", g)
			var want []string
			for _, m := range msgs {
				if m.groupKey == groupKey {
					want = append(want, m.res.MsgID)
				}
			}
			var ids []string
			for _, m := range queryDecoded(t, rc, topic, groupKey, false) {
				ids = append(ids, m.MsgId)
			}
			assert.ElementsMatch(t, want, ids, "%s: QUERY_MESSAGE by the shared key %s", when, groupKey)
		}
		// A key nobody sent: QUERY_NOT_FOUND.
		code, body, err := rc.queryByKey(context.Background(), topic, "order-never-sent", false)
		require.NoError(t, err)
		assert.Equal(t, protocol.QueryNotFound, code, "%s: QUERY_MESSAGE by an unknown key answers %d bytes", when, len(body))
	}
	check("after kill -9")
	b.Restart()
	check("after a clean restart")
}

// queryDecoded sends QUERY_MESSAGE and decodes the answer with the Go client's DecodeMessage,
// keeping only the records that really carry key (keys with equal hashes share index answers).
func queryDecoded(t *testing.T, rc *rawClient, topic, key string, uniqKey bool) []*primitive.MessageExt {
	t.Helper()
	code, body, err := rc.queryByKey(context.Background(), topic, key, uniqKey)
	require.NoError(t, err)
	if code != protocol.Success {
		t.Errorf("QUERY_MESSAGE %s key %s (unique-key query %v): code %d", topic, key, uniqKey, code)
		return nil
	}
	var out []*primitive.MessageExt
	for _, m := range primitive.DecodeMessage(body) {
		carries := m.MsgId == key
		for _, k := range strings.Fields(m.GetKeys()) {
			carries = carries || k == key
		}
		if carries && m.Topic == topic {
			out = append(out, m)
		}
	}
	return out
}

// assertSame checks that a decoded message is the one the send result describes.
func assertSame(t *testing.T, what string, got *primitive.MessageExt, topic, key, groupKey, tag string, body []byte,
	res *primitive.SendResult) {
	t.Helper()
	assert.Equal(t, topic, got.Topic, "%s: topic", what)
	assert.Equal(t, string(body), string(got.Body), "%s: body", what)
	assert.Equal(t, key+" "+groupKey, got.GetKeys(), "%s: KEYS", what)
	assert.Equal(t, tag, got.GetTags(), "%s: TAGS", what)
	assert.Equal(t, res.MsgID, got.MsgId, "%s: UNIQ_KEY msgId", what)
	assert.Equal(t, res.OffsetMsgID, got.OffsetMsgId, "%s: offset msgId", what)
	assert.Equal(t, res.MessageQueue.QueueId, got.Queue.QueueId, "%s: queue", what)
	assert.Equal(t, res.QueueOffset, got.QueueOffset, "%s: queue offset", what)
}
