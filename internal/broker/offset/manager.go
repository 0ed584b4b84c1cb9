package offset

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/configfile"
	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// TopicGroupSeparator joins topic and group in the table's keys ("topic@group").
const TopicGroupSeparator = "@"

// DefaultFlushInterval is flushConsumerOffsetInterval's default.
const DefaultFlushInterval = 5 * time.Second

// Options configures a Manager.
type Options struct {
	// StorePathRootDir holds config/consumerOffset.json.
	StorePathRootDir string
	// FlushInterval is how often Start's goroutine persists the table (flushConsumerOffsetInterval);
	// 0 means DefaultFlushInterval.
	FlushInterval time.Duration
}

// ConfigPath returns the path of consumerOffset.json under a store root.
func ConfigPath(storeRoot string) string {
	return filepath.Join(storeRoot, "config", "consumerOffset.json")
}

// Key returns the table key of a topic and group.
func Key(topic, group string) string { return topic + TopicGroupSeparator + group }

// SplitKey splits a table key into topic and group; topics cannot contain '@'.
func SplitKey(key string) (topic, group string, ok bool) {
	return strings.Cut(key, TopicGroupSeparator)
}

// Manager holds the committed consumer offsets (Java ConsumerOffsetManager): for each topic@group
// and queue, the next offset the group will consume.
type Manager struct {
	opts Options
	lg   *zap.Logger
	file *configfile.Persister

	mu struct {
		sync.RWMutex
		table map[string]map[int32]int64
		seq   uint64 // bumped by every change; the persister skips unchanged tables
	}

	startOnce sync.Once
	closeOnce sync.Once
	loop      lifecycle.Group // the flush loop
}

// New loads consumerOffset.json (or its backup); Start begins periodic persistence.
func New(opts Options, lg *zap.Logger) (*Manager, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	m := &Manager{
		opts: opts,
		lg:   lg,
		file: configfile.NewPersister(ConfigPath(opts.StorePathRootDir)),
	}
	m.mu.table = map[string]map[int32]int64{}
	if err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manager) load() error {
	var w *body.ConsumerOffsetSerializeWrapper
	found, err := m.file.Load(func(data []byte) (err error) {
		w, err = body.DecodeConsumerOffsetSerializeWrapper(data)
		return err
	}, m.lg)
	if err != nil {
		return fmt.Errorf("offset: load: %w", err)
	}
	if !found {
		return nil
	}
	for key, queues := range w.OffsetTable {
		if queues != nil {
			m.mu.table[key] = queues
		}
	}
	return nil
}

// Start begins persisting the table every FlushInterval. It is a no-op after the first call.
func (m *Manager) Start() {
	m.startOnce.Do(func() { m.loop.Go(m.flushLoop) })
}

func (m *Manager) flushLoop(stop <-chan struct{}) {
	t := time.NewTicker(m.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := m.Persist(); err != nil {
				m.lg.Error("persist consumer offsets", zap.Error(err))
			}
		}
	}
}

// Close stops the flush goroutine and persists the table one last time.
func (m *Manager) Close() error {
	var err error
	m.closeOnce.Do(func() {
		m.loop.Stop() // a Start after Close launches nothing
		err = m.Persist()
	})
	return err
}

// Persist writes the table to consumerOffset.json if it changed since the last write.
func (m *Manager) Persist() error {
	m.mu.RLock()
	seq := m.mu.seq
	table := m.copyLocked()
	m.mu.RUnlock()
	data, err := body.MarshalIndent(body.ConsumerOffsetSerializeWrapper{OffsetTable: table})
	if err != nil {
		return fmt.Errorf("offset: encode: %w", err)
	}
	if err := m.file.Write(data, seq); err != nil {
		return fmt.Errorf("offset: persist: %w", err)
	}
	return nil
}

// copyLocked returns a deep copy of the table. REQUIRES: m.mu held.
func (m *Manager) copyLocked() map[string]map[int32]int64 {
	out := make(map[string]map[int32]int64, len(m.mu.table))
	for key, queues := range m.mu.table {
		cp := make(map[int32]int64, len(queues))
		for q, off := range queues {
			cp[q] = off
		}
		out[key] = cp
	}
	return out
}

// Commit records the group's next offset for a queue.
func (m *Manager) Commit(group, topic string, queueID int32, offset int64) {
	key := Key(topic, group)
	m.mu.Lock()
	queues := m.mu.table[key]
	if queues == nil {
		queues = map[int32]int64{}
		m.mu.table[key] = queues
	}
	if old, ok := queues[queueID]; !ok || old != offset {
		queues[queueID] = offset
		m.mu.seq++
	}
	m.mu.Unlock()
}

