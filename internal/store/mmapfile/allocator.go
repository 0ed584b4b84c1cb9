package mmapfile

import (
	"sync"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/lifecycle"
)

// allocator creates a queue's next segment ahead of need in one goroutine, the
// shape of etcd's file_pipeline and RocketMQ's AllocateMappedFileService.
type allocator struct {
	q    *Queue
	reqc chan *allocReq
	g    lifecycle.Group // the goroutine

	mu      sync.Mutex
	started bool      // REQUIRES mu
	stopped bool      // REQUIRES mu
	cur     *allocReq // the latest request, not yet taken; REQUIRES mu
}

type allocReq struct {
	start int64
	done  chan struct{}
	f     *MappedFile
	err   error
}

func newAllocator(q *Queue) *allocator {
	return &allocator{q: q, reqc: make(chan *allocReq, 1)}
}

func (a *allocator) start() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started || a.stopped {
		return
	}
	a.started = a.g.Go(a.run)
}

func (a *allocator) run(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case r := <-a.reqc:
			r.f, r.err = a.q.createFile(r.start)
			if r.err != nil {
				a.q.lg.Warn("preallocating segment failed", zap.Int64("start", r.start), zap.Error(r.err))
			}
			close(r.done)
		}
	}
}

// request asks for the segment at start to be prepared. Only one request is
// outstanding; an older untaken one is discarded.
func (a *allocator) request(start int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.started || a.stopped || a.cur != nil {
		return // not running, or the writer has not taken the previous one yet
	}
	r := &allocReq{start: start, done: make(chan struct{})}
	select {
	case a.reqc <- r:
		a.cur = r
	default:
	}
}

// take returns the prepared segment at start, waiting if it is being made.
// (nil, nil) means there is none: the caller creates it. A prepared segment for
// another start is discarded.
func (a *allocator) take(start int64) (*MappedFile, error) {
	a.mu.Lock()
	r := a.cur
	a.cur = nil
	a.mu.Unlock()
	if r == nil {
		return nil, nil
	}
	select {
	case <-r.done:
	case <-a.g.Stopping():
		return nil, ErrClosed
	}
	if r.err != nil {
		return nil, nil // retry synchronously; a full disk fails there too
	}
	if r.start != start {
		r.f.Destroy()
		return nil, nil
	}
	return r.f, nil
}

// close stops the goroutine and removes a prepared segment nobody took.
func (a *allocator) close() {
	a.mu.Lock()
	if a.stopped {
		a.mu.Unlock()
		return
	}
	a.stopped = true
	r := a.cur
	a.cur = nil
	a.mu.Unlock()
	a.g.Stop()
	if r != nil {
		select {
		case <-r.done:
			if r.f != nil {
				r.f.Destroy()
			}
		default: // never picked up: the goroutine is gone
		}
	}
}
