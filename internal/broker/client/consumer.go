package client

import (
	"sort"
	"sync"
	"time"

	"github.com/rocketgo/rocketgo/internal/broker/filter"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// ChangeFunc is told that a group's membership changed, with the channels that remain in it. It is
// called without the manager's lock held.
type ChangeFunc func(group string, remaining []ClientChannel)

// ConsumerManager holds the consumer groups.
type ConsumerManager struct {
	onChange ChangeFunc
	now      func() time.Time
	filters  *filter.Cache // compiled SQL92 expressions

	mu     sync.RWMutex
	groups map[string]*consumerGroup
}

// consumerGroup is one group's members and subscriptions. REQUIRES: the manager's mu.
type consumerGroup struct {
	consumeType      string
	messageModel     string
	consumeFromWhere string
	channels         map[uint64]*ClientChannel
	subscriptions    map[string]*Subscription
	lastUpdate       time.Time
}

// Subscription is a group's subscription to one topic, from its members' heartbeats.
type Subscription struct {
	Topic          string
	SubString      string
	ExpressionType string
	Tags           []string
	// Codes are the Java String.hashCode values of Tags, computed here rather than taken from the
	// client: the Go client hashes UTF-8 bytes and would lose non-ASCII tags.
	Codes      map[int64]struct{}
	SubVersion int64
	// Filter is the compiled expression of a SQL92 subscription; when it does not compile,
	// Filter is nil and FilterErr says why.
	Filter    *filter.Expr
	FilterErr error
}

// MatchAll reports whether the subscription takes every tag.
func (s *Subscription) MatchAll() bool {
	return s.ExpressionType != body.ExpressionSQL92 && (s.SubString == "" || s.SubString == body.SubAll)
}

// NewSubscription converts a heartbeat's subscription, computing tag codes as Java does and
// compiling a SQL92 expression.
func NewSubscription(d body.SubscriptionData) *Subscription {
	return newSubscription(d, filter.Compile)
}

// BuildSubscription is NewSubscription with SQL92 expressions compiled once through the manager's
// cache, for pulls that carry their own subscription.
func (m *ConsumerManager) BuildSubscription(d body.SubscriptionData) *Subscription {
	return newSubscription(d, m.filters.Compile)
}

func newSubscription(d body.SubscriptionData, compile func(string) (*filter.Expr, error)) *Subscription {
	s := &Subscription{
		Topic:          d.Topic,
		SubString:      d.SubString,
		ExpressionType: d.ExpressionType,
		SubVersion:     int64(d.SubVersion),
	}
	if s.ExpressionType == "" {
		s.ExpressionType = body.ExpressionTag
	}
	if s.ExpressionType == body.ExpressionTag {
		s.Tags = ParseTags(d.SubString)
		s.Codes = make(map[int64]struct{}, len(s.Tags))
		for _, t := range s.Tags {
			s.Codes[int64(message.JavaHash(t))] = struct{}{}
		}
	}
	if s.ExpressionType == body.ExpressionSQL92 {
		s.Filter, s.FilterErr = compile(d.SubString)
	}
	return s
}

// ParseTags splits a tag expression "a || b" into its tags; "*" and "" give none.
func ParseTags(expr string) []string {
	var tags []string
	for _, part := range splitOr(expr) {
		if part != "" && part != body.SubAll {
			tags = append(tags, part)
		}
	}
	return tags
}

func splitOr(expr string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(expr); i++ {
		if expr[i] == '|' && expr[i+1] == '|' {
			out = append(out, trim(expr[start:i]))
			start = i + 2
			i++
		}
	}
	return append(out, trim(expr[start:]))
}

func trim(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// NewConsumerManager returns an empty manager. onChange may be nil; now defaults to time.Now.
func NewConsumerManager(onChange ChangeFunc, now func() time.Time) *ConsumerManager {
	if now == nil {
		now = time.Now
	}
	return &ConsumerManager{onChange: onChange, now: now, filters: filter.NewCache(0), groups: make(map[string]*consumerGroup)}
}

// Register records a consumer's heartbeat for one group. It reports whether the group's membership
// or subscriptions changed; membership changes are announced through onChange.
func (m *ConsumerManager) Register(group string, ch ClientChannel, d body.ConsumerData) bool {
	now := m.now()
	ch.LastUpdate = now
	m.mu.Lock()
	g := m.groups[group]
	if g == nil {
		g = &consumerGroup{channels: make(map[uint64]*ClientChannel), subscriptions: make(map[string]*Subscription)}
		m.groups[group] = g
	}
	g.consumeType, g.messageModel, g.consumeFromWhere = d.ConsumeType, d.MessageModel, d.ConsumeFromWhere
	g.lastUpdate = now
	joined := false
	if old, ok := g.channels[ch.Channel.ID()]; !ok || old.ClientID != ch.ClientID {
		joined = true
	}
	g.channels[ch.Channel.ID()] = &ch
	subsChanged := g.updateSubscriptions(d.SubscriptionDataSet, m.filters.Compile)
	remaining := g.snapshotLocked()
	m.mu.Unlock()
	if joined || subsChanged {
		m.notify(group, remaining)
	}
	return joined || subsChanged
}

// updateSubscriptions replaces the group's subscriptions with a member's, as Java does when the
// member's version is newer. It reports whether anything changed.
func (g *consumerGroup) updateSubscriptions(subs []body.SubscriptionData, compile func(string) (*filter.Expr, error)) bool {
	changed := false
	seen := make(map[string]bool, len(subs))
	for _, d := range subs {
		seen[d.Topic] = true
		old, ok := g.subscriptions[d.Topic]
		if ok && old.SubString == d.SubString && old.ExpressionType == orTag(d.ExpressionType) {
			if int64(d.SubVersion) > old.SubVersion {
				// Pulls hold *Subscription without the lock: replace it, never change it in place.
				cp := *old
				cp.SubVersion = int64(d.SubVersion)
				g.subscriptions[d.Topic] = &cp
			}
			continue
		}
		g.subscriptions[d.Topic] = newSubscription(d, compile)
		changed = true
	}
	for topic := range g.subscriptions {
		if !seen[topic] {
			delete(g.subscriptions, topic)
			changed = true
		}
	}
	return changed
}

func orTag(t string) string {
	if t == "" {
		return body.ExpressionTag
	}
	return t
}

// Unregister removes one client from a group (UNREGISTER_CLIENT).
func (m *ConsumerManager) Unregister(group string, chID uint64) {
	m.mu.Lock()
	remaining, removed := m.removeLocked(group, chID)
	m.mu.Unlock()
	if removed {
		m.notify(group, remaining)
	}
}

// ConnClosed removes a closed connection from every group it was in.
func (m *ConsumerManager) ConnClosed(chID uint64) {
	changes := m.removeWhere(func(c *ClientChannel) bool { return c.Channel.ID() == chID })
	for group, remaining := range changes {
		m.notify(group, remaining)
	}
}

// ScanExpired removes members with no heartbeat for longer than timeout and returns their
// channels so that the caller can close them.
func (m *ConsumerManager) ScanExpired(timeout time.Duration) []Channel {
	deadline := m.now().Add(-timeout)
	var expired []Channel
	changes := m.removeWhere(func(c *ClientChannel) bool {
		if c.LastUpdate.Before(deadline) {
			expired = append(expired, c.Channel)
			return true
		}
		return false
	})
	for group, remaining := range changes {
		m.notify(group, remaining)
	}
	return expired
}

func (m *ConsumerManager) removeWhere(match func(*ClientChannel) bool) map[string][]ClientChannel {
	changes := make(map[string][]ClientChannel)
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, g := range m.groups {
		for id, c := range g.channels {
			if match(c) {
				if remaining, removed := m.removeLocked(name, id); removed {
					changes[name] = remaining
				}
			}
		}
	}
	return changes
}

// removeLocked drops a channel from a group, and the group once empty. REQUIRES: m.mu.
func (m *ConsumerManager) removeLocked(group string, chID uint64) ([]ClientChannel, bool) {
	g := m.groups[group]
	if g == nil {
		return nil, false
	}
	if _, ok := g.channels[chID]; !ok {
		return nil, false
	}
	delete(g.channels, chID)
	if len(g.channels) == 0 {
		delete(m.groups, group)
		return nil, true
	}
	return g.snapshotLocked(), true
}

func (g *consumerGroup) snapshotLocked() []ClientChannel {
	out := make([]ClientChannel, 0, len(g.channels))
	for _, c := range g.channels {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClientID < out[j].ClientID })
	return out
}

func (m *ConsumerManager) notify(group string, remaining []ClientChannel) {
	if m.onChange != nil {
		m.onChange(group, remaining)
	}
}

// ClientIDs returns the sorted client ids of a group's members.
func (m *ConsumerManager) ClientIDs(group string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	if g == nil {
		return nil
	}
	ids := make([]string, 0, len(g.channels))
	for _, c := range g.channels {
		ids = append(ids, c.ClientID)
	}
	sort.Strings(ids)
	return ids
}

// Channels returns a group's members.
func (m *ConsumerManager) Channels(group string) []ClientChannel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if g := m.groups[group]; g != nil {
		return g.snapshotLocked()
	}
	return nil
}

