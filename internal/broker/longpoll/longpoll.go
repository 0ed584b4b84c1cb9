package longpoll

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// Request is one held pull.
type Request struct {
	Topic   string
	QueueID int32
	// Offset is the queue offset the pull asked for; the queue must grow past it to wake the pull.
	Offset int64
	// Deadline is when the pull is answered even without new messages.
	Deadline time.Time
	// Owner is the connection the pull came on: its holds are counted against MaxHeldPerOwner and
	// dropped by Release. 0 is no connection (not counted per owner, never released).
	Owner uint64
	// Match reports whether a newly dispatched message (its tags code and properties) is one the
	// pull wants; nil takes every message.
	Match func(tagsCode int64, props []byte) bool
	// Wake re-runs the pull and answers it. It is called at most once, on a goroutine of its own
	// (and never after Release dropped the request); timedOut says the deadline passed (or the
	// service closed) rather than a message arrived. A panic in Wake is recovered and logged.
	Wake func(timedOut bool)

	done  atomic.Bool
	timer *time.Timer
}

// Defaults of the limits.
const (
	DefaultMaxHeld         = 100000
	DefaultMaxHeldPerOwner = 10000
)

// ErrTooManyHeld is what Hold answers beyond a limit; the pull is answered SYSTEM_BUSY.
var ErrTooManyHeld = errors.New("longpoll: too many held pulls")

// Options configure a Service.
type Options struct {
	// CheckInterval is how often held pulls are compared with their queues' max offsets: 5 s with
	// longPollingEnable, shortPollingTimeMills (1 s) without. Default 5 s.
	CheckInterval time.Duration
	// MaxOffset returns a queue's max offset (its entry count).
	MaxOffset func(topic string, queueID int32) int64
	// MaxHeld bounds the pulls held at once; MaxHeldPerOwner those of one connection. Defaults
	// DefaultMaxHeld and DefaultMaxHeldPerOwner.
	MaxHeld         int
	MaxHeldPerOwner int
}

type queueKey struct {
	topic   string
	queueID int32
}

// owned is what one connection holds: how many pulls, and on which queues (with how many each).
type owned struct {
	n    int
	keys map[queueKey]int
}

// Service holds pulls per queue. Start and Close own its goroutines: the periodic check and the
// wakes.
type Service struct {
	opts Options
	lg   *zap.Logger

	mu     sync.RWMutex
	closed bool
	held   map[queueKey][]*Request
	n      int               // pulls in held
	owners map[uint64]*owned // by Request.Owner, for owners other than 0

	g lifecycle.Group
}

// New returns a Service; it starts no goroutine until Start.
func New(opts Options, lg *zap.Logger) *Service {
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = 5 * time.Second
	}
	if opts.MaxHeld <= 0 {
		opts.MaxHeld = DefaultMaxHeld
	}
	if opts.MaxHeldPerOwner <= 0 {
		opts.MaxHeldPerOwner = DefaultMaxHeldPerOwner
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Service{opts: opts, lg: lg, held: make(map[queueKey][]*Request), owners: make(map[uint64]*owned)}
	s.g.OnPanic = func(v any, stack []byte) {
		s.lg.Error("waking a held pull panicked", zap.Any("panic", v), zap.ByteString("stack", stack))
	}
	return s
}

// Start runs the periodic check.
func (s *Service) Start() { s.g.Go(s.run) }

func (s *Service) run(stop <-chan struct{}) {
	t := time.NewTicker(s.opts.CheckInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.checkAll()
		}
	}
}

// Hold parks r until a message arrives or its deadline passes. If the queue already grew past
// r.Offset (a message raced the caller's empty read), r is woken at once. Beyond MaxHeld pulls,
// or MaxHeldPerOwner of r's owner, r is not held: the error (wrapping ErrTooManyHeld) says which
// limit, and Wake is never called.
func (s *Service) Hold(r *Request) error {
	key := queueKey{r.Topic, r.QueueID}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wake(r, true)
		return nil
	}
	if err := s.admitLocked(r); err != nil {
		s.mu.Unlock()
		return err
	}
	s.held[key] = append(s.held[key], r)
	s.countLocked(key, r.Owner, 1)
	r.timer = time.AfterFunc(time.Until(r.Deadline), func() { s.expire(key, r) })
	s.mu.Unlock()
	if s.opts.MaxOffset != nil && s.opts.MaxOffset(r.Topic, r.QueueID) > r.Offset && s.take(key, r) {
		s.fire(r, false)
	}
	return nil
}

