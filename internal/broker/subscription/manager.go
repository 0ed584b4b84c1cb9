package subscription

import (
	"errors"
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

// Built-in consumer groups (Java MixAll).
const (
	ToolsConsumerGroup       = "TOOLS_CONSUMER"
	FilterSrvConsumerGroup   = "FILTERSRV_CONSUMER"
	SelfTestConsumerGroup    = "SELF_TEST_C_GROUP"
	OnsHTTPProxyGroup        = "CID_ONS-HTTP-PROXY"
	OnsAPIPullGroup          = "CID_ONSAPI_PULL"
	OnsAPIPermissionGroup    = "CID_ONSAPI_PERMISSION"
	OnsAPIOwnerGroup         = "CID_ONSAPI_OWNER"
	subscriptionGroupFileRel = "config/subscriptionGroup.json"
)

var builtinGroups = []string{
	ToolsConsumerGroup, FilterSrvConsumerGroup, SelfTestConsumerGroup, OnsHTTPProxyGroup,
	OnsAPIPullGroup, OnsAPIPermissionGroup, OnsAPIOwnerGroup, systopic.TransCheckGroup,
}

// IsSysGroup reports groups that are created on demand even without autoCreateSubscriptionGroup.
func IsSysGroup(group string) bool { return systopic.IsSystemGroup(group) }

// ErrEmptyGroupName rejects a config without a group name.
var ErrEmptyGroupName = errors.New("subscription: empty group name")

// Options configures a Manager.
type Options struct {
	// StorePathRootDir holds config/subscriptionGroup.json.
	StorePathRootDir string
	// AutoCreateSubscriptionGroup creates unknown groups with default settings on first use.
	AutoCreateSubscriptionGroup bool
	// Now is the clock for DataVersion timestamps; nil means time.Now.
	Now func() time.Time
}

// ConfigPath returns the path of subscriptionGroup.json under a store root.
func ConfigPath(storeRoot string) string {
	return filepath.Join(storeRoot, filepath.FromSlash(subscriptionGroupFileRel))
}

// Manager is the broker's consumer group table (Java SubscriptionGroupManager).
type Manager struct {
	opts Options
	lg   *zap.Logger
	file *configfile.Persister

	mu struct {
		sync.RWMutex
		groups    map[string]body.SubscriptionGroupConfig
		forbidden map[string]map[string]int
		version   body.DataVersion
		seq       uint64
	}
}

// New builds the table: the built-in groups, then whatever subscriptionGroup.json (or its backup)
// holds.
func New(opts Options, lg *zap.Logger) (*Manager, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Manager{opts: opts, lg: lg, file: configfile.NewPersister(ConfigPath(opts.StorePathRootDir))}
	m.mu.groups = make(map[string]body.SubscriptionGroupConfig, len(builtinGroups))
	for _, g := range builtinGroups {
		m.mu.groups[g] = body.NewSubscriptionGroupConfig(g)
	}
	m.mu.version = body.NewDataVersion(opts.Now())
	if err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Manager) load() error {
	var w *body.SubscriptionGroupWrapper
	found, err := m.file.Load(func(data []byte) (err error) {
		w, err = body.DecodeSubscriptionGroupWrapper(data)
		return err
	}, m.lg)
	if err != nil {
		return fmt.Errorf("subscription: load: %w", err)
	}
	if !found {
		return nil
	}
	for name, cfg := range w.SubscriptionGroupTable {
		if cfg.GroupName == "" {
			cfg.GroupName = name
		}
		m.mu.groups[name] = cfg
	}
	m.mu.forbidden = w.ForbiddenTable
	m.mu.version = w.DataVersion
	return nil
}

// Get returns a group's config without creating it.
func (m *Manager) Get(group string) (body.SubscriptionGroupConfig, bool) {
	m.mu.RLock()
	cfg, ok := m.mu.groups[group]
	m.mu.RUnlock()
	return cfg, ok
}

// FindOrCreate returns a group's config, creating it with defaults when it is unknown and either
// autoCreateSubscriptionGroup is on or the group is a system group (CID_RMQ_SYS_*). ok is false
// when the group neither exists nor may be created (SUBSCRIPTION_GROUP_NOT_EXIST).
func (m *Manager) FindOrCreate(group string) (body.SubscriptionGroupConfig, bool) {
	if cfg, ok := m.Get(group); ok {
		return cfg, true
	}
	if group == "" || !(m.opts.AutoCreateSubscriptionGroup || IsSysGroup(group)) {
		return body.SubscriptionGroupConfig{}, false
	}
	m.mu.Lock()
	if cfg, ok := m.mu.groups[group]; ok {
		m.mu.Unlock()
		return cfg, true
	}
	cfg := body.NewSubscriptionGroupConfig(group)
	m.mu.groups[group] = cfg
	data, seq, err := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("subscription group auto-created", zap.String("group", group))
	if err == nil {
		err = m.persist(data, seq)
	}
	if err != nil {
		m.lg.Error("persist subscription groups", zap.Error(err))
	}
	return cfg, true
}

// Put creates or replaces a group's config and persists the table.
func (m *Manager) Put(cfg body.SubscriptionGroupConfig) error {
	if cfg.GroupName == "" {
		return ErrEmptyGroupName
	}
	m.mu.Lock()
	m.mu.groups[cfg.GroupName] = cfg
	data, seq, err := m.changedLocked()
	m.mu.Unlock()
	if err != nil {
		return err
	}
	m.lg.Info("subscription group updated", zap.String("group", cfg.GroupName))
	return m.persist(data, seq)
}

// Delete removes a group and persists the table. It reports whether the group existed.
func (m *Manager) Delete(group string) (bool, error) {
	m.mu.Lock()
	if _, ok := m.mu.groups[group]; !ok {
		m.mu.Unlock()
		return false, nil
	}
	delete(m.mu.groups, group)
	delete(m.mu.forbidden, group)
	data, seq, err := m.changedLocked()
	m.mu.Unlock()
	if err != nil {
		return true, err
	}
	m.lg.Info("subscription group deleted", zap.String("group", group))
	return true, m.persist(data, seq)
}

// DisableConsume turns consumeEnable off for a group (in memory, as Java does; the next persist
// writes it).
func (m *Manager) DisableConsume(group string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cfg, ok := m.mu.groups[group]; ok {
		cfg.ConsumeEnable = false
		m.mu.groups[group] = cfg
		m.mu.version = m.mu.version.Next(m.opts.Now())
		m.mu.seq++
	}
}

// Groups returns the sorted group names.
func (m *Manager) Groups() []string {
	m.mu.RLock()
	names := make([]string, 0, len(m.mu.groups))
	for name := range m.mu.groups {
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

// Wrapper returns a copy of the table (GET_ALL_SUBSCRIPTIONGROUP_CONFIG, subscriptionGroup.json).
func (m *Manager) Wrapper() body.SubscriptionGroupWrapper {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.wrapperLocked()
}

func (m *Manager) wrapperLocked() body.SubscriptionGroupWrapper {
	groups := make(map[string]body.SubscriptionGroupConfig, len(m.mu.groups))
	for k, v := range m.mu.groups {
		groups[k] = v
	}
	w := body.SubscriptionGroupWrapper{DataVersion: m.mu.version, SubscriptionGroupTable: groups}
	if len(m.mu.forbidden) > 0 {
		w.ForbiddenTable = make(map[string]map[string]int, len(m.mu.forbidden))
		for g, topics := range m.mu.forbidden {
			cp := make(map[string]int, len(topics))
			for t, v := range topics {
				cp[t] = v
			}
			w.ForbiddenTable[g] = cp
		}
	}
	return w
}

// Persist writes the current table to subscriptionGroup.json.
func (m *Manager) Persist() error {
	m.mu.Lock()
	m.mu.seq++
	seq := m.mu.seq
	data, err := body.MarshalIndent(m.wrapperLocked())
	m.mu.Unlock()
	if err != nil {
		return fmt.Errorf("subscription: encode: %w", err)
	}
	return m.persist(data, seq)
}

// changedLocked bumps the DataVersion and returns the file content for this change.
// REQUIRES: m.mu held for writing.
func (m *Manager) changedLocked() ([]byte, uint64, error) {
	m.mu.version = m.mu.version.Next(m.opts.Now())
	m.mu.seq++
	data, err := body.MarshalIndent(m.wrapperLocked())
	if err != nil {
		return nil, 0, fmt.Errorf("subscription: encode: %w", err)
	}
	return data, m.mu.seq, nil
}

func (m *Manager) persist(data []byte, seq uint64) error {
	if err := m.file.Write(data, seq); err != nil {
		return fmt.Errorf("subscription: persist: %w", err)
	}
	return nil
}