// HasGroup reports whether the group has members.
func (m *ConsumerManager) HasGroup(group string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.groups[group] != nil
}

// Subscription returns the group's subscription to topic from its latest heartbeats.
func (m *ConsumerManager) Subscription(group, topic string) (*Subscription, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	if g == nil {
		return nil, false
	}
	s, ok := g.subscriptions[topic]
	return s, ok
}

// GroupInfo describes a group for admin answers.
type GroupInfo struct {
	ConsumeType      string
	MessageModel     string
	ConsumeFromWhere string
	Members          []ClientChannel
	Subscriptions    []*Subscription
}

// Group returns a snapshot of one group.
func (m *ConsumerManager) Group(group string) (GroupInfo, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	if g == nil {
		return GroupInfo{}, false
	}
	info := GroupInfo{ConsumeType: g.consumeType, MessageModel: g.messageModel, ConsumeFromWhere: g.consumeFromWhere, Members: g.snapshotLocked()}
	for _, s := range g.subscriptions {
		info.Subscriptions = append(info.Subscriptions, s)
	}
	sort.Slice(info.Subscriptions, func(i, j int) bool { return info.Subscriptions[i].Topic < info.Subscriptions[j].Topic })
	return info, true
}

// GroupsOf returns the groups subscribed to topic, sorted.
func (m *ConsumerManager) GroupsOf(topic string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for name, g := range m.groups {
		if _, ok := g.subscriptions[topic]; ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// GroupCount is the number of groups with members.
func (m *ConsumerManager) GroupCount() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.groups)
}
