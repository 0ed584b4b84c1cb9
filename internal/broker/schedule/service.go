package schedule

import (
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/configfile"
	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Store is what the service needs of the message store.
type Store interface {
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter store.MessageFilter) *store.GetResult
	PutMessage(m *store.Message) store.PutResult
	MaxOffsetInQueue(topic string, queueID int32) int64
	MessageStoreTime(topic string, queueID int32, offset int64) int64
}

// Options configure a Service.
type Options struct {
	// StorePathRootDir holds config/delayOffset.json.
	StorePathRootDir string
	// Levels are messageDelayLevel: level n delays by Levels[n-1].
	Levels []time.Duration
	// Interval between scans of the level queues; Java re-checks every 100 ms. Default 100 ms.
	Interval time.Duration
	// FlushInterval between writes of delayOffset.json (flushDelayOffsetInterval). Default 10 s.
	FlushInterval time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Metrics, if set, counts the delayed messages delivered.
	Metrics Metrics
}

// Metrics counts delayed messages moved to their real topic.
type Metrics interface {
	DelayDelivered(topic string, bytes int)
}

// offsetFile is delayOffset.json: level → next queue offset to deliver.
type offsetFile struct {
	OffsetTable map[int]int64 `json:"offsetTable"`
}

// ConfigPath returns the path of delayOffset.json under a store root.
func ConfigPath(root string) string { return filepath.Join(root, "config", "delayOffset.json") }

// Service owns one goroutine that delivers due messages.
type Service struct {
	opts Options
	st   Store
	lg   *zap.Logger
	file *configfile.Persister
	loop lifecycle.Group // the delivery loop
	once sync.Once

	mu      sync.Mutex
	offsets map[int]int64
	seq     uint64
}

// New loads delayOffset.json; nothing runs until Start.
func New(opts Options, st Store, lg *zap.Logger) (*Service, error) {
	if lg == nil {
		lg = zap.NewNop()
	}
	if opts.Interval <= 0 {
		opts.Interval = 100 * time.Millisecond
	}
	if opts.FlushInterval <= 0 {
		opts.FlushInterval = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Service{opts: opts, st: st, lg: lg, file: configfile.NewPersister(ConfigPath(opts.StorePathRootDir)),
		offsets: map[int]int64{}}
	var f offsetFile
	if _, err := s.file.Load(func(b []byte) error { return body.Unmarshal(b, &f) }, lg); err != nil {
		return nil, fmt.Errorf("schedule: load %s: %w", s.file.Path(), err)
	}
	for level, off := range f.OffsetTable {
		s.offsets[level] = off
	}
	return s, nil
}

// MaxLevel is the highest delay level.
func (s *Service) MaxLevel() int { return len(s.opts.Levels) }

// Start runs the delivery loop.
func (s *Service) Start() { s.loop.Go(s.run) }

func (s *Service) run(stop <-chan struct{}) {
	tick := time.NewTicker(s.opts.Interval)
	defer tick.Stop()
	flush := time.NewTicker(s.opts.FlushInterval)
	defer flush.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			for level := 1; level <= len(s.opts.Levels); level++ {
				s.deliverDue(level)
			}
		case <-flush.C:
			if err := s.Persist(); err != nil {
				s.lg.Warn("persist delay offsets failed", zap.Error(err))
			}
		}
	}
}

// deliverDue moves every due message of one level to its real topic, in queue order, stopping at
// the first one not yet due or not stored.
func (s *Service) deliverDue(level int) {
	queue := int32(level - 1)
	delay := s.opts.Levels[level-1].Milliseconds()
	off := s.offset(level)
	for s.due(queue, off, delay) {
		r := s.st.GetMessage(systopic.ScheduleGroup, systopic.Schedule, queue, off, 32, nil)
		if r == nil {
			return
		}
		switch r.Status {
		case store.Found:
		case store.OffsetTooSmall, store.OffsetOverflowBadly:
			off = r.NextBeginOffset
			r.Release()
			s.setOffset(level, off)
			continue
		default:
			r.Release()
			return
		}
		now := s.opts.Now().UnixMilli()
		done := false
		for i, rec := range r.Records {
			v, err := message.Parse(rec)
			if err == nil && v.StoreTimestamp()+delay > now {
				done = true
				break
			}
			if err == nil && !s.deliver(v) {
				done = true
				break
			}
			if err != nil {
				s.lg.Error("skipping unreadable delayed message", zap.Int("level", level), zap.Error(err))
			}
			off = r.QueueOffsets[i] + 1
		}
		r.Release()
		s.setOffset(level, off)
		if done {
			return
		}
	}
}

