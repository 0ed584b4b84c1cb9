package longpoll

import (
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Request is one held pull.
type Request struct {
	Topic   string
	QueueID int32
	// Offset is the queue offset the pull asked for; the queue must grow past it to wake the pull.
	Offset int64
	// Deadline is when the pull is answered even without new messages.
	Deadline time.Time
	// Match reports whether a newly dispatched message (its tags code and properties) is one the
	// pull wants; nil takes every message.
	Match func(tagsCode int64, props []byte) bool
	// Wake re-runs the pull and answers it. It is called exactly once, on a goroutine of its own;
	// timedOut says the deadline passed (or the service closed) rather than a message arrived.
	Wake func(timedOut bool)

	done  atomic.Bool
	timer *time.Timer
}

// Options configure a Service.
type Options struct {
	// CheckInterval is how often held pulls are compared with their queues' max offsets: 5 s with
	// longPollingEnable, shortPollingTimeMills (1 s) without. Default 5 s.
	CheckInterval time.Duration
	// MaxOffset returns a queue's max offset (its entry count).
	MaxOffset func(topic string, queueID int32) int64
}

type queueKey struct {
	topic   string
	queueID int32
}

// Service holds pulls per queue. Start and Close own its goroutine.
type Service struct {
	opts Options
	lg   *zap.Logger

	mu     sync.RWMutex
	closed bool
	held   map[queueKey][]*Request

	wg    sync.WaitGroup
	stopc chan struct{}
}

// New returns a Service; it starts no goroutine until Start.
func New(opts Options, lg *zap.Logger) *Service {
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = 5 * time.Second
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Service{opts: opts, lg: lg, held: make(map[queueKey][]*Request), stopc: make(chan struct{})}
}

// Start runs the periodic check.
func (s *Service) Start() {
	s.wg.Add(1)
	go s.run()
}

func (s *Service) run() {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopc:
			return
		case <-t.C:
			s.checkAll()
		}
	}
}

// Hold parks r until a message arrives or its deadline passes. If the queue already grew past
// r.Offset (a message raced the caller's empty read), r is woken at once.
func (s *Service) Hold(r *Request) {
	key := queueKey{r.Topic, r.QueueID}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wake(r, true)
		return
	}
	s.held[key] = append(s.held[key], r)
	s.wg.Add(1) // released when r is woken
	r.timer = time.AfterFunc(time.Until(r.Deadline), func() { s.expire(key, r) })
	s.mu.Unlock()
	if s.opts.MaxOffset != nil && s.opts.MaxOffset(r.Topic, r.QueueID) > r.Offset && s.take(key, r) {
		s.fire(r, false)
	}
}

// Notify is called for every dispatched message; it wakes the queue's held pulls that want it.
// It costs one read-locked map lookup when nothing is held.
func (s *Service) Notify(topic string, queueID int32, queueOffset int64, tagsCode int64, props []byte) {
	key := queueKey{topic, queueID}
	s.mu.RLock()
	n := len(s.held[key])
	s.mu.RUnlock()
	if n == 0 {
		return
	}
	for _, r := range s.takeMatching(key, func(r *Request) bool {
		return queueOffset >= r.Offset && (r.Match == nil || r.Match(tagsCode, props))
	}) {
		s.fire(r, false)
	}
}

func (s *Service) checkAll() {
	if s.opts.MaxOffset == nil {
		return
	}
	s.mu.RLock()
	keys := make([]queueKey, 0, len(s.held))
	for k := range s.held {
		keys = append(keys, k)
	}
	s.mu.RUnlock()
	for _, key := range keys {
		max := s.opts.MaxOffset(key.topic, key.queueID)
		for _, r := range s.takeMatching(key, func(r *Request) bool { return max > r.Offset }) {
			s.fire(r, false)
		}
	}
}

func (s *Service) expire(key queueKey, r *Request) {
	if s.take(key, r) {
		s.fire(r, true)
	}
}

// takeMatching removes and returns the held requests of key that pred accepts.
func (s *Service) takeMatching(key queueKey, pred func(*Request) bool) []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.held[key]
	var taken []*Request
	kept := list[:0]
	for _, r := range list {
		if pred(r) {
			taken = append(taken, r)
		} else {
			kept = append(kept, r)
		}
	}
	for i := len(kept); i < len(list); i++ {
		list[i] = nil
	}
	if len(kept) == 0 {
		delete(s.held, key)
	} else {
		s.held[key] = kept
	}
	return taken
}

// take removes r from its queue's list; false if it was already taken.
func (s *Service) take(key queueKey, r *Request) bool {
	return len(s.takeMatching(key, func(x *Request) bool { return x == r })) == 1
}

// fire wakes a request taken from the table, once.
func (s *Service) fire(r *Request, timedOut bool) {
	if r.timer != nil {
		r.timer.Stop()
	}
	if !r.done.CompareAndSwap(false, true) {
		s.wg.Done()
		return
	}
	go func() {
		defer s.wg.Done()
		r.Wake(timedOut)
	}()
}

// wake runs a request that was never held.
func (s *Service) wake(r *Request, timedOut bool) {
	if r.done.CompareAndSwap(false, true) {
		r.Wake(timedOut)
	}
}

// Held is the number of pulls waiting.
func (s *Service) Held() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, l := range s.held {
		n += len(l)
	}
	return n
}

// Close wakes every held pull as timed out and waits for them and the check loop to finish.
func (s *Service) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	all := s.held
	s.held = make(map[queueKey][]*Request)
	s.mu.Unlock()
	close(s.stopc)
	for _, list := range all {
		for _, r := range list {
			s.fire(r, true)
		}
	}
	s.wg.Wait()
}
