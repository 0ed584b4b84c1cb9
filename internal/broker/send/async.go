package send

import (
	"sync"
	"sync/atomic"

	"github.com/rocketgo/rocketgo/internal/store"
)

// AsyncStore puts a message without blocking for its group commit (store.Store does).
type AsyncStore interface {
	PutMessageAsync(m *store.Message, done store.Completion) (store.PutResult, bool)
	SettlePut(r *store.PutResult, st store.PutStatus)
}

// Reply is told the outcome of a send that SendAsync left pending, once, from the store's group
// commit (or its timeout timer): Sent must not block.
type Reply interface {
	Sent(res Result, err error)
}

// pendingPut is one send waiting for its group commit. It holds the message being put (so that
// it does not escape to the heap per send) and meets the store's completion: whichever of the
// put's return and its FlushDone comes second finishes the send.
type pendingPut struct {
	s        *Service
	msg      store.Message
	t        target
	props    string
	reply    Reply
	res      store.PutResult
	st       store.PutStatus
	arrivals atomic.Int32
}

var pendingPuts = sync.Pool{New: func() any { return new(pendingPut) }}

// FlushDone is the store's completion.
func (p *pendingPut) FlushDone(st store.PutStatus) {
	p.st = st
	p.arrive()
}

func (p *pendingPut) arrive() {
	if p.arrivals.Add(1) < 2 {
		return
	}
	s := p.s
	s.async.SettlePut(&p.res, p.st)
	res, err := s.result(&p.res, p.t, p.props, 1)
	reply := p.reply
	p.release()
	reply.Sent(res, err)
}

func (p *pendingPut) release() {
	*p = pendingPut{}
	pendingPuts.Put(p)
}

// SendAsync is Send that does not block a SYNC_FLUSH send until its group commit: pending, reply
// is told the outcome later (and Result and error are zero). A store without PutMessageAsync,
// a put that needs no flush wait, or one that failed is answered at once.
func (s *Service) SendAsync(req Request, reply Reply) (_ Result, pending bool, _ error) {
	r := &req
	t, err := s.check(r)
	if err != nil {
		return Result{}, false, err
	}
	if len(r.Body) > s.opts.MaxMessageSize {
		return Result{}, false, s.tooLarge(len(r.Body))
	}
	t, dlq, err := s.retryOrDLQ(r, t)
	if err != nil {
		return Result{}, false, err
	}
	p := pendingPuts.Get().(*pendingPut)
	p.s, p.t, p.props, p.reply = s, t, r.Properties, reply
	p.msg = s.message(r, t)
	if err := s.prepareOrDefer(&p.msg, r, dlq); err != nil {
		p.release()
		return Result{}, false, err
	}
	if s.async == nil {
		res := s.Store.PutMessage(&p.msg)
		p.release()
		out, err := s.result(&res, t, r.Properties, 1)
		return out, false, err
	}
	res, pending := s.async.PutMessageAsync(&p.msg, p)
	if !pending {
		p.release()
		out, err := s.result(&res, t, r.Properties, 1)
		return out, false, err
	}
	p.msg = store.Message{} // the record is written: nothing may refer to the request's body
	p.res = res
	p.arrive()
	return Result{}, true, nil
}
