package timing

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/timer"
	"github.com/rocketgo/rocketgo/internal/vfs"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

// Store is what the service needs of the message store.
type Store interface {
	GetMessage(group, topic string, queueID int32, offset int64, maxMsgNums int32, filter store.MessageFilter) *store.GetResult
	LookMessageByOffset(phyOffset int64) *message.MessageExt
	PutMessage(m *store.Message) store.PutResult
	ReadCommitLog(off int64, max int) (store.CommitLogData, bool)
	MinOffsetInQueue(topic string, queueID int32) int64
	MaxOffsetInQueue(topic string, queueID int32) int64
	CommitLogMaxOffset() int64
	CommitLogFlushedOffset() int64
	DispatchBehindBytes() int64
}

// Metrics counts what the service takes in and delivers; nil counts nothing.
type Metrics interface {
	TimerEnqueued(topic string)
	TimerDequeued(topic string)
}

// Topics looks topics up (a recall's topic must exist).
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
}

// Deps are what the service works with; Metrics may be nil.
type Deps struct {
	Store   Store
	Topics  Topics
	Metrics Metrics
}

// Service owns the timer files and the one goroutine that fills and delivers them.
type Service struct {
	opts    Options
	st      Store
	topics  Topics
	lg      *zap.Logger
	metrics Metrics
	dir     string

	wheel *timer.Wheel
	log   *timer.Log

	g    lifecycle.Group
	wake chan struct{}
	once sync.Once

	// The loop's state; New and Close use it before and after the loop runs.
	loop loopState
	// Progress readers (metrics, GET_TIMER_CHECK_POINT) see.
	readMs, queueOffset atomic.Int64

	mu      sync.Mutex
	pending map[string]int64  // REQUIRES mu
	saved   timer.Checkpoint  // the last checkpoint written; REQUIRES mu
	master  *timer.Checkpoint // a slave: the master's last progress it can follow; REQUIRES mu
	version int64             // checkpoints written; REQUIRES mu
}

// loopState is owned by the delivery goroutine.
type loopState struct {
	q        int64 // next rmq_sys_wheel_timer offset to take
	storeMs  int64 // the monotone store clock: highest store time taken
	readMs   int64 // start of the next slot to process
	readDone int64 // records of that slot already processed
	dedup    *dedup
	cand     *timer.Checkpoint // written once the CommitLog is flushed past its DedupFrom
	nextSnap int64
	snaps    int
}

// Files under RootDir.
const (
	dirName        = "timer"
	wheelName      = "wheel"
	logDirName     = "log"
	checkpointName = "checkpoint"
)

// New opens (or creates) the timer files under RootDir/timer and recovers them; nothing runs
// until Start. The store must be open and recovered.
func New(opts Options, deps Deps, lg *zap.Logger) (*Service, error) {
	opts.setDefaults()
	if lg == nil {
		lg = zap.NewNop()
	}
	s := &Service{opts: opts, st: deps.Store, topics: deps.Topics, lg: lg, metrics: deps.Metrics,
		dir:  filepath.Join(opts.RootDir, dirName),
		wake: make(chan struct{}, 1), pending: map[string]int64{}}
	if err := s.open(); err != nil {
		s.closeFiles()
		return nil, fmt.Errorf("timing: %w", err)
	}
	return s, nil
}

func (s *Service) open() error {
	if err := vfs.MkdirAll(s.opts.FS, s.dir); err != nil {
		return err
	}
	w, err := timer.OpenWheel(s.opts.FS, filepath.Join(s.dir, wheelName), s.slots(), s.opts.PrecisionMs)
	if err != nil {
		return err
	}
	s.wheel = w
	l, err := timer.OpenLog(s.opts.FS, filepath.Join(s.dir, logDirName), s.opts.LogSegmentSize)
	if err != nil {
		return err
	}
	s.log = l
	return s.recover()
}

// slots is the wheel's size: the roll window and the blank slots after it.
func (s *Service) slots() int64 { return s.opts.RollWindowSlots + blankSlots }

func (s *Service) now() int64 { return s.opts.Now().UnixMilli() }

// Start runs the delivery goroutine (a slave's only takes messages in).
func (s *Service) Start() {
	s.g.Go(s.run)
}

// Wake tells the goroutine that rmq_sys_wheel_timer grew (the store's dispatch hook).
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Stop ends the goroutine; call it before the store closes.
func (s *Service) Stop() { s.g.Stop() }

// Close stops the goroutine, makes the log and the wheel durable, writes a last checkpoint if the
// CommitLog is flushed past what was delivered (after the store's own close it is), and closes
// the files.
func (s *Service) Close() error {
	var err error
	s.once.Do(func() {
		s.Stop()
		err = s.finalCheckpoint()
		err = errors.Join(err, s.closeFiles())
	})
	return err
}

func (s *Service) closeFiles() error {
	var err error
	if s.log != nil {
		err = s.log.Close()
	}
	if s.wheel != nil {
		err = errors.Join(err, s.wheel.Close())
	}
	return err
}

// run is the delivery goroutine.
func (s *Service) run(stop <-chan struct{}) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		case <-s.wake:
		}
		wait := s.step(stop)
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(wait)
	}
}

// frontierMargin is how long a message may take between getting its store time and being
// appended: a slot is processed only when its end lies this far in the past.
const frontierMargin = 5

// idleWait bounds a sleep; the dispatch hook wakes the goroutine earlier for new messages.
const idleWait = 100 * time.Millisecond

// step takes in what is new, processes what is due and records progress; it returns how long to
// sleep.
func (s *Service) step(stop <-chan struct{}) time.Duration {
	if s.opts.Slave {
		s.followMaster()
	}
	now := s.now()
	limit := now - frontierMargin
	caughtUp := s.st.DispatchBehindBytes() == 0
	taken, err := s.enqueue(limit, stop)
	if err != nil {
		s.lg.Error("taking timer messages failed; retrying", zap.Error(err))
		return idleWait
	}
	if taken && caughtUp && !s.opts.Slave {
		if !s.processDue(limit, stop) {
			return idleWait
		}
	}
	if err := s.progress(s.now()); err != nil {
		s.lg.Error("timer checkpoint failed; retrying", zap.Error(err))
	}
	if !taken || !caughtUp {
		return time.Millisecond
	}
	return s.untilNextSlot()
}

// untilNextSlot is the sleep until the next slot is due (and its margin passed), at most idleWait.
func (s *Service) untilNextSlot() time.Duration {
	due := s.loop.readMs + s.opts.PrecisionMs + frontierMargin - s.now()
	return min(max(time.Duration(due)*time.Millisecond, time.Millisecond), idleWait)
}
