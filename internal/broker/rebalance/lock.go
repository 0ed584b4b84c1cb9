package rebalance

import (
	"sync"
	"time"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// DefaultLockMaxLiveTime is how long a lock lives without renewal
// (rocketmq.broker.rebalance.lockMaxLiveTime).
const DefaultLockMaxLiveTime = 60 * time.Second

type lockEntry struct {
	clientID   string
	lastUpdate time.Time
}

// LockManager maps consumer group → queue → owner.
type LockManager struct {
	maxLive time.Duration
	now     func() time.Time

	mu     sync.Mutex
	groups map[string]map[body.MessageQueue]*lockEntry
}

// NewLockManager returns an empty manager; maxLive ≤ 0 means DefaultLockMaxLiveTime and now nil
// means time.Now.
func NewLockManager(maxLive time.Duration, now func() time.Time) *LockManager {
	if maxLive <= 0 {
		maxLive = DefaultLockMaxLiveTime
	}
	if now == nil {
		now = time.Now
	}
	return &LockManager{maxLive: maxLive, now: now, groups: make(map[string]map[body.MessageQueue]*lockEntry)}
}

// TryLockBatch locks, or renews, every queue that is free, expired or already the client's, and
// returns those queues.
func (m *LockManager) TryLockBatch(group string, mqs []body.MessageQueue, clientID string) []body.MessageQueue {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	locks := m.groups[group]
	if locks == nil {
		locks = make(map[body.MessageQueue]*lockEntry)
		m.groups[group] = locks
	}
	locked := make([]body.MessageQueue, 0, len(mqs))
	for _, mq := range mqs {
		e := locks[mq]
		if e == nil || e.clientID == clientID || now.Sub(e.lastUpdate) > m.maxLive {
			locks[mq] = &lockEntry{clientID: clientID, lastUpdate: now}
			locked = append(locked, mq)
		}
	}
	return locked
}

// UnlockBatch releases the queues the client holds.
func (m *LockManager) UnlockBatch(group string, mqs []body.MessageQueue, clientID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	locks := m.groups[group]
	for _, mq := range mqs {
		if e := locks[mq]; e != nil && e.clientID == clientID {
			delete(locks, mq)
		}
	}
	if len(locks) == 0 {
		delete(m.groups, group)
	}
}

// IsLocked reports whether the queue is held, unexpired, by clientID.
func (m *LockManager) IsLocked(group string, mq body.MessageQueue, clientID string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.groups[group][mq]
	return e != nil && e.clientID == clientID && m.now().Sub(e.lastUpdate) <= m.maxLive
}
