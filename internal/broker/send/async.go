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

// Answerer is told the outcome of a send that SendAsync left pending, once, from the store's group
// commit (or its timeout timer): Sent must not block.
type Answerer interface {
	Sent(res Result, err error)
}

// pendingPut is one send being stored. It holds the message being put (so that it does not escape
// to the heap per send) and what finishing the send needs; for a send waiting for its group
// commit it meets the store's completion: whichever of the put's return and its FlushDone comes
// second finishes the send.
type pendingPut struct {
	s      *Service
	msg    store.Message
	t      target
	topic  string // as sent
	props  string // as sent
	stored string // the topic stored under
	dlq    bool
	recall string // a timer message's recall handle
	reply  Answerer
	res    store.PutResult
	st     store.PutStatus

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
	p.s.async.SettlePut(&p.res, p.st)
	res, err := p.finish(&p.res)
	reply := p.reply
	p.release()
	reply.Sent(res, err)
}

// finish turns the put's outcome into the send's, and counts it.
func (p *pendingPut) finish(res *store.PutResult) (Result, error) {
	s := p.s
	out, err := s.result(res, p.t, p.stored, p.props, 1)
	if err != nil {
		return out, err
	}
	out.RecallHandle = p.recall
	if s.Metrics != nil {
		s.countSend(p.topic, p.props, p.t, p.stored, p.dlq)
	}
	return out, nil
}

func (p *pendingPut) release() {
	*p = pendingPut{}
	pendingPuts.Put(p)
}

// SendAsync is Send that does not block a SYNC_FLUSH send until its group commit: pending, reply
// is told the outcome later (and Result and error are zero). A store without PutMessageAsync,
// a put that needs no flush wait, or one that failed is answered at once.
func (s *Service) SendAsync(req Request, reply Answerer) (_ Result, pending bool, _ error) {
	return s.send(&req, reply)
}

// send checks, prepares and stores one message; with a reply and a store that can, it leaves the
// answer to the group commit (pending).
func (s *Service) send(r *Request, reply Answerer) (_ Result, pending bool, _ error) {
	t, err := s.check(r)
	if err != nil {
		return Result{}, false, err
	}
	if len(r.Body) > s.options().MaxMessageSize {
		return Result{}, false, s.tooLarge(len(r.Body))
	}
	t, dlq, err := s.retryOrDLQ(r, t)
	if err != nil {
		return Result{}, false, err
	}
	p := pendingPuts.Get().(*pendingPut)
	p.s, p.t, p.topic, p.props, p.dlq, p.reply = s, t, r.Topic, r.Properties, dlq, reply
	p.msg = s.message(r, t)
	timer, err := s.prepareOrDefer(&p.msg, r, dlq)
	if err != nil {
		p.release()
		return Result{}, false, err
	}
	var res store.PutResult
	if s.async != nil && reply != nil {
		res, pending = s.async.PutMessageAsync(&p.msg, p)
	} else {
		res = s.Store.PutMessage(&p.msg)
	}
	p.stored = p.msg.Topic
	if timer && res.Status.Stored() {
		p.recall = s.Timers.RecallHandle(&p.msg)
	}
	if !pending {
		out, err := p.finish(&res)
		p.release()
		return out, false, err
	}
	p.msg = store.Message{} // the record is written: nothing may refer to the request's body
	p.res = res
	p.arrive()
	return Result{}, true, nil
}
