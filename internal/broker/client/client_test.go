package client

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

type fakeChannel struct{ id uint64 }

func (f fakeChannel) ID() uint64                           { return f.id }
func (f fakeChannel) RemoteAddr() string                   { return "127.0.0.1:1" }
func (f fakeChannel) InvokeOneway(*protocol.Command) error { return nil }

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

type changes struct {
	mu  sync.Mutex
	got map[string][]string
}

func (c *changes) record(group string, remaining []ClientChannel) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := []string{}
	for _, r := range remaining {
		ids = append(ids, r.ClientID)
	}
	c.got[group] = ids
}

func consumerData(group, topic, expr string) body.ConsumerData {
	return body.ConsumerData{GroupName: group, ConsumeType: body.ConsumePassively, MessageModel: body.Clustering,
		SubscriptionDataSet: []body.SubscriptionData{{Topic: topic, SubString: expr}}}
}

func TestConsumerMembershipChanges(t *testing.T) {
	ch := &changes{got: map[string][]string{}}
	clk := &clock{t: time.Unix(1000, 0)}
	m := NewConsumerManager(ch.record, clk.now)

	require.True(t, m.Register("g", ClientChannel{Channel: fakeChannel{1}, ClientID: "b@1"}, consumerData("g", "T", "*")))
	require.True(t, m.Register("g", ClientChannel{Channel: fakeChannel{2}, ClientID: "a@2"}, consumerData("g", "T", "*")))
	require.Equal(t, []string{"a@2", "b@1"}, ch.got["g"])
	require.Equal(t, []string{"a@2", "b@1"}, m.ClientIDs("g"))

	// A repeated heartbeat changes nothing.
	delete(ch.got, "g")
	require.False(t, m.Register("g", ClientChannel{Channel: fakeChannel{1}, ClientID: "b@1"}, consumerData("g", "T", "*")))
	require.NotContains(t, ch.got, "g")

	// A closed connection ends its membership and tells the rest of the group.
	m.ConnClosed(2)
	require.Equal(t, []string{"b@1"}, ch.got["g"])
	require.Equal(t, []string{"b@1"}, m.ClientIDs("g"))

	// Expiry removes silent members and hands back their channels.
	clk.t = clk.t.Add(3 * time.Minute)
	expired := m.ScanExpired(2 * time.Minute)
	require.Len(t, expired, 1)
	require.Equal(t, uint64(1), expired[0].ID())
	require.Empty(t, m.ClientIDs("g"))
	require.Equal(t, 0, m.GroupCount())
}

func TestSubscriptionCodesAreJavaHashes(t *testing.T) {
	m := NewConsumerManager(nil, nil)
	m.Register("g", ClientChannel{Channel: fakeChannel{1}, ClientID: "c"}, consumerData("g", "T", "TagA || TagC||标签"))
	s, ok := m.Subscription("g", "T")
	require.True(t, ok)
	require.False(t, s.MatchAll())
	require.Equal(t, []string{"TagA", "TagC", "标签"}, s.Tags)
	// "TagA".hashCode() in Java is 2598919.
	require.Contains(t, s.Codes, int64(2598919))
	require.Contains(t, s.Codes, int64(message.JavaHash("标签")))
	require.NotContains(t, s.Codes, int64(message.JavaHash("TagB")))

	// A changed subscription replaces the old one.
	require.True(t, m.Register("g", ClientChannel{Channel: fakeChannel{1}, ClientID: "c"}, consumerData("g", "T", "*")))
	s, _ = m.Subscription("g", "T")
	require.True(t, s.MatchAll())
	require.Equal(t, []string{"g"}, m.GroupsOf("T"))
}

func TestProducerManager(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	m := NewProducerManager(clk.now)
	m.Register("pg", ClientChannel{Channel: fakeChannel{1}, ClientID: "p1"})
	m.Register("pg", ClientChannel{Channel: fakeChannel{2}, ClientID: "p2"})
	require.Len(t, m.Channels("pg"), 2)
	require.Equal(t, 2, m.ConnectionCount())
	m.ConnClosed(1)
	require.Equal(t, "p2", m.Channels("pg")[0].ClientID)
	clk.t = clk.t.Add(time.Hour)
	require.Len(t, m.ScanExpired(time.Minute), 1)
	require.Empty(t, m.All())
}
