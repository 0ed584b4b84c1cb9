package namesrv

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// NamespaceOrderTopicConfig is the KV namespace holding ordered topics' "broker:queues;..." confs.
const NamespaceOrderTopicConfig = "ORDER_TOPIC_CONFIG"

// Defaults of KVOptions.
const (
	DefaultKVMaxValueBytes = 16 << 10
	DefaultKVMaxTotalBytes = 16 << 20
)

// KVOptions configure a KVConfig. Zero values take the defaults noted.
type KVOptions struct {
	// Path is kvConfig.json.
	Path string
	// MaxValueBytes bounds one value (kvConfigMaxValueBytes, 16 KiB).
	MaxValueBytes int
	// MaxTotalBytes bounds the store: the namespaces, keys and values together
	// (kvConfigMaxTotalBytes, 16 MiB). A file loaded larger is kept; only puts are refused.
	MaxTotalBytes int
	// FS is where the file lives; nil is vfs.Default.
	FS vfs.FS
}

// kvConfigFile is kvConfig.json: {"configTable":{namespace:{key:value}}}.
type kvConfigFile struct {
	ConfigTable map[string]map[string]string `json:"configTable"`
}

// KVConfig is the name server's namespaced key/value store (Java KVConfigManager), persisted to
// kvConfig.json.
//
// Durability: Put and Delete return once the file holds their change (written and synced through
// vfs), so a change the name server answered SUCCESS survives kill -9. Writes are coalesced:
// whoever writes takes a snapshot of the whole table when it starts, and every change made before
// that is durable when it ends, so n concurrent changes cost about two writes of the file, not n.
// A client that waits for each answer before its next change still costs a write per change.
type KVConfig struct {
	lg   *zap.Logger
	opts KVOptions
	file *vfs.Persister

	mu struct {
		sync.RWMutex
		table map[string]map[string]string
		seq   uint64 // changes made
		bytes int    // namespaces, keys and values
	}
	// commit is held while the file is written; durable is the last change it holds.
	commit struct {
		sync.Mutex
		durable uint64
	}
	writes atomic.Uint64 // files written
}

// kvLimitError is a put beyond KVOptions' bounds.
type kvLimitError struct{ reason string }

func (e kvLimitError) Error() string { return "kv config put refused: " + e.reason }

// NewKVConfig loads the store from o.Path (or its backup); a missing file is an empty store.
func NewKVConfig(o KVOptions, lg *zap.Logger) (*KVConfig, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.MaxValueBytes <= 0 {
		o.MaxValueBytes = DefaultKVMaxValueBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultKVMaxTotalBytes
	}
	kv := &KVConfig{lg: lg, opts: o, file: vfs.NewPersister(o.FS, o.Path)}
	kv.mu.table = map[string]map[string]string{}
	var f kvConfigFile
	_, fromBak, err := vfs.ReadWithBackup(o.FS, o.Path, func(data []byte) error {
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
		lg.Warn("kv config unreadable, loaded its backup", zap.String("path", o.Path))
	}
	for ns, kvs := range f.ConfigTable {
		if kvs != nil {
			kv.mu.table[ns] = kvs
			kv.mu.bytes += tableBytes(ns, kvs)
		}
	}
	return kv, nil
}

func tableBytes(ns string, kvs map[string]string) int {
	n := 0
	for k, v := range kvs {
		n += len(ns) + len(k) + len(v)
	}
	return n
}

// Put sets a value and returns once the file holds it. A value longer than MaxValueBytes, or one
// that would take the store past MaxTotalBytes, is refused.
func (kv *KVConfig) Put(namespace, key, value string) error {
	if len(value) > kv.opts.MaxValueBytes {
		return kvLimitError{fmt.Sprintf("value of %d bytes, limit %d (kvConfigMaxValueBytes)", len(value), kv.opts.MaxValueBytes)}
	}
	kv.mu.Lock()
	ns := kv.mu.table[namespace]
	old, had := ns[key]
	grown := len(value) - len(old)
	if !had {
		grown += len(namespace) + len(key)
	}
	if grown > 0 && kv.mu.bytes+grown > kv.opts.MaxTotalBytes {
		kv.mu.Unlock()
		return kvLimitError{fmt.Sprintf("the store would hold %d bytes, limit %d (kvConfigMaxTotalBytes)",
			kv.mu.bytes+grown, kv.opts.MaxTotalBytes)}
	}
	if ns == nil {
		ns = map[string]string{}
		kv.mu.table[namespace] = ns
	}
	ns[key] = value
	kv.mu.bytes += grown
	kv.mu.seq++
	seq := kv.mu.seq
	kv.mu.Unlock()
	kv.lg.Info("kv config put", zap.String("namespace", namespace), zap.String("key", key),
		zap.Int("valueBytes", len(value)), zap.String("valuePrefix", valuePreview(value)))
	return kv.persistThrough(seq)
}

// Get returns a value.
func (kv *KVConfig) Get(namespace, key string) (string, bool) {
	kv.mu.RLock()
	defer kv.mu.RUnlock()
	v, ok := kv.mu.table[namespace][key]
	return v, ok
}

// Delete removes a value and returns once the file no longer holds it; an empty namespace goes
// too.
func (kv *KVConfig) Delete(namespace, key string) error {
	kv.mu.Lock()
	ns := kv.mu.table[namespace]
	v, ok := ns[key]
	if !ok {
		kv.mu.Unlock()
		return nil
	}
	delete(ns, key)
	if len(ns) == 0 {
		delete(kv.mu.table, namespace)
	}
	kv.mu.bytes -= len(namespace) + len(key) + len(v)
	kv.mu.seq++
	seq := kv.mu.seq
	kv.mu.Unlock()
	kv.lg.Info("kv config deleted", zap.String("namespace", namespace), zap.String("key", key))
	return kv.persistThrough(seq)
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

// Writes returns how many times the file has been written.
func (kv *KVConfig) Writes() uint64 { return kv.writes.Load() }

// persistThrough returns once the file holds change seq: at once if a write that began after it
// has ended, else after writing a snapshot of the table as it is now, which holds every change
// made so far.
func (kv *KVConfig) persistThrough(seq uint64) error {
	kv.commit.Lock()
	defer kv.commit.Unlock()
	if kv.commit.durable >= seq {
		return nil
	}
	data, snap, err := kv.snapshot()
	if err != nil {
		return err
	}
	if err := kv.file.Write(data, snap); err != nil {
		return fmt.Errorf("namesrv: persist kv config: %w", err)
	}
	kv.writes.Add(1)
	kv.commit.durable = snap
	return nil
}

// snapshot returns the file content of the table and the change it holds.
func (kv *KVConfig) snapshot() ([]byte, uint64, error) {
	kv.mu.RLock()
	defer kv.mu.RUnlock()
	data, err := body.MarshalIndent(kvConfigFile{ConfigTable: kv.mu.table})
	if err != nil {
		return nil, 0, fmt.Errorf("namesrv: encode kv config: %w", err)
	}
	return data, kv.mu.seq, nil
}
