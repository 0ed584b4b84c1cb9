package topic

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/configfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Options configures a Manager. Start from DefaultOptions.
type Options struct {
	// StorePathRootDir holds config/topics.json.
	StorePathRootDir string
	ClusterName      string
	BrokerName       string
	// AutoCreateTopicEnable creates TBW102 (inherit + RW), from which unknown topics are created on
	// first send.
	AutoCreateTopicEnable bool
	// DefaultTopicQueueNums is TBW102's queue count.
	DefaultTopicQueueNums int
	// ClusterTopicEnable and BrokerTopicEnable make the <cluster> and <broker> topics RW as well as
	// inheritable.
	ClusterTopicEnable bool
	BrokerTopicEnable  bool
	TraceTopicEnable   bool
	MsgTraceTopicName  string
	// Admit, if set, is asked before a send of the connection owner creates a topic from its
	// default topic; an error refuses it (quota.Quota.TakeTopics).
	Admit func(owner uint64, n int) error
	// OnChange is called, outside the manager's lock, after a topic is created, updated or deleted;
	// the broker re-registers with the name servers from it. May be nil.
	OnChange func(Change)
	// Now is the clock for DataVersion timestamps; nil means time.Now.
	Now func() time.Time
}

// DefaultOptions returns Java's defaults.
func DefaultOptions() Options {
	return Options{
		ClusterName:           "DefaultCluster",
		BrokerName:            "DEFAULT_BROKER",
		AutoCreateTopicEnable: true,
		DefaultTopicQueueNums: 8,
		ClusterTopicEnable:    true,
		BrokerTopicEnable:     true,
		MsgTraceTopicName:     systopic.Trace,
	}
}

// Change describes one change to the topic table.
type Change struct {
	Topic   body.TopicConfig
	Deleted bool
}

// Manager is the broker's topic table (Java TopicConfigManager), persisted to
// <root>/config/topics.json on every change.
type Manager struct {
	opts   Options
	lg     *zap.Logger
	system map[string]bool // topics created at start, plus the static system names

	mu struct {
		sync.RWMutex
		topics  map[string]body.TopicConfig
		version body.DataVersion
		seq     uint64 // bumped with every change, orders persists
	}
	file *configfile.Persister
	sync *configfile.Syncer // a change is answered once topics.json holds it; changes at once share a write
}

// ConfigPath returns the path of topics.json under a store root.
func ConfigPath(storeRoot string) string {
	return filepath.Join(storeRoot, "config", "topics.json")
}

// New builds the table: the built-in topics, then whatever topics.json (or its backup) holds.
func New(opts Options, lg *zap.Logger) (*Manager, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.DefaultTopicQueueNums <= 0 {
		opts.DefaultTopicQueueNums = 8
	}
	if opts.MsgTraceTopicName == "" {
		opts.MsgTraceTopicName = systopic.Trace
	}
	m := &Manager{opts: opts, lg: lg, file: configfile.NewPersister(ConfigPath(opts.StorePathRootDir)), system: map[string]bool{}}
	m.sync = configfile.NewSyncer(m.file, m.snapshot)
	for _, name := range systopic.Static() {
		m.system[name] = true
	}
	m.mu.topics = map[string]body.TopicConfig{}
	m.mu.version = body.NewDataVersion(opts.Now())
	for _, tc := range m.builtinTopics() {
		m.mu.topics[tc.TopicName] = tc
		m.system[tc.TopicName] = true
	}
	if err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manager) builtinTopics() []body.TopicConfig {
	o := m.opts
	mk := func(name string, queues, perm int) body.TopicConfig {
		tc := body.NewTopicConfig(name)
		if queues > 0 {
			tc.ReadQueueNums, tc.WriteQueueNums = queues, queues
		}
		tc.Perm = perm
		return tc
	}
	rw := body.PermRead | body.PermWrite
	out := []body.TopicConfig{mk(systopic.SelfTest, 1, rw)}
	if o.AutoCreateTopicEnable {
		out = append(out, mk(systopic.AutoCreate, o.DefaultTopicQueueNums, body.PermInherit|rw))
	}
	out = append(out, mk(systopic.Benchmark, 1024, rw))
	clusterPerm, brokerPerm := body.PermInherit, body.PermInherit
	if o.ClusterTopicEnable {
		clusterPerm |= rw
	}
	if o.BrokerTopicEnable {
		brokerPerm |= rw
	}
	if o.ClusterName != "" {
		out = append(out, mk(o.ClusterName, 0, clusterPerm))
	}
	if o.BrokerName != "" {
		out = append(out, mk(o.BrokerName, 1, brokerPerm))
	}
	out = append(out,
		mk(systopic.OffsetMovedEvent, 1, rw),
		mk(systopic.Schedule, ScheduleTopicQueueNums, rw))
	if o.TraceTopicEnable {
		out = append(out, mk(o.MsgTraceTopicName, 1, rw))
	}
	out = append(out,
		mk(systopic.Reply(o.ClusterName), 1, rw),
		mk(systopic.TransHalf, 1, rw),
		mk(systopic.TransOpHalf, 1, rw))
	return out
}

