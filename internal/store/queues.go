package store

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/store/consumequeue"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

type cq = consumequeue.ConsumeQueue

// queueTable holds the ConsumeQueues by topic and queue id.
type queueTable struct {
	root string
	opts consumequeue.Options
	lg   *zap.Logger

	mu sync.RWMutex
	m  map[string]map[int32]*cq
	// dirs are the topic directories found at load, with or without queues.
	dirs map[string]bool
	// clean: the last run closed cleanly, so queue tails past their end are zeros.
	clean bool
}

func newQueueTable(root string, opts consumequeue.Options, lg *zap.Logger) *queueTable {
	return &queueTable{root: root, opts: opts, lg: lg, m: make(map[string]map[int32]*cq), dirs: make(map[string]bool)}
}

// load opens and recovers every queue under root/<topic>/<queueId>/; clean
// says the last run closed cleanly.
func (t *queueTable) load(clean bool) error {
	t.clean = clean
	defer func() { t.clean = false }() // queues created later are new
	if err := vfs.MkdirAll(t.opts.FS, t.root); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	topics, err := t.opts.FS.ReadDir(t.root)
	if err != nil {
		return fmt.Errorf("store: read %s: %w", t.root, err)
	}
	for _, td := range topics {
		if !td.IsDir() {
			continue
		}
		t.dirs[td.Name()] = true
		ids, err := t.opts.FS.ReadDir(filepath.Join(t.root, td.Name()))
		if err != nil {
			return fmt.Errorf("store: read %s: %w", td.Name(), err)
		}
		for _, id := range ids {
			qid, err := strconv.ParseInt(id.Name(), 10, 32)
			if err != nil || !id.IsDir() {
				t.lg.Warn("ignoring unexpected entry in consumequeue directory",
					zap.String("topic", td.Name()), zap.String("name", id.Name()))
				continue
			}
			if _, err := t.open(td.Name(), int32(qid)); err != nil {
				return err
			}
		}
	}
	return nil
}

// open opens and recovers one queue and adds it to the table.
func (t *queueTable) open(topic string, qid int32) (*cq, error) {
	q, err := consumequeue.Open(t.root, topic, qid, t.opts)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := q.Recover(t.clean); err != nil {
		q.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[topic] == nil {
		t.m[topic] = make(map[int32]*cq)
	}
	if old := t.m[topic][qid]; old != nil {
		q.Close()
		return old, nil
	}
	t.m[topic][qid] = q
	return q, nil
}

// get returns a queue, nil if it does not exist.
func (t *queueTable) get(topic string, qid int32) *cq {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[topic][qid]
}

// getBytes is get for a topic held as bytes (no allocation).
func (t *queueTable) getBytes(topic []byte, qid int32) *cq {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.m[string(topic)][qid]
}

// topics returns the topics that have queues or had a directory at load.
func (t *queueTable) topics() map[string]bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make(map[string]bool, len(t.m))
	for topic, qs := range t.m {
		if len(qs) > 0 {
			out[topic] = true
		}
	}
	for topic := range t.dirs {
		out[topic] = true
	}
	return out
}

// remove destroys one queue's files and forgets it.
func (t *queueTable) remove(topic string, qid int32) error {
	t.mu.Lock()
	q := t.m[topic][qid]
	delete(t.m[topic], qid)
	t.mu.Unlock()
	if q == nil {
		return nil
	}
	return q.Destroy()
}

// put writes a ConsumeQueue entry, creating the queue if needed. The table's
// read lock is held during the write so DeleteTopic cannot destroy the queue
// under it.
func (t *queueTable) put(topic string, qid int32, qoff int64, e consumequeue.Entry) error {
	for {
		t.mu.RLock()
		q := t.m[topic][qid]
		if q != nil {
			err := q.Put(qoff, e)
			t.mu.RUnlock()
			return err
		}
		t.mu.RUnlock()
		if _, err := t.open(topic, qid); err != nil {
			return err
		}
	}
}

// all returns every queue.
// all returns every queue, ordered by topic and queue id, so that flushes and
// recovery touch the files in the same order every time (the golden traces).
func (t *queueTable) all() []*cq {
	t.mu.RLock()
	var out []*cq
	for _, qs := range t.m {
		for _, q := range qs {
			out = append(out, q)
		}
	}
	t.mu.RUnlock()
	slices.SortFunc(out, func(a, b *cq) int {
		return cmp.Or(strings.Compare(a.Topic(), b.Topic()), cmp.Compare(a.QueueID(), b.QueueID()))
	})
	return out
}

// count is the number of queues.
func (t *queueTable) count() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	n := 0
	for _, qs := range t.m {
		n += len(qs)
	}
	return n
}

// removeTopic destroys a topic's queues and directory.
func (t *queueTable) removeTopic(topic string) (int, error) {
	t.mu.Lock()
	qs := t.m[topic]
	delete(t.m, topic)
	t.mu.Unlock()
	var errs []error
	for _, q := range qs {
		errs = append(errs, q.Destroy())
	}
	if err := t.opts.FS.RemoveAll(filepath.Join(t.root, topic)); err != nil {
		errs = append(errs, err)
	}
	return len(qs), errors.Join(errs...)
}

// closeAll unmaps every queue.
func (t *queueTable) closeAll() {
	for _, q := range t.all() {
		q.Close()
	}
}
