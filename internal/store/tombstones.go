package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/rocketgo/rocketgo/internal/vfs"
)

// tombstones remember deleted topics: DeleteTopic removes a topic's
// ConsumeQueues, but its records stay in the CommitLog until they expire, and
// re-dispatch after a crash (or a rebuild of lost ConsumeQueues) would bring
// them back. A tombstone holds the CommitLog end at the deletion; records of
// the topic below it are never dispatched again. It is dropped once the
// CommitLog's min offset passes it. The file, deletedTopics.json in the store
// root, maps topic to offset and is replaced atomically.
type tombstones struct {
	fs   vfs.FS
	path string
	m    atomic.Pointer[map[string]int64] // copy on write
	mu   sync.Mutex                       // writers
}

func loadTombstones(fsys vfs.FS, path string) (*tombstones, error) {
	t := &tombstones{fs: fsys, path: path}
	m := map[string]int64{}
	b, err := vfs.ReadFile(fsys, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("store: read %s: %w", path, err)
	default:
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("store: %s is not a JSON object of topic offsets: %w", path, err)
		}
	}
	t.m.Store(&m)
	return t, nil
}

// hides reports whether the record of topic at off belongs to a deleted topic.
func (t *tombstones) hides(topic string, off int64) bool {
	m := *t.m.Load()
	if len(m) == 0 {
		return false
	}
	end, ok := m[topic]
	return ok && off < end
}

// hidesBytes is hides for a topic held as bytes (no allocation).
func (t *tombstones) hidesBytes(topic []byte, off int64) bool {
	m := *t.m.Load()
	if len(m) == 0 {
		return false
	}
	end, ok := m[string(topic)]
	return ok && off < end
}

// add records that topic was deleted when the CommitLog ended at end.
func (t *tombstones) add(topic string, end int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := maps.Clone(*t.m.Load())
	m[topic] = max(m[topic], end)
	return t.save(m)
}

// expire drops the tombstones the CommitLog's min offset has passed.
func (t *tombstones) expire(minOffset int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := maps.Clone(*t.m.Load())
	maps.DeleteFunc(m, func(_ string, end int64) bool { return end <= minOffset })
	if len(m) == len(*t.m.Load()) {
		return nil
	}
	return t.save(m)
}

// save writes m (vfs.WriteFile: temp file, fsync, rename, directory fsync)
// and publishes it. REQUIRES: t.mu.
func (t *tombstones) save(m map[string]int64) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("store: encode deleted topics: %w", err)
	}
	if err := vfs.WriteFile(t.fs, t.path, b); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	t.m.Store(&m)
	return nil
}
