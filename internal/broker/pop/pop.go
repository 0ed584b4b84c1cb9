package pop

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Consume init modes (Java ConsumeInitMode): where a group without an offset starts.
const (
	InitModeMin int32 = 0
	InitModeMax int32 = 1
)

// OrderReviveQid is the revive queue id an orderly pop answers with; it marks the POP_CK of an
// orderly message (KeyBuilder.POP_ORDER_REVIVE_QUEUE).
const OrderReviveQid = 999

// MaxPopNums is the most messages one POP may ask for.
const MaxPopNums = 32

// Request is one POP_MESSAGE.
type Request struct {
	Group   string
	Topic   string
	QueueID int32 // -1: every queue
	// MaxMsgNums is at most MaxPopNums.
	MaxMsgNums    int32
	InvisibleTime int64 // ms
	// PollTime is how long (ms) to hold a pop that finds nothing, counted from BornTime (ms; 0
	// means now).
	PollTime int64
	BornTime int64
	InitMode int32
	// ExpType and Exp are the subscription: TAG ("" or "*": every message) or SQL92.
	ExpType   string
	Exp       string
	Order     bool
	AttemptID string
	// ConnID is the connection the request came on; its held requests end with it.
	ConnID uint64
}

// Result is a POP's answer. Status is OK with Records, PollingTimeout when nothing was found in
// time, PollingFull when the broker could not hold the request. Release must be called once
// Records have been written; it is nil without Records.
type Result struct {
	Status          outcome.Kind
	Remark          string
	PopTime         int64
	InvisibleTime   int64
	ReviveQid       int32
	RestNum         int64
	StartOffsetInfo string
	MsgOffsetInfo   string
	OrderCountInfo  string // orderly pops only
	Records         [][]byte
	Release         func()
}

// Pop takes up to MaxMsgNums messages of a group's topic, from its retry topic too unless the
// pop is orderly. When none are found and PollTime allows, the request is held: held is true and
// wake is called later, exactly once and on another goroutine, with the outcome of popping again.
func (s *Service) Pop(r Request, wake func(Result, error)) (res Result, held bool, err error) {
	if r.BornTime <= 0 {
		r.BornTime = s.nowMs()
	}
	if err := s.checkPop(&r); err != nil {
		return Result{}, false, err
	}
	s.clampPoll(&r.BornTime, &r.PollTime)
	return s.runPop(&r, wake)
}

// runPop pops once and, finding nothing, holds the request when it may.
func (s *Service) runPop(r *Request, wake func(Result, error)) (Result, bool, error) {
	tc, f, err := s.popTarget(r)
	if err != nil {
		return Result{}, false, err
	}
	p := s.newPopping(r, f)
	p.run(tc)
	res := p.result()
	if res.Status == outcome.OK {
		return res, false, nil
	}
	switch s.polls.holdPop(r, s.nowMs(), wake, s.repop) {
	case holdOK:
		return Result{}, true, nil
	case holdFull:
		res.Status = outcome.PollingFull
	}
	return res, false, nil
}

// repop runs a held pop again: found messages or, its time up, POLLING_TIMEOUT.
func (s *Service) repop(r *Request, wake func(Result, error), final bool) {
	if final {
		wake(Result{Status: outcome.PollingTimeout, Remark: store.NoMessageInQueue.String(), PopTime: s.nowMs(),
			InvisibleTime: r.InvisibleTime}, nil)
		return
	}
	res, held, err := s.runPop(r, wake)
	if !held {
		wake(res, err)
	}
}

// checkPop is Java's checks of a POP_MESSAGE that do not depend on the topic.
func (s *Service) checkPop(r *Request) error {
	if err := checkNames(r.Group, r.Topic); err != nil {
		return err
	}
	if err := checkAttemptID(r.AttemptID); err != nil {
		return err
	}
	if !s.ready.Load() {
		return outcome.Errorf(outcome.NoPermission, "the broker[%s] is a slave or not started: POP needs the master", s.opts.BrokerName)
	}
	if s.nowMs()-r.BornTime-r.PollTime > 500 {
		return outcome.Errorf(outcome.PollingTimeout, "the broker[%s] pop message is timeout too much", s.opts.BrokerName)
	}
	if s.opts.BrokerPermission&body.PermRead == 0 {
		return outcome.Errorf(outcome.NoPermission, "the broker[%s] pop message is forbidden", s.opts.BrokerName)
	}
	if r.MaxMsgNums > MaxPopNums {
		return outcome.Errorf(outcome.InvalidParameter, "the broker[%s] pop message's num is greater than 32", s.opts.BrokerName)
	}
	if r.MaxMsgNums <= 0 {
		r.MaxMsgNums = 1
	}
	return s.checkOutstanding()
}