// Query returns the group's committed offset for a queue.
func (m *Manager) Query(group, topic string, queueID int32) (int64, bool) {
	m.mu.RLock()
	off, ok := m.mu.table[Key(topic, group)][queueID]
	m.mu.RUnlock()
	return off, ok
}

// QueryAll returns a copy of the group's offsets for every queue of a topic (nil if none).
func (m *Manager) QueryAll(group, topic string) map[int32]int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	queues, ok := m.mu.table[Key(topic, group)]
	if !ok {
		return nil
	}
	out := make(map[int32]int64, len(queues))
	for q, off := range queues {
		out[q] = off
	}
	return out
}

// TopicsOfGroup returns the sorted topics the group has offsets for (Java whichTopicByConsumer).
func (m *Manager) TopicsOfGroup(group string) []string {
	return m.collect(func(topic, g string) (string, bool) { return topic, g == group })
}

// GroupsOfTopic returns the sorted groups that have offsets for the topic (Java whichGroupByTopic).
func (m *Manager) GroupsOfTopic(topic string) []string {
	return m.collect(func(t, group string) (string, bool) { return group, t == topic })
}

func (m *Manager) collect(pick func(topic, group string) (string, bool)) []string {
	m.mu.RLock()
	var out []string
	for key := range m.mu.table {
		topic, group, ok := SplitKey(key)
		if !ok {
			continue
		}
		if v, ok := pick(topic, group); ok {
			out = append(out, v)
		}
	}
	m.mu.RUnlock()
	sort.Strings(out)
	return out
}

// Remove drops one topic@group entry. It reports whether it existed.
func (m *Manager) Remove(topic, group string) bool {
	return m.removeWhere(func(t, g string) bool { return t == topic && g == group }) > 0
}

// RemoveGroup drops every entry of a group and returns how many topics it had.
func (m *Manager) RemoveGroup(group string) int {
	return m.removeWhere(func(_, g string) bool { return g == group })
}

// RemoveTopic drops every entry of a topic and returns how many groups it had.
func (m *Manager) RemoveTopic(topic string) int {
	return m.removeWhere(func(t, _ string) bool { return t == topic })
}

func (m *Manager) removeWhere(match func(topic, group string) bool) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for key := range m.mu.table {
		topic, group, ok := SplitKey(key)
		if ok && match(topic, group) {
			delete(m.mu.table, key)
			n++
		}
	}
	if n > 0 {
		m.mu.seq++
	}
	return n
}

// CloneOffset copies srcGroup's offsets of a topic to destGroup (Java cloneOffset).
func (m *Manager) CloneOffset(srcGroup, destGroup, topic string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	src, ok := m.mu.table[Key(topic, srcGroup)]
	if !ok {
		return
	}
	cp := make(map[int32]int64, len(src))
	for q, off := range src {
		cp[q] = off
	}
	m.mu.table[Key(topic, destGroup)] = cp
	m.mu.seq++
}

// MinOffsetInAllGroups returns, per queue of topic, the smallest offset committed by any group
// not in skipGroups (Java queryMinOffsetInAllGroup).
func (m *Manager) MinOffsetInAllGroups(topic string, skipGroups map[string]bool) map[int32]int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := map[int32]int64{}
	for key, queues := range m.mu.table {
		t, g, ok := SplitKey(key)
		if !ok || t != topic || skipGroups[g] {
			continue
		}
		for q, off := range queues {
			if cur, seen := out[q]; !seen || off < cur {
				out[q] = off
			}
		}
	}
	return out
}

// Wrapper returns a copy of the whole table (GET_ALL_CONSUMER_OFFSET).
func (m *Manager) Wrapper() body.ConsumerOffsetSerializeWrapper {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return body.ConsumerOffsetSerializeWrapper{OffsetTable: m.copyLocked()}
}

// ReplaceAll replaces the table with a master's (slave synchronization).
func (m *Manager) ReplaceAll(table map[string]map[int32]int64) {
	cp := make(map[string]map[int32]int64, len(table))
	for key, queues := range table {
		q := make(map[int32]int64, len(queues))
		for id, off := range queues {
			q[id] = off
		}
		cp[key] = q
	}
	m.mu.Lock()
	m.mu.table = cp
	m.mu.seq++
	m.mu.Unlock()
}
