// Package quota counts what each connection has made the broker create — consumer groups and
// topics — against a limit per connection, so that one client cannot fill the broker's tables
// and config files with names. A connection's counts go when it closes (Release). Owner 0 is the
// broker itself and is never limited.
package quota

import (
	"errors"
	"fmt"
	"sync"
)

// Defaults of the limits (maxNewGroupsPerConnection, maxNewTopicsPerConnection).
const (
	DefaultGroups = 1000
	DefaultTopics = 1000
)

// ErrExceeded is what Take answers beyond a limit.
var ErrExceeded = errors.New("quota exceeded")

// Limits are the most of each kind one connection may create while it lasts; 0 is the default.
type Limits struct {
	Groups int
	Topics int
}

// Quota counts creations per connection.
type Quota struct {
	lim Limits

	mu   sync.Mutex
	used map[uint64]*counts
}

type counts struct{ groups, topics int }

// New returns a Quota.
func New(l Limits) *Quota {
	if l.Groups <= 0 {
		l.Groups = DefaultGroups
	}
	if l.Topics <= 0 {
		l.Topics = DefaultTopics
	}
	return &Quota{lim: l, used: make(map[uint64]*counts)}
}

// TakeGroups counts n new consumer groups for owner, or refuses (ErrExceeded, nothing counted)
// when owner would pass its limit.
func (q *Quota) TakeGroups(owner uint64, n int) error {
	return q.take(owner, n, func(c *counts) *int { return &c.groups }, q.lim.Groups, "consumer groups", "maxNewGroupsPerConnection")
}

// TakeTopics counts n new topics for owner, or refuses as TakeGroups does.
func (q *Quota) TakeTopics(owner uint64, n int) error {
	return q.take(owner, n, func(c *counts) *int { return &c.topics }, q.lim.Topics, "topics", "maxNewTopicsPerConnection")
}

func (q *Quota) take(owner uint64, n int, field func(*counts) *int, limit int, what, key string) error {
	if owner == 0 || n <= 0 {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	c := q.used[owner]
	if c == nil {
		c = &counts{}
		q.used[owner] = c
	}
	used := field(c)
	if *used+n > limit {
		return fmt.Errorf("%w: this connection has created %d %s and may create at most %d (%s)", ErrExceeded, *used, what, limit, key)
	}
	*used += n
	return nil
}

// Release forgets what owner created: its connection has closed.
func (q *Quota) Release(owner uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.used, owner)
}

// Connections is the number of connections counted, for tests.
func (q *Quota) Connections() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.used)
}
