package client

import (
	"sort"
	"sync"
	"time"
)

// ProducerManager holds the producer groups: the broker asks a transaction's producer group to
// check a half message, and admin tools list producers.
type ProducerManager struct {
	now func() time.Time

	mu     sync.RWMutex
	groups map[string]map[uint64]*ClientChannel
}

// NewProducerManager returns an empty manager; now defaults to time.Now.
func NewProducerManager(now func() time.Time) *ProducerManager {
	if now == nil {
		now = time.Now
	}
	return &ProducerManager{now: now, groups: make(map[string]map[uint64]*ClientChannel)}
}

// Register records a producer's heartbeat for one group.
func (m *ProducerManager) Register(group string, ch ClientChannel) {
	ch.LastUpdate = m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[group]
	if g == nil {
		g = make(map[uint64]*ClientChannel)
		m.groups[group] = g
	}
	g[ch.Channel.ID()] = &ch
}

// Unregister removes one producer connection from a group.
func (m *ProducerManager) Unregister(group string, chID uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeLocked(group, chID)
}

func (m *ProducerManager) removeLocked(group string, chID uint64) {
	if g := m.groups[group]; g != nil {
		delete(g, chID)
		if len(g) == 0 {
			delete(m.groups, group)
		}
	}
}

// ConnClosed removes a closed connection from every group.
func (m *ProducerManager) ConnClosed(chID uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name := range m.groups {
		m.removeLocked(name, chID)
	}
}

// ScanExpired removes producers silent for longer than timeout and returns their channels.
func (m *ProducerManager) ScanExpired(timeout time.Duration) []Channel {
	deadline := m.now().Add(-timeout)
	var expired []Channel
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, g := range m.groups {
		for id, c := range g {
			if c.LastUpdate.Before(deadline) {
				expired = append(expired, c.Channel)
				m.removeLocked(name, id)
			}
		}
	}
	return expired
}

// Channels returns a group's producers sorted by client id.
func (m *ProducerManager) Channels(group string) []ClientChannel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.groups[group]
	out := make([]ClientChannel, 0, len(g))
	for _, c := range g {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClientID < out[j].ClientID })
	return out
}

// All returns every group's producers, for GET_ALL_PRODUCER_INFO.
func (m *ProducerManager) All() map[string][]ClientChannel {
	m.mu.RLock()
	groups := make([]string, 0, len(m.groups))
	for name := range m.groups {
		groups = append(groups, name)
	}
	m.mu.RUnlock()
	out := make(map[string][]ClientChannel, len(groups))
	for _, name := range groups {
		if chs := m.Channels(name); len(chs) > 0 {
			out[name] = chs
		}
	}
	return out
}

// ConnectionCount is the number of producer connections.
func (m *ProducerManager) ConnectionCount() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	seen := make(map[uint64]struct{})
	for _, g := range m.groups {
		for id := range g {
			seen[id] = struct{}{}
		}
	}
	return len(seen)
}