// admitLocked refuses a pull beyond the limits.
// REQUIRES: s.mu held for writing.
func (s *Service) admitLocked(r *Request) error {
	if s.n >= s.opts.MaxHeld {
		return fmt.Errorf("%w: %d pulls are held, the most the broker holds (longPollingMaxHeld)", ErrTooManyHeld, s.n)
	}
	if o := s.owners[r.Owner]; r.Owner != 0 && o != nil && o.n >= s.opts.MaxHeldPerOwner {
		return fmt.Errorf("%w: %d pulls of this connection are held, the most one connection may have (longPollingMaxHeldPerConnection)",
			ErrTooManyHeld, o.n)
	}
	return nil
}

// countLocked adds delta (1 or -1) held pulls of owner on key.
// REQUIRES: s.mu held for writing.
func (s *Service) countLocked(key queueKey, owner uint64, delta int) {
	s.n += delta
	if owner == 0 {
		return
	}
	o := s.owners[owner]
	if o == nil {
		o = &owned{keys: make(map[queueKey]int)}
		s.owners[owner] = o
	}
	o.n += delta
	if o.keys[key] += delta; o.keys[key] <= 0 {
		delete(o.keys, key)
	}
	if o.n <= 0 {
		delete(s.owners, owner)
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
	return s.takeLocked(key, pred)
}

// takeLocked is takeMatching under s.mu.
// REQUIRES: s.mu held for writing.
func (s *Service) takeLocked(key queueKey, pred func(*Request) bool) []*Request {
	list := s.held[key]
	var taken []*Request
	kept := list[:0]
	for _, r := range list {
		if pred(r) {
			taken = append(taken, r)
			s.countLocked(key, r.Owner, -1)
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

// fire wakes a request taken from the table, once, on a goroutine of the service's group; once
// the service is stopping, on the caller's.
func (s *Service) fire(r *Request, timedOut bool) {
	if r.timer != nil {
		r.timer.Stop()
	}
	if !r.done.CompareAndSwap(false, true) {
		return
	}
	if !s.g.Go(func(<-chan struct{}) { r.Wake(timedOut) }) {
		s.wakeRecovered(r, timedOut)
	}
}

// wake runs a request that was never held.
func (s *Service) wake(r *Request, timedOut bool) {
	if r.done.CompareAndSwap(false, true) {
		s.wakeRecovered(r, timedOut)
	}
}

// wakeRecovered runs r.Wake on the caller's goroutine, logging a panic instead of passing it on.
func (s *Service) wakeRecovered(r *Request, timedOut bool) {
	defer func() {
		if v := recover(); v != nil {
			s.lg.Error("waking a held pull panicked", zap.Any("panic", v), zap.Stack("stack"))
		}
	}()
	r.Wake(timedOut)
}

// Release drops every pull owner holds, without waking them: the connection they came on has
// closed, so nobody is there to answer. It returns how many were dropped.
func (s *Service) Release(owner uint64) int {
	if owner == 0 {
		return 0
	}
	s.mu.Lock()
	o := s.owners[owner]
	var dropped []*Request
	if o != nil {
		for key := range o.keys {
			dropped = append(dropped, s.takeLocked(key, func(r *Request) bool { return r.Owner == owner })...)
		}
	}
	s.mu.Unlock()
	for _, r := range dropped {
		if r.timer != nil {
			r.timer.Stop()
		}
		r.done.Store(true)
	}
	return len(dropped)
}

// Held is the number of pulls waiting.
func (s *Service) Held() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.n
}

// HeldBy is the number of pulls of owner waiting.
func (s *Service) HeldBy(owner uint64) int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if o := s.owners[owner]; o != nil {
		return o.n
	}
	return 0
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
	s.held, s.n, s.owners = make(map[queueKey][]*Request), 0, make(map[uint64]*owned)
	s.mu.Unlock()
	for _, list := range all {
		for _, r := range list {
			s.fire(r, true)
		}
	}
	s.g.Stop()
}