// clampPoll keeps a request's hold within MaxPollTime of its arrival, however often it is woken
// and held again: a born time ahead of the broker's clock is now, a poll time at most MaxPollTime.
func (s *Service) clampPoll(bornTime, pollTime *int64) {
	*bornTime = min(*bornTime, s.nowMs())
	*pollTime = min(*pollTime, s.opts.MaxPollTime.Milliseconds())
}

// checkOutstanding refuses new checkpoints while MaxOutstanding are not settled.
func (s *Service) checkOutstanding() error {
	if n := s.cks.size(); n >= s.opts.MaxOutstanding {
		return outcome.Errorf(outcome.SystemBusy, "the broker[%s] holds %d checkpoints of messages popped and not acknowledged; ack or wait",
			s.opts.BrokerName, n)
	}
	return nil
}

// popTarget checks the topic, queue and group and builds the filter.
func (s *Service) popTarget(r *Request) (body.TopicConfig, *subFilter, error) {
	tc, err := s.readableTopic(r.Topic, r.QueueID, outcome.InvalidParameter)
	if err != nil {
		return tc, nil, err
	}
	if err := s.consumableGroup(r.Group, r.ConnID); err != nil {
		return tc, nil, err
	}
	f, err := s.filterOf(r.Topic, r.ExpType, r.Exp)
	return tc, f, err
}

// readableTopic returns the topic's config when it exists, is readable and has queue q (or q is
// -1); a queue out of range is badQueue.
func (s *Service) readableTopic(topic string, q int32, badQueue outcome.Kind) (body.TopicConfig, error) {
	tc, ok := s.Deps.Topics.Get(topic)
	if !ok {
		return tc, outcome.Errorf(outcome.TopicNotExist, "topic[%s] not exist, apply first please!", topic)
	}
	if tc.Perm&body.PermRead == 0 {
		return tc, outcome.Errorf(outcome.NoPermission, "the topic[%s] peeking message is forbidden", topic)
	}
	if q >= int32(tc.ReadQueueNums) || q < -1 {
		return tc, outcome.Errorf(badQueue, "queueId[%d] is illegal, topic:[%s] topicConfig.readQueueNums:[%d]",
			q, topic, tc.ReadQueueNums)
	}
	return tc, nil
}

// consumableGroup fails for a group that does not exist (and is not auto-created, within what
// the connection may create) or may not consume.
func (s *Service) consumableGroup(group string, connID uint64) error {
	gc, ok, refused := s.Deps.Groups.FindOrCreateFor(connID, group)
	if refused != nil {
		return outcome.Errorf(outcome.SystemError, "subscription group [%s] cannot be created: %v", group, refused)
	}
	if !ok {
		return outcome.Errorf(outcome.GroupNotExist, "subscription group [%s] does not exist", group)
	}
	if !gc.ConsumeEnable {
		return outcome.Errorf(outcome.NoPermission, "subscription group no permission, %s", group)
	}
	return nil
}

// retryTopicOf is the group's POP retry topic of topic (V1, as Java 5.3 writes by default).
func RetryTopic(group, topic string) string { return systopic.PopRetry(group, topic) }

// popping is one run of a POP over the queues it reads.
type popping struct {
	s        *Service
	r        *Request
	f        *subFilter
	popTime  int64
	reviveQ  int32
	rest     int64
	got      []*store.GetResult
	records  [][]byte
	start    []byte
	msgs     []byte
	order    []byte
	anyOrder bool
}

func (s *Service) newPopping(r *Request, f *subFilter) *popping {
	p := &popping{s: s, r: r, f: f, popTime: s.nowMs(), start: make([]byte, 0, 64), msgs: make([]byte, 0, 320),
		records: make([][]byte, 0, r.MaxMsgNums)}
	if r.Order {
		p.reviveQ = OrderReviveQid
	} else {
		p.reviveQ = int32(s.nextQ.Add(1) % uint32(s.opts.ReviveQueueNum))
	}
	return p
}

// run reads the retry topic before or after the topic, as Java's popFromRetryProbability says.
func (p *popping) run(tc body.TopicConfig) {
	randQ := p.s.rand(100)
	retryFirst := randQ < p.s.opts.PopFromRetryProbability
	retry := RetryTopic(p.r.Group, p.r.Topic)
	if retryFirst && !p.r.Order {
		p.topic(retry, true, randQ)
	}
	if p.r.QueueID < 0 {
		p.queues(tc, false, randQ)
	} else {
		p.queue(tc.TopicName, p.r.QueueID, false)
	}
	if !retryFirst && !p.r.Order && p.count() < int(p.r.MaxMsgNums) {
		p.topic(retry, true, randQ)
	}
}

func (p *popping) count() int { return len(p.records) }

// topic pops every queue of a topic that exists.
func (p *popping) topic(name string, retry bool, randQ int) {
	if tc, ok := p.s.Deps.Topics.Get(name); ok {
		p.queues(tc, retry, randQ)
	}
}

func (p *popping) queues(tc body.TopicConfig, retry bool, randQ int) {
	n := tc.ReadQueueNums
	for i := range n {
		p.queue(tc.TopicName, int32((randQ+i)%n), retry)
	}
}

