package subscription

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/configfile"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
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
	// Admit, if set, is asked before n groups are auto-created for the connection owner (0: the
	// broker itself); an error refuses them all (quota.Quota.TakeGroups).
	Admit func(owner uint64, n int) error
	// Now is the clock for DataVersion timestamps; nil means time.Now.
	Now func() time.Time
}

// ConfigPath returns the path of subscriptionGroup.json under a store root.
func ConfigPath(storeRoot string) string {
	return filepath.Join(storeRoot, filepath.FromSlash(subscriptionGroupFileRel))
}

// Manager is the broker's consumer group table (Java SubscriptionGroupManager). A change is
// answered once subscriptionGroup.json holds it; changes made at once share one write (sync).
type Manager struct {
	opts Options
	lg   *zap.Logger
	file *configfile.Persister
	sync *configfile.Syncer

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
	m.sync = configfile.NewSyncer(m.file, m.snapshot)
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

// FindOrCreate returns a group's config, creating it with defaults when it is unknown, its name
// is a valid group name and either autoCreateSubscriptionGroup is on or the group is a system
// group (CID_RMQ_SYS_*). ok is false when the group neither exists nor may be created
// (SUBSCRIPTION_GROUP_NOT_EXIST). A group it creates is in the file when it returns, unless the
// write failed (logged; the next change writes it, as in Java).
func (m *Manager) FindOrCreate(group string) (body.SubscriptionGroupConfig, bool) {
	cfg, ok, _ := m.FindOrCreateFor(0, group)
	return cfg, ok
}

// FindOrCreateFor is FindOrCreate for a request of the connection owner: a group it would create
// beyond what Admit lets owner create is not created, and the refusal is returned (ok false).
func (m *Manager) FindOrCreateFor(owner uint64, group string) (cfg body.SubscriptionGroupConfig, ok bool, refused error) {
	if cfg, ok := m.Get(group); ok {
		return cfg, true, nil
	}
	found, err := m.FindOrCreateMany(owner, []string{group})
	var qe *QuotaError
	if errors.As(err, &qe) {
		return cfg, false, qe.Err
	}
	if err != nil {
		m.lg.Error("persist subscription groups", zap.Error(err))
	}
	cfg, ok = found[group]
	return cfg, ok, nil
}

// QuotaError is FindOrCreateMany's refusal by Admit; nothing was created.
type QuotaError struct{ Err error }

func (e *QuotaError) Error() string { return e.Err.Error() }
func (e *QuotaError) Unwrap() error { return e.Err }

// FindOrCreateMany is FindOrCreate for several groups at once for the connection owner, with one
// write of the file for every group it creates. It returns the configs of the groups that exist
// (or were created) and the write's error (the groups it created are in the table all the same),
// or a *QuotaError when Admit refuses the groups it would create (then none is).
func (m *Manager) FindOrCreateMany(owner uint64, groups []string) (map[string]body.SubscriptionGroupConfig, error) {
	found := make(map[string]body.SubscriptionGroupConfig, len(groups))
	m.mu.Lock()
	var created []string
	for _, g := range groups {
		if cfg, ok := m.mu.groups[g]; ok {
			found[g] = cfg
		} else if m.mayCreate(g) && !slices.Contains(created, g) {
			created = append(created, g)
		}
	}
	if len(created) == 0 {
		m.mu.Unlock()
		return found, nil
	}
	if m.opts.Admit != nil {
		if err := m.opts.Admit(owner, len(created)); err != nil {
			m.mu.Unlock()
			return found, &QuotaError{Err: err}
		}
	}
	for _, g := range created {
		cfg := body.NewSubscriptionGroupConfig(g)
		m.mu.groups[g], found[g] = cfg, cfg
	}
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("subscription groups auto-created", zap.Int("count", len(created)), zap.Strings("groups", created[:min(len(created), 8)]))
	return found, m.persist(seq)
}

// mayCreate reports whether an unknown group may be auto-created.
func (m *Manager) mayCreate(group string) bool {
	return names.Group(group) == nil && (m.opts.AutoCreateSubscriptionGroup || IsSysGroup(group))
}

// Missing returns the groups of groups the table does not have.
func (m *Manager) Missing(groups []string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for _, g := range groups {
		if _, ok := m.mu.groups[g]; !ok {
			out = append(out, g)
		}
	}
	return out
}

// Put creates or replaces a group's config and persists the table. A name that is not a valid
// group name is refused (ErrEmptyGroupName for none, else names.Group's error).
func (m *Manager) Put(cfg body.SubscriptionGroupConfig) error {
	if cfg.GroupName == "" {
		return ErrEmptyGroupName
	}
	if err := names.Group(cfg.GroupName); err != nil {
		return err
	}
	m.mu.Lock()
	m.mu.groups[cfg.GroupName] = cfg
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("subscription group updated", zap.String("group", cfg.GroupName))
	return m.persist(seq)
}

// PutAll creates or replaces several groups (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST) with one
// write of the file. A name Put would refuse fails the whole list before anything changes.
func (m *Manager) PutAll(list []body.SubscriptionGroupConfig) error {
	for i := range list {
		if list[i].GroupName == "" {
			return ErrEmptyGroupName
		}
		if err := names.Group(list[i].GroupName); err != nil {
			return err
		}
	}
	m.mu.Lock()
	for _, cfg := range list {
		m.mu.groups[cfg.GroupName] = cfg
	}
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("subscription groups updated", zap.Int("count", len(list)))
	return m.persist(seq)
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
	seq := m.changedLocked()
	m.mu.Unlock()
	m.lg.Info("subscription group deleted", zap.String("group", group))
	return true, m.persist(seq)
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
	m.mu.Unlock()
	return m.persist(seq)
}

// changedLocked bumps the DataVersion and returns the number of this change.
// REQUIRES: m.mu held for writing.
func (m *Manager) changedLocked() uint64 {
	m.mu.version = m.mu.version.Next(m.opts.Now())
	m.mu.seq++
	return m.mu.seq
}

// persist returns once change seq is in the file.
func (m *Manager) persist(seq uint64) error {
	if err := m.sync.Sync(seq); err != nil {
		return fmt.Errorf("subscription: persist: %w", err)
	}
	return nil
}

// snapshot encodes the table for the file, with the number of its latest change.
func (m *Manager) snapshot() ([]byte, uint64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	data, err := body.MarshalIndent(m.wrapperLocked())
	if err != nil {
		return nil, 0, fmt.Errorf("subscription: encode: %w", err)
	}
	return data, m.mu.seq, nil
}

// Writes is the number of writes of the file so far.
func (m *Manager) Writes() uint64 { return m.sync.Writes() }