// due reports whether the level queue may hold a message due at off: not when off is its end (or
// the queue is empty) or the message there is not due yet; an offset past the end is left to the
// read to correct. The scan asks this before reading, so that an idle or waiting level costs no
// store read: Java's scheduler makes none either, and they would show as clients' get-miss and
// get-found traffic in GET_BROKER_RUNTIME_INFO.
func (s *Service) due(queue int32, off, delay int64) bool {
	if end := s.st.MaxOffsetInQueue(systopic.Schedule, queue); off == end || end == 0 {
		return false
	}
	stored := s.st.MessageStoreTime(systopic.Schedule, queue, off)
	return stored <= 0 || stored+delay <= s.opts.Now().UnixMilli()
}

// deliver stores a due message in its real topic and queue; false when the store refused it (it
// is tried again on the next scan).
func (s *Service) deliver(v message.View) bool {
	props := message.ParseProperties(v.Properties())
	topic := props[message.PropertyRealTopic]
	qid, err := strconv.Atoi(props[message.PropertyRealQueueID])
	if topic == "" || err != nil {
		s.lg.Error("delayed message without a real topic or queue; dropped", zap.Int64("offset", v.PhysicalOffset()))
		return true
	}
	delete(props, message.PropertyDelayTimeLevel)
	props[message.PropertyWaitStoreMsgOK] = "false"
	m := store.Message{
		Topic:          topic,
		QueueID:        int32(qid),
		Flag:           v.Flag(),
		SysFlag:        v.SysFlag(),
		BornTimestamp:  v.BornTimestamp(),
		BornHost:       v.BornHost(),
		ReconsumeTimes: v.ReconsumeTimes(),
		Body:           v.Body(),
		Properties:     message.EncodeProperties(props),
	}
	res := s.st.PutMessage(&m)
	if !res.Status.Stored() {
		s.lg.Warn("delivering a delayed message failed; will retry", zap.String("topic", topic),
			zap.Stringer("status", res.Status), zap.String("remark", res.Remark))
		return false
	}
	if s.opts.Metrics != nil {
		s.opts.Metrics.DelayDelivered(topic, int(res.WroteBytes))
	}
	return true
}

func (s *Service) offset(level int) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offsets[level]
}

func (s *Service) setOffset(level int, off int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.offsets[level] != off {
		s.offsets[level] = off
		s.seq++
	}
}

// Offsets returns a copy of level → next offset (GET_ALL_DELAY_OFFSET).
func (s *Service) Offsets() map[int]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[int]int64, len(s.offsets))
	for k, v := range s.offsets {
		out[k] = v
	}
	return out
}

// ReplaceOffsets takes over another broker's offsets (a slave copying its master's, so that it
// answers GET_ALL_DELAY_OFFSET and resumes delivery from them if it is ever started as master).
func (s *Service) ReplaceOffsets(offsets map[int]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offsets = make(map[int]int64, len(offsets))
	for level, off := range offsets {
		s.offsets[level] = off
	}
	s.seq++
}

// Encode is delayOffset.json's content.
func (s *Service) Encode() ([]byte, error) {
	return body.MarshalIndent(offsetFile{OffsetTable: s.Offsets()})
}

// Persist writes delayOffset.json if it changed.
func (s *Service) Persist() error {
	s.mu.Lock()
	seq := s.seq
	s.mu.Unlock()
	data, err := s.Encode()
	if err != nil {
		return err
	}
	return s.file.Write(data, seq)
}

// Close stops delivery and persists the offsets.
func (s *Service) Close() error {
	var err error
	s.once.Do(func() {
		s.loop.Stop()
		err = s.Persist()
	})
	return err
}
