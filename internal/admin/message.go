package admin

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Query sizes Java's tools use: 64 messages per broker for a key (queryMsgByKey), 32 for a
// unique key (the broker's defaultQueryMaxNum applies to those anyway).
const (
	DefaultKeyQueryMax    = 64
	DefaultUniqueQueryMax = 32
)

// QueryMessageByKey finds a topic's messages whose KEYS contain key, stored within [begin, end]
// ms, on every broker group of the topic's route (QUERY_MESSAGE). maxNum bounds each broker's
// answer. The index is a hash, so records indexed under a colliding key are dropped here, as
// Java does. Results are sorted by store time; none found is an error.
func (c *Client) QueryMessageByKey(ctx context.Context, topic, key string, maxNum int, begin, end int64) ([]*message.MessageExt, error) {
	return c.queryMessage(ctx, Query{Topic: topic, Key: key, MaxNum: maxNum, Begin: begin, End: end}, func(m *message.MessageExt) bool {
		return slices.Contains(m.Keys(), key)
	})
}

// QueryMessageByUniqKey finds a topic's messages whose UNIQ_KEY (the id producers return) is id,
// on every broker group of the topic's route (QUERY_MESSAGE with _UNIQUE_KEY_QUERY=true). A
// message can be stored more than once under one id (a producer's retry, a consumer's send-back
// keeps it on the retry topic); all copies are returned, sorted by store time.
func (c *Client) QueryMessageByUniqKey(ctx context.Context, topic, id string) ([]*message.MessageExt, error) {
	q := Query{Topic: topic, Key: id, MaxNum: DefaultUniqueQueryMax, Begin: 0, End: math.MaxInt64, Unique: true}
	return c.queryMessage(ctx, q, func(m *message.MessageExt) bool { return m.UniqKey() == id })
}

func (c *Client) queryMessage(ctx context.Context, q Query, keep func(*message.MessageExt) bool) ([]*message.MessageExt, error) {
	route, err := c.TopicRoute(ctx, q.Topic)
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		out  []*message.MessageExt
		seen = map[string]bool{}
	)
	err = fanOut(routeAddrs(route), func(addr string) error {
		msgs, err := c.QueryMessage(ctx, addr, q)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			if id := m.OffsetMsgID(); keep(m) && !seen[id] {
				seen[id] = true
				out = append(out, m)
			}
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b *message.MessageExt) int {
		return cmp.Or(cmp.Compare(a.StoreTimestamp, b.StoreTimestamp), cmp.Compare(a.PhysicalOffset, b.PhysicalOffset))
	})
	if err == nil && len(out) == 0 {
		kind := "key"
		if q.Unique {
			kind = "unique key"
		}
		return nil, fmt.Errorf("admin: no message with %s %q in topic %s", kind, q.Key, q.Topic)
	}
	return out, err
}

// ViewMessageByOffsetID reads the message an offset message id points at: the id holds the
// storing broker's address and the record's CommitLog offset (VIEW_MESSAGE_BY_ID there).
func (c *Client) ViewMessageByOffsetID(ctx context.Context, id string) (*message.MessageExt, error) {
	host, offset, err := message.ParseOffsetMsgID(id)
	if err != nil {
		return nil, fmt.Errorf("admin: %q is not an offset message id (32 or 56 hex digits): %w", id, err)
	}
	return c.ViewMessage(ctx, host.String(), offset)
}
