package slave

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// Invoker sends one request to an address; *remoting.Client satisfies it.
type Invoker interface {
	Invoke(ctx context.Context, addr string, req *protocol.Command) (*protocol.Command, error)
}

// Topics is the slave's topic table; *topic.Manager satisfies it.
type Topics interface {
	Wrapper() body.TopicConfigSerializeWrapper
	DataVersion() body.DataVersion
	Put(tc body.TopicConfig) error
	Delete(topic string) (bool, error)
}

// Groups is the slave's subscription group table; *subscription.Manager satisfies it.
type Groups interface {
	Wrapper() body.SubscriptionGroupWrapper
	DataVersion() body.DataVersion
	Put(cfg body.SubscriptionGroupConfig) error
	Delete(group string) (bool, error)
}

// Offsets is the slave's consumer offset table; *offset.Manager satisfies it.
type Offsets interface {
	Wrapper() body.ConsumerOffsetSerializeWrapper
	ReplaceAll(table map[string]map[int32]int64)
}

// DelayOffsets is the slave's delay-level offset table; *schedule.Service satisfies it.
type DelayOffsets interface {
	ReplaceOffsets(offsets map[int]int64)
}

// Timers is the slave's timer service; *timing.Service satisfies it.
type Timers interface {
	SetMasterProgress(checkpoint []byte) error
	SetMasterMetrics(m body.TimerMetrics)
}

// Deps are the tables a Syncer fills; Delay and Timers may be nil.
type Deps struct {
	Topics  Topics
	Groups  Groups
	Offsets Offsets
	Delay   DelayOffsets
	Timers  Timers
}

// Options configure a Syncer. Zero values take Java 4.9's.
type Options struct {
	// Interval between two passes (10 s) and InitialDelay before the first (3 s).
	Interval     time.Duration
	InitialDelay time.Duration
	// Timeout of one request to the master (3 s).
	Timeout time.Duration
	// DelayOffsetPath is where the master's delayOffset.json is written (the schedule service's
	// file, which a slave does not run: it is read when the broker starts as a master).
	DelayOffsetPath string
}

// Syncer copies a master's metadata to its slave (Java SlaveSynchronize): topics, consumer
// offsets, delay offsets and subscription groups, every Interval, from the master address the
// nameserver last named.
type Syncer struct {
	opts Options
	inv  Invoker
	deps Deps
	lg   *zap.Logger

	master atomic.Pointer[string]

	mu            sync.Mutex // one pass at a time
	topicsFrom    applied
	groupsFrom    applied
	lastDelayBody []byte

	ctx       context.Context // cancelled by Close: ends a pass's requests
	cancel    context.CancelFunc
	loop      lifecycle.Group // the pass loop; it ends when ctx is cancelled
	startOnce sync.Once
}

// applied remembers the master version a table was last replaced with and the slave's own
// version right after: the table is replaced again when either moved (Java compares the slave's
// version, which it took over from the master).
type applied struct {
	ok     bool
	master body.DataVersion
	local  body.DataVersion
}

func (a applied) current(master, local body.DataVersion) bool {
	return a.ok && a.master.Equal(master) && a.local.Equal(local)
}

// New returns a Syncer; nothing runs until Start.
func New(opts Options, inv Invoker, deps Deps, lg *zap.Logger) *Syncer {
	if opts.Interval <= 0 {
		opts.Interval = 10 * time.Second
	}
	if opts.InitialDelay <= 0 {
		opts.InitialDelay = 3 * time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 3 * time.Second
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Syncer{opts: opts, inv: inv, deps: deps, lg: lg}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	empty := ""
	s.master.Store(&empty)
	return s
}

// SetMasterAddr sets the master's remoting address (the masterAddr of the nameserver's answer to
// REGISTER_BROKER); "" (no master registered) pauses the sync.
func (s *Syncer) SetMasterAddr(addr string) {
	if old := s.MasterAddr(); old != addr {
		s.master.Store(&addr)
		s.lg.Info("master address for metadata sync", zap.String("master", addr), zap.String("was", old))
	}
}

// MasterAddr is the address synced from, "" while none is known.
func (s *Syncer) MasterAddr() string { return *s.master.Load() }

// Start runs a pass after InitialDelay and then every Interval.
func (s *Syncer) Start() {
	s.startOnce.Do(func() { s.loop.Go(func(<-chan struct{}) { s.run() }) })
}

// Close stops the passes and waits for the one running. It is idempotent.
func (s *Syncer) Close() {
	s.cancel()
	s.loop.Stop()
}

func (s *Syncer) run() {
	t := time.NewTimer(s.opts.InitialDelay)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
		}
		err := s.SyncAll(s.ctx)
		switch {
		case s.ctx.Err() != nil:
			return
		case err == nil:
			lastErr = ""
		case err.Error() != lastErr:
			lastErr = err.Error()
			s.lg.Warn("metadata sync from the master failed", zap.String("master", s.MasterAddr()), zap.Error(err))
		}
		t.Reset(s.opts.Interval)
	}
}

