package namesrv

import (
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// NamespaceOrderTopicConfig is the KV namespace holding ordered topics' "broker:queues;..." confs.
const NamespaceOrderTopicConfig = "ORDER_TOPIC_CONFIG"

// kvConfigFile is kvConfig.json: {"configTable":{namespace:{key:value}}}.
type kvConfigFile struct {
	ConfigTable map[string]map[string]string `json:"configTable"`
}

// KVConfig is the name server's namespaced key/value store (Java KVConfigManager), persisted to
// kvConfigPath on every change.
type KVConfig struct {
	lg   *zap.Logger
	file *vfs.Persister

	mu struct {
		sync.RWMutex
		table map[string]map[string]string
		seq   uint64
	}
}

// NewKVConfig loads the store from path (or its backup); a missing file is an empty store.
func NewKVConfig(path string, lg *zap.Logger) (*KVConfig, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	kv := &KVConfig{lg: lg, file: vfs.NewPersister(vfs.Default, path)}
	kv.mu.table = map[string]map[string]string{}
	var f kvConfigFile
	_, fromBak, err := vfs.ReadWithBackup(vfs.Default, path, func(data []byte) error {
		f = kvConfigFile{}
		return body.Unmarshal(data, &f)
	})
	switch {
	case errors.Is(err, vfs.ErrNotFound):
		return kv, nil
	case err != nil:
		return nil, fmt.Errorf("namesrv: load kv config: %w", err)
	}
	if fromBak {
		lg.Warn("kv config unreadable, loaded its backup", zap.String("path", path))
	}
	for ns, kvs := range f.ConfigTable {
		if kvs != nil {
			kv.mu.table[ns] = kvs
		}
	}
	return kv, nil
}

// Put sets a value and persists the store.
func (kv *KVConfig) Put(namespace, key, value string) error {
	kv.mu.Lock()
	ns := kv.mu.table[namespace]
	if ns == nil {
		ns = map[string]string{}
		kv.mu.table[namespace] = ns
	}
	ns[key] = value
	data, seq, err := kv.changedLocked()
	kv.mu.Unlock()
	if err != nil {
		return err
	}
	kv.lg.Info("kv config put", zap.String("namespace", namespace), zap.String("key", key), zap.String("value", value))
	return kv.persist(data, seq)
}

// Get returns a value.
func (kv *KVConfig) Get(namespace, key string) (string, bool) {
	kv.mu.RLock()
	defer kv.mu.RUnlock()
	v, ok := kv.mu.table[namespace][key]
	return v, ok
}

// Delete removes a value and persists the store; an empty namespace goes too.
func (kv *KVConfig) Delete(namespace, key string) error {
	kv.mu.Lock()
	ns := kv.mu.table[namespace]
	if _, ok := ns[key]; !ok {
		kv.mu.Unlock()
		return nil
	}
	delete(ns, key)
	if len(ns) == 0 {
		delete(kv.mu.table, namespace)
	}
	data, seq, err := kv.changedLocked()
	kv.mu.Unlock()
	if err != nil {
		return err
	}
	kv.lg.Info("kv config deleted", zap.String("namespace", namespace), zap.String("key", key))
	return kv.persist(data, seq)
}

// List returns a copy of a namespace; ok is false when it does not exist.
func (kv *KVConfig) List(namespace string) (map[string]string, bool) {
	kv.mu.RLock()
	defer kv.mu.RUnlock()
	ns, ok := kv.mu.table[namespace]
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(ns))
	for k, v := range ns {
		out[k] = v
	}
	return out, true
}

// changedLocked returns the file content after a change. REQUIRES: kv.mu held for writing.
func (kv *KVConfig) changedLocked() ([]byte, uint64, error) {
	kv.mu.seq++
	data, err := body.MarshalIndent(kvConfigFile{ConfigTable: kv.mu.table})
	if err != nil {
		return nil, 0, fmt.Errorf("namesrv: encode kv config: %w", err)
	}
	return data, kv.mu.seq, nil
}

func (kv *KVConfig) persist(data []byte, seq uint64) error {
	if err := kv.file.Write(data, seq); err != nil {
		return fmt.Errorf("namesrv: persist kv config: %w", err)
	}
	return nil
}
