package store

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store/consumequeue"
	"github.com/rocketgo/rocketgo/internal/vfs"
)

type cq = consumequeue.ConsumeQueue

// queueTable holds the ConsumeQueues by topic and queue id.
type queueTable struct {
	root string
	opts consumequeue.Options
	lg   *zap.Logger
	// rootDir is the consumequeue directory held open for SyncFS, so that a
	// writeback error of any queue file since Open is reported to it.
	rootDir vfs.File
	syncMu  sync.Mutex    // one syncAll at a time
	pending []pendingSync // syncAll's buffer; REQUIRES syncMu
	loaders int           // queues loaded in parallel above parallelLoadMin

	mu sync.RWMutex
	m  map[string]map[int32]*cq
	// sorted is every queue ordered by topic and queue id, nil when it must
	// be rebuilt; REQUIRES mu.
	sorted []*cq
	// dirs are the topic directories found at load, with or without queues.
	dirs map[string]bool
}

// pendingSync is a queue's state captured before a SyncFS.
type pendingSync struct {
	q  *cq
	st consumequeue.FlushState
}

// parallelLoadMin is the topic count from which load opens and recovers
// queues on several goroutines (below it, in order: the golden traces).
const parallelLoadMin = 16

func newQueueTable(root string, opts consumequeue.Options, lg *zap.Logger) *queueTable {
	return &queueTable{root: root, opts: opts, lg: lg, m: make(map[string]map[int32]*cq), dirs: make(map[string]bool),
		loaders: max(16, 2*runtime.GOMAXPROCS(0))}
}

// load opens and recovers every queue under root/<topic>/<queueId>/ and
// corrects its min offset for minPhy; clean says the last run closed cleanly.
// Nothing is created or rewritten: a queue is mapped, its end found, and
// closed again if the Residency cap needs the room.
func (t *queueTable) load(clean bool, minPhy int64) error {
	if err := vfs.MkdirAll(t.opts.FS, t.root); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	dir, err := t.opts.FS.Open(t.root)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", t.root, err)
	}
	t.rootDir = dir
	topics, err := t.topicDirs()
	if err != nil {
		return err
	}
	one := func(topic string) error { return t.loadTopic(topic, clean, minPhy) }
	if len(topics) < parallelLoadMin {
		for _, topic := range topics {
			if err := one(topic); err != nil {
				return err
			}
		}
		return nil
	}
	return inParallel(topics, t.loaders, one)
}

// topicDirs lists the topic directories under root, in order, and records
// them in t.dirs.
func (t *queueTable) topicDirs() ([]string, error) {
	entries, err := t.opts.FS.ReadDir(t.root)
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", t.root, err)
	}
	var topics []string
	for _, e := range entries {
		if e.IsDir() {
			t.dirs[e.Name()] = true
			topics = append(topics, e.Name())
		}
	}
	return topics, nil
}

// loadTopic loads the queues of one topic directory (consumequeue.Load).
func (t *queueTable) loadTopic(topic string, clean bool, minPhy int64) error {
	ids, err := t.opts.FS.ReadDir(filepath.Join(t.root, topic))
	if err != nil {
		return fmt.Errorf("store: read %s: %w", topic, err)
	}
	for _, id := range ids {
		qid, err := strconv.ParseInt(id.Name(), 10, 32)
		if err != nil || !id.IsDir() {
			t.lg.Warn("ignoring unexpected entry in consumequeue directory",
				zap.String("topic", topic), zap.String("name", id.Name()))
			continue
		}
		q, err := consumequeue.Load(t.root, topic, int32(qid), t.opts, clean, minPhy)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		t.add(q)
	}
	return nil
}

// inParallel runs fn for every key on n goroutines and returns the first
// error; after one, the keys left are skipped.
func inParallel[K any](keys []K, n int, fn func(K) error) error {
	var g lifecycle.Group
	jobs := make(chan K)
	var mu sync.Mutex
	var first error
	for range n {
		g.Go(func(<-chan struct{}) {
			for k := range jobs {
				mu.Lock()
				failed := first != nil
				mu.Unlock()
				if failed {
					continue
				}
				if err := fn(k); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, k := range keys {
		jobs <- k
	}
	close(jobs)
	g.Stop()
	return first
}

// open opens a queue that is not in the table (a new one) and adds it.
func (t *queueTable) open(topic string, qid int32) (*cq, error) {
	q, err := consumequeue.Open(t.root, topic, qid, t.opts)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if err := q.Recover(false); err != nil {
		q.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	return t.add(q), nil
}

// add puts q in the table and returns it, or the queue already there (q is
// closed then).
func (t *queueTable) add(q *cq) *cq {
	t.mu.Lock()
	defer t.mu.Unlock()
	topic, qid := q.Topic(), q.QueueID()
	if t.m[topic] == nil {
		t.m[topic] = make(map[int32]*cq)
	}
	if old := t.m[topic][qid]; old != nil {
		q.Close()
		return old
	}
	t.m[topic][qid] = q
	t.sorted = nil
	return q
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
	t.sorted = nil
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

// all returns every queue, ordered by topic and queue id, so that flushes and
// recovery touch the files in the same order every time (the golden traces).
// The slice is shared until the table changes: callers must not modify it.
func (t *queueTable) all() []*cq {
	t.mu.RLock()
	out := t.sorted
	t.mu.RUnlock()
	if out != nil {
		return out
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sorted != nil {
		return t.sorted
	}
	out = []*cq{}
	for _, qs := range t.m {
		for _, q := range qs {
			out = append(out, q)
		}
	}
	slices.SortFunc(out, func(a, b *cq) int {
		return cmp.Or(strings.Compare(a.Topic(), b.Topic()), cmp.Compare(a.QueueID(), b.QueueID()))
	})
	t.sorted = out
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
	t.sorted = nil
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

// closeAll unmaps every queue and closes the directory handle.
func (t *queueTable) closeAll() {
	for _, q := range t.all() {
		q.Close()
	}
	if t.rootDir != nil {
		_ = t.rootDir.Close()
		t.rootDir = nil
	}
}

// syncAll makes every queue durable with one SyncFS of the file system
// holding them: written entries, new files and new directories alike. Each
// queue's state is read before the sync and marked synced after it.
func (t *queueTable) syncAll(qs []*cq) error {
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	ps := t.pending[:0]
	for _, q := range qs {
		if st := q.FlushState(); st.Dirty() {
			ps = append(ps, pendingSync{q, st})
		}
	}
	defer func() { clear(ps); t.pending = ps[:0] }()
	if len(ps) == 0 {
		return nil
	}
	if err := t.rootDir.SyncFS(); err != nil {
		return fmt.Errorf("store: sync consume queues (syncfs of %s): %w", t.root, err)
	}
	for _, p := range ps {
		p.q.MarkSynced(p.st)
	}
	return nil
}
