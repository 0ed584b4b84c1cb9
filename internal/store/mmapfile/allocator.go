package mmapfile

import (
	"path/filepath"
	"sync"

	"go.uber.org/zap"
)

// allocator creates a queue's next segment ahead of need in one goroutine, the
// shape of etcd's file_pipeline and RocketMQ's AllocateMappedFileService.
type allocator struct {
	q     *Queue
	reqc  chan *allocReq
	stopc chan struct{}
	wg    sync.WaitGroup

	mu      sync.Mutex
	started bool
	stopped bool
	cur     *allocReq // the latest request, not yet taken
}

type allocReq struct {
	start int64
	done  chan struct{}
	f     *MappedFile
	err   error
}

func newAllocator(q *Queue) *allocator {
	return &allocator{q: q, reqc: make(chan *allocReq, 1), stopc: make(chan struct{})}
}

func (a *allocator) start() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started || a.stopped {
		return
	}
	a.started = true
	a.wg.Add(1)
	go a.run()
}

func (a *allocator) run() {
	defer a.wg.Done()
	for {
		select {
		case <-a.stopc:
			return
		case r := <-a.reqc:
			r.f, r.err = a.q.create(filepath.Join(a.q.dir, FileName(r.start)), r.start, a.q.fileSize)
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
	if !a.started || a.stopped || a.cur != nil && a.cur.start == start {
		return
	}
	if a.cur != nil {
		return // the writer has not taken the previous one yet
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
	case <-a.stopc:
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
	close(a.stopc)
	a.wg.Wait()
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