// errNoMaster is returned by SyncAll while no master address is known.
var errNoMaster = errors.New("slave: no master address known yet")

// SyncAll runs one pass: topic configs (GET_ALL_TOPIC_CONFIG), consumer offsets
// (GET_ALL_CONSUMER_OFFSET), delay offsets (GET_ALL_DELAY_OFFSET) and subscription groups
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG), in Java's order, then the timer's progress
// (GET_TIMER_CHECK_POINT) and pending counts (GET_TIMER_METRICS), as RocketMQ 5 does. A failed
// step does not stop the others.
func (s *Syncer) SyncAll(ctx context.Context) error {
	addr := s.MasterAddr()
	if addr == "" {
		return errNoMaster
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(
		s.syncTopics(ctx, addr),
		s.syncOffsets(ctx, addr),
		s.syncDelayOffsets(ctx, addr),
		s.syncGroups(ctx, addr),
		s.syncTimers(ctx, addr),
	)
}

// syncTimers hands the master's timer checkpoint and pending counts to the slave's timer service.
func (s *Syncer) syncTimers(ctx context.Context, addr string) error {
	if s.deps.Timers == nil {
		return nil
	}
	data, err := s.fetch(ctx, addr, protocol.GetTimerCheckPoint)
	if err != nil {
		return err
	}
	if err := s.deps.Timers.SetMasterProgress(data); err != nil {
		return fmt.Errorf("slave: timer checkpoint from %s: %w", addr, err)
	}
	if data, err = s.fetch(ctx, addr, protocol.GetTimerMetrics); err != nil {
		return err
	}
	var m body.TimerMetrics
	if err := body.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("slave: timer metrics from %s: %w", addr, err)
	}
	s.deps.Timers.SetMasterMetrics(m)
	return nil
}

// fetch asks the master for one table.
func (s *Syncer) fetch(ctx context.Context, addr string, code protocol.RequestCode) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	resp, err := s.inv.Invoke(ctx, addr, protocol.NewRequest(code, nil, nil))
	if err != nil {
		return nil, fmt.Errorf("slave: %s from %s: %w", code, addr, err)
	}
	if resp.ResponseCode() != protocol.Success {
		return nil, fmt.Errorf("slave: %s from %s answered %d: %s", code, addr, resp.Code, resp.Remark)
	}
	return resp.Body, nil
}

// syncTopics replaces the topic table with the master's when the master's version or the slave's
// own changed since the last time.
func (s *Syncer) syncTopics(ctx context.Context, addr string) error {
	data, err := s.fetch(ctx, addr, protocol.GetAllTopicConfig)
	if err != nil {
		return err
	}
	w, err := body.DecodeTopicConfigSerializeWrapper(data)
	if err != nil {
		return fmt.Errorf("slave: topics from %s: %w", addr, err)
	}
	if s.topicsFrom.current(w.DataVersion, s.deps.Topics.DataVersion()) {
		return nil
	}
	local := s.deps.Topics.Wrapper().TopicConfigTable
	var errs []error
	changed := 0
	for name, tc := range w.TopicConfigTable {
		if cur, ok := local[name]; ok && reflect.DeepEqual(cur, tc) {
			continue
		}
		tc.TopicName = name
		if err := s.deps.Topics.Put(tc); err != nil {
			errs = append(errs, fmt.Errorf("slave: topic %q: %w", name, err))
			continue
		}
		changed++
	}
	for name := range local {
		if _, ok := w.TopicConfigTable[name]; !ok {
			if _, err := s.deps.Topics.Delete(name); err != nil {
				errs = append(errs, fmt.Errorf("slave: delete topic %q: %w", name, err))
				continue
			}
			changed++
		}
	}
	if len(errs) == 0 {
		s.topicsFrom = applied{ok: true, master: w.DataVersion, local: s.deps.Topics.DataVersion()}
	}
	if changed > 0 {
		s.lg.Info("topic configs synced from the master", zap.String("master", addr), zap.Int("changed", changed),
			zap.Int("topics", len(w.TopicConfigTable)))
	}
	return errors.Join(errs...)
}

