package metrics

import (
	"sync"
	"sync/atomic"
)

// cowMap is a copy-on-write map for the hot path: a lookup is one atomic load and a map read,
// with no shared write, so concurrent senders do not contend; adding a key copies the map under a
// mutex. It suits keys that are added rarely and read on every call (topics, groups, codes).
type cowMap[K comparable, V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[K]V]
}

func (c *cowMap[K, V]) load(k K) (V, bool) {
	if m := c.m.Load(); m != nil {
		v, ok := (*m)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// loadOrCreate returns the value for k, calling create (under the mutex) if there is none.
func (c *cowMap[K, V]) loadOrCreate(k K, create func() V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.load(k); ok {
		return v
	}
	old := c.m.Load()
	next := make(map[K]V, 1)
	if old != nil {
		next = make(map[K]V, len(*old)+1)
		for key, v := range *old {
			next[key] = v
		}
	}
	v := create()
	next[k] = v
	c.m.Store(&next)
	return v
}
