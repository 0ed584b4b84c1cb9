// Package brokerstats counts what the broker stored and delivered, per topic, per topic and
// group, and in total, over the last minute, hour and day, as Apache's BrokerStatsManager does
// for VIEW_BROKER_STATS_DATA (the dashboard's and rocketmq-exporter's throughput figures). Each
// counter is sampled every 10 s for the minute window, every 10 min for the hour window and every
// hour for the day window; a window's figures run from its oldest sample to now.
package brokerstats

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// The stats names VIEW_BROKER_STATS_DATA asks for (Apache's BrokerStatsManager constants): their
// keys are a topic, topic@group, or the cluster's name.
const (
	TopicPutNums  = "TOPIC_PUT_NUMS"  // messages stored in a topic
	TopicPutSize  = "TOPIC_PUT_SIZE"  // bytes stored in a topic
	GroupGetNums  = "GROUP_GET_NUMS"  // messages a group pulled from a topic, key topic@group
	GroupGetSize  = "GROUP_GET_SIZE"  // bytes a group pulled from a topic, key topic@group
	BrokerPutNums = "BROKER_PUT_NUMS" // messages stored, key the cluster name
	BrokerGetNums = "BROKER_GET_NUMS" // messages delivered, key the cluster name
)

// DefaultMaxKeys bounds the counters of each stats name: topics and groups are bounded by the
// broker's tables, but not every name a pull carries.
const DefaultMaxKeys = 100_000

// A window keeps samples every step, spanning keep−1 steps (Apache's minute, hour and day lists).
type window struct {
	step time.Duration
	keep int
}

var windows = [3]window{{10 * time.Second, 7}, {10 * time.Minute, 7}, {time.Hour, 25}}

// key names one counter: a topic, or a topic and a group.
type key struct{ topic, group string }

// sample is a counter's totals at one moment.
type sample struct {
	at           time.Time
	value, times int64
}

// counter is one stats item: running totals and its samples per window.
type counter struct {
	value, times atomic.Int64
	mu           sync.Mutex
	samples      [len(windows)][]sample // REQUIRES mu
}

// Manager holds every counter.
type Manager struct {
	cluster string
	maxKeys int
	now     func() time.Time

	mu     sync.RWMutex
	tables map[string]map[key]*counter // REQUIRES mu
	g      lifecycle.Group
}

// New returns a Manager for the named cluster (the key of the broker-wide counters).
func New(cluster string) *Manager {
	return &Manager{cluster: cluster, maxKeys: DefaultMaxKeys, now: time.Now, tables: map[string]map[key]*counter{}}
}

// Put counts a send that stored n messages of size bytes in topic.
func (m *Manager) Put(topic string, n, bytes int) {
	m.add(TopicPutNums, key{topic: topic}, int64(n))
	m.add(TopicPutSize, key{topic: topic}, int64(bytes))
	m.add(BrokerPutNums, key{topic: m.cluster}, int64(n))
}

// Get counts a pull that delivered n messages of size bytes of topic to group.
func (m *Manager) Get(topic, group string, n, bytes int) {
	m.add(GroupGetNums, key{topic, group}, int64(n))
	m.add(GroupGetSize, key{topic, group}, int64(bytes))
	m.add(BrokerGetNums, key{topic: m.cluster}, int64(n))
}

// add adds v to a counter, once (one call, Apache's "times").
func (m *Manager) add(name string, k key, v int64) {
	c := m.counter(name, k)
	if c == nil {
		return
	}
	c.value.Add(v)
	c.times.Add(1)
}

// counter finds a counter, creating it unless the name has maxKeys already (then nil).
func (m *Manager) counter(name string, k key) *counter {
	m.mu.RLock()
	c := m.tables[name][k]
	m.mu.RUnlock()
	if c != nil {
		return c
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tables[name]
	if t == nil {
		t = map[key]*counter{}
		m.tables[name] = t
	}
	if c = t[k]; c == nil && len(t) < m.maxKeys {
		c = newCounter(m.now())
		t[k] = c
	}
	return c
}

func newCounter(now time.Time) *counter {
	c := &counter{}
	for i := range c.samples {
		c.samples[i] = []sample{{at: now}}
	}
	return c
}

// Total is the running total of a counter, 0 for one never counted.
func (m *Manager) Total(name, statsKey string) int64 {
	if c := m.find(name, statsKey); c != nil {
		return c.value.Load()
	}
	return 0
}

// Data is a counter's minute, hour and day figures, as VIEW_BROKER_STATS_DATA answers them;
// false for a name and key never counted.
func (m *Manager) Data(name, statsKey string) (body.BrokerStatsData, bool) {
	c := m.find(name, statsKey)
	if c == nil {
		return body.BrokerStatsData{}, false
	}
	now := sample{at: m.now(), value: c.value.Load(), times: c.times.Load()}
	c.mu.Lock()
	defer c.mu.Unlock()
	return body.BrokerStatsData{
		StatsMinute: figures(c.samples[0][0], now),
		StatsHour:   figures(c.samples[1][0], now),
		StatsDay:    figures(c.samples[2][0], now),
	}, true
}

// find looks a counter up by its wire key: a topic, topic@group, or the cluster name.
func (m *Manager) find(name, statsKey string) *counter {
	k := key{topic: statsKey}
	if name == GroupGetNums || name == GroupGetSize {
		k.topic, k.group, _ = strings.Cut(statsKey, "@")
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.tables[name][k]
}

// figures are Apache's StatsSnapshot between two samples: the sum, per second, and per call.
func figures(from, to sample) body.BrokerStatsItem {
	it := body.BrokerStatsItem{Sum: to.value - from.value}
	if ms := to.at.Sub(from.at).Milliseconds(); ms > 0 {
		it.Tps = float64(it.Sum) * 1000 / float64(ms)
	}
	if calls := to.times - from.times; calls > 0 {
		it.Avgpt = float64(it.Sum) / float64(calls)
	}
	return it
}