// syncGroups replaces the subscription group table as syncTopics does the topics.
func (s *Syncer) syncGroups(ctx context.Context, addr string) error {
	data, err := s.fetch(ctx, addr, protocol.GetAllSubscriptionGroupConfig)
	if err != nil {
		return err
	}
	w, err := body.DecodeSubscriptionGroupWrapper(data)
	if err != nil {
		return fmt.Errorf("slave: subscription groups from %s: %w", addr, err)
	}
	if s.groupsFrom.current(w.DataVersion, s.deps.Groups.DataVersion()) {
		return nil
	}
	local := s.deps.Groups.Wrapper().SubscriptionGroupTable
	var errs []error
	changed := 0
	for name, gc := range w.SubscriptionGroupTable {
		if cur, ok := local[name]; ok && reflect.DeepEqual(cur, gc) {
			continue
		}
		gc.GroupName = name
		if err := s.deps.Groups.Put(gc); err != nil {
			errs = append(errs, fmt.Errorf("slave: subscription group %q: %w", name, err))
			continue
		}
		changed++
	}
	for name := range local {
		if _, ok := w.SubscriptionGroupTable[name]; !ok {
			if _, err := s.deps.Groups.Delete(name); err != nil {
				errs = append(errs, fmt.Errorf("slave: delete subscription group %q: %w", name, err))
				continue
			}
			changed++
		}
	}
	if len(errs) == 0 {
		s.groupsFrom = applied{ok: true, master: w.DataVersion, local: s.deps.Groups.DataVersion()}
	}
	if changed > 0 {
		s.lg.Info("subscription groups synced from the master", zap.String("master", addr), zap.Int("changed", changed))
	}
	return errors.Join(errs...)
}

// syncOffsets merges the master's consumer offsets into the slave's table (Java putAll: the
// master's entries win, entries only the slave has stay).
func (s *Syncer) syncOffsets(ctx context.Context, addr string) error {
	data, err := s.fetch(ctx, addr, protocol.GetAllConsumerOffset)
	if err != nil {
		return err
	}
	w, err := body.DecodeConsumerOffsetSerializeWrapper(data)
	if err != nil {
		return fmt.Errorf("slave: consumer offsets from %s: %w", addr, err)
	}
	table := s.deps.Offsets.Wrapper().OffsetTable
	if table == nil {
		table = make(map[string]map[int32]int64, len(w.OffsetTable))
	}
	same := true
	for key, queues := range w.OffsetTable {
		if !reflect.DeepEqual(table[key], queues) {
			same = false
		}
		table[key] = queues
	}
	if !same {
		s.deps.Offsets.ReplaceAll(table)
	}
	return nil
}

// delayOffsets is delayOffset.json, decoded only to check what the master sent.
type delayOffsets struct {
	OffsetTable map[int]int64 `json:"offsetTable"`
}

// syncDelayOffsets writes the master's delayOffset.json when it changed (Java writes the file;
// the schedule service reads it when the broker starts as a master).
func (s *Syncer) syncDelayOffsets(ctx context.Context, addr string) error {
	if s.opts.DelayOffsetPath == "" {
		return nil
	}
	data, err := s.fetch(ctx, addr, protocol.GetAllDelayOffset)
	if err != nil {
		return err
	}
	if bytes.Equal(data, s.lastDelayBody) {
		return nil
	}
	var d delayOffsets
	if err := body.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("slave: delay offsets from %s: %w", addr, err)
	}
	if cur, err := os.ReadFile(s.opts.DelayOffsetPath); err != nil || !bytes.Equal(cur, data) {
		if err := vfs.WriteWithBackup(vfs.Default, s.opts.DelayOffsetPath, data); err != nil {
			return fmt.Errorf("slave: delay offsets: %w", err)
		}
	}
	if s.deps.Delay != nil {
		s.deps.Delay.ReplaceOffsets(d.OffsetTable)
	}
	s.lastDelayBody = bytes.Clone(data)
	return nil
}