func (m *Manager) load() error {
	var w *body.TopicConfigSerializeWrapper
	found, err := m.file.Load(func(data []byte) (err error) {
		w, err = body.DecodeTopicConfigSerializeWrapper(data)
		return err
	}, m.lg)
	if err != nil {
		return fmt.Errorf("topic: load: %w", err)
	}
	if !found {
		return nil
	}
	for name, tc := range w.TopicConfigTable {
		if tc.TopicName == "" {
			tc.TopicName = name
		}
		m.mu.topics[name] = tc
	}
	m.mu.version = w.DataVersion
	return nil
}

// Get returns a topic's config. The Attributes map is shared: do not modify it.
func (m *Manager) Get(topic string) (body.TopicConfig, bool) {
	m.mu.RLock()
	tc, ok := m.mu.topics[topic]
	m.mu.RUnlock()
	return tc, ok
}

// Contains reports whether the topic exists.
func (m *Manager) Contains(topic string) bool {
	_, ok := m.Get(topic)
	return ok
}

// IsOrderTopic reports whether the topic is marked ordered.
func (m *Manager) IsOrderTopic(topic string) bool {
	tc, ok := m.Get(topic)
	return ok && tc.Order
}

// IsSystemTopic reports the built-in topics of this broker and rmq_sys_* topics.
func (m *Manager) IsSystemTopic(topic string) bool {
	return m.system[topic] || systopic.IsSystem(topic)
}

// Topics returns the sorted topic names.
func (m *Manager) Topics() []string {
	m.mu.RLock()
	names := make([]string, 0, len(m.mu.topics))
	for name := range m.mu.topics {
		names = append(names, name)
	}
	m.mu.RUnlock()
	sort.Strings(names)
	return names
}

// DataVersion returns the table's current version.
func (m *Manager) DataVersion() body.DataVersion {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.mu.version
}

// Wrapper returns a copy of the table and its version (GET_ALL_TOPIC_CONFIG, topics.json).
func (m *Manager) Wrapper() body.TopicConfigSerializeWrapper {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.wrapperLocked()
}

func (m *Manager) wrapperLocked() body.TopicConfigSerializeWrapper {
	table := make(map[string]body.TopicConfig, len(m.mu.topics))
	for k, v := range m.mu.topics {
		table[k] = v
	}
	return body.TopicConfigSerializeWrapper{DataVersion: m.mu.version, TopicConfigTable: table}
}

// RegistrationWrapper returns the table to register with the name servers. When brokerPerm lacks
// read or write, every topic's perm is masked by it, as Java's registerBrokerAll does.
func (m *Manager) RegistrationWrapper(brokerPerm int) body.TopicConfigSerializeWrapper {
	w := m.Wrapper()
	rw := body.PermRead | body.PermWrite
	if brokerPerm&rw == rw {
		return w
	}
	for name, tc := range w.TopicConfigTable {
		tc.Perm &= brokerPerm
		w.TopicConfigTable[name] = tc
	}
	return w
}