// queue pops one queue of topic under its lock; a queue another pop holds is skipped.
func (p *popping) queue(topic string, q int32, retry bool) {
	s := p.s
	lk := lockKey{topic, p.r.Group, q}
	if !s.locks.tryLock(lk) {
		p.addRest(topic, q, s.popOffset(topic, p.r.Group, q, p.r.InitMode, false))
		return
	}
	defer s.locks.unlock(lk)
	offset := s.popOffset(topic, p.r.Group, q, p.r.InitMode, true)
	if p.r.Order && s.orders.blocked(p.r.AttemptID, topic, p.r.Group, q, p.r.InvisibleTime, p.popTime) {
		return
	}
	if p.count() >= int(p.r.MaxMsgNums) {
		p.addRest(topic, q, offset)
		return
	}
	got, offset := s.read(topic, p.r.Group, q, offset, p.r.MaxMsgNums-int32(p.count()), p.f)
	if got == nil {
		return
	}
	p.take(topic, q, offset, retry, got)
}

func (p *popping) addRest(topic string, q int32, offset int64) {
	if !p.r.Order {
		p.rest += p.s.Deps.Store.MaxOffsetInQueue(topic, q) - offset
	}
}

// take settles what a read found: a checkpoint for the messages (or the order info of an orderly
// pop) and the offset moved past them, or past what the filter skipped.
func (p *popping) take(topic string, q int32, offset int64, retry bool, got *store.GetResult) {
	s := p.s
	p.rest += got.MaxOffset - got.NextBeginOffset
	if got.Status != store.Found {
		st, next := got.Status, got.NextBeginOffset
		got.Release() // got is recycled: read nothing of it after this
		if skippable(st) && next > offset {
			s.Deps.Offsets.Commit(p.r.Group, topic, q, next)
		}
		return
	}
	if p.r.Order {
		p.order = s.orders.update(p.r.AttemptID, topic, p.r.Group, q, p.popTime, p.r.InvisibleTime, got.QueueOffsets, p.order)
		p.anyOrder = true
		s.Deps.Offsets.Commit(p.r.Group, topic, q, offset)
	} else if !s.writeCheckpoint(p, topic, q, offset, got) {
		p.rest += int64(got.MessageCount())
		got.Release()
		return
	}
	mark := protocol.RetryMark(topic)
	p.start = protocol.AppendStartOffsetInfo(p.start, mark, q, offset)
	p.msgs = protocol.AppendMsgOffsetInfo(p.msgs, mark, q, got.QueueOffsets)
	p.keep(topic, q, offset, retry, got)
}

// skippable: statuses after which the pop offset moves to the read's next begin offset (Java
// commits it for orderly pops and buffers it for the others).
func skippable(st store.GetStatus) bool {
	switch st {
	case store.NoMatchedMessage, store.OffsetFoundNull, store.MessageWasRemoving, store.NoMatchedLogicQueue:
		return true
	}
	return false
}

// keep adds the records to the answer: as stored, or for a retry topic rewritten under the
// original topic with their POP_CK, as Java 5.3 answers by default.
func (p *popping) keep(topic string, q int32, offset int64, retry bool, got *store.GetResult) {
	if p.s.Deps.Metrics != nil {
		p.s.Deps.Metrics.MessagesOut(topic, p.r.Group, got.MessageCount(), got.BufferTotalSize)
	}
	if !retry {
		p.records = append(p.records, got.Records...)
		p.got = append(p.got, got)
		return
	}
	e := protocol.ExtraInfo{CkQueueOffset: offset, PopTime: p.popTime, InvisibleTime: p.r.InvisibleTime,
		ReviveQid: p.reviveQ, Retry: protocol.RetryMark(topic), BrokerName: p.s.opts.BrokerName, QueueID: q,
		HasQueueOffset: true}
	for i, rec := range got.Records {
		e.QueueOffset = got.QueueOffsets[i]
		if b, err := rewriteRetry(rec, p.r.Topic, &e); err == nil {
			p.records = append(p.records, b)
		}
	}
	got.Release()
}

// result is the answer of the run.
func (p *popping) result() Result {
	res := Result{Status: outcome.PollingTimeout, Remark: store.NoMessageInQueue.String(), PopTime: p.popTime,
		InvisibleTime: p.r.InvisibleTime, ReviveQid: p.reviveQ, RestNum: p.rest,
		StartOffsetInfo: string(p.start), MsgOffsetInfo: string(p.msgs)}
	if p.anyOrder {
		res.OrderCountInfo = string(p.order)
	}
	if len(p.records) == 0 {
		p.release()
		return res
	}
	res.Status, res.Remark = outcome.OK, store.Found.String()
	res.Records, res.Release = p.records, p.release
	return res
}

func (p *popping) release() {
	for _, g := range p.got {
		g.Release()
	}
	p.got = nil
}
