package pop

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// PeekRequest is one PEEK_MESSAGE: what a POP would get, read without taking it.
type PeekRequest struct {
	Group      string
	Topic      string
	QueueID    int32 // -1: every queue
	MaxMsgNums int32
	ConnID     uint64 // a group it auto-creates counts against this connection
}

// Peek reads up to MaxMsgNums messages at the group's pop offsets, from the retry topic first one
// time in five (Java PeekMessageProcessor). Status is OK with Records, or PullNotFound.
func (s *Service) Peek(r PeekRequest) (Result, error) {
	if err := s.checkRead(r.Group, r.Topic, r.QueueID, r.ConnID); err != nil {
		return Result{}, err
	}
	tc, _ := s.Deps.Topics.Get(r.Topic)
	randQ := s.rand(100)
	pk := peeking{s: s, r: &r, res: Result{Status: outcome.PullNotFound, Remark: store.NoMessageInQueue.String(),
		ReviveQid: int32(randQ % s.opts.ReviveQueueNum)}}
	retry := RetryTopic(r.Group, r.Topic)
	retryFirst := randQ%5 == 0
	if retryFirst {
		pk.topic(retry, randQ)
	}
	if r.QueueID < 0 {
		pk.queues(tc, randQ)
	} else {
		pk.queue(r.Topic, r.QueueID)
	}
	if !retryFirst && len(pk.res.Records) < int(r.MaxMsgNums) {
		pk.topic(retry, randQ)
	}
	return pk.result(), nil
}

// checkRead is the checks PEEK_MESSAGE, NOTIFICATION and POLLING_INFO share: the broker and
// the topic are readable, the queue is one of the topic's (or -1), the group may consume.
func (s *Service) checkRead(group, topic string, q int32, connID uint64) error {
	if err := checkNames(group, topic); err != nil {
		return err
	}
	if s.opts.BrokerPermission&body.PermRead == 0 {
		return outcome.Errorf(outcome.NoPermission, "the broker[%s] peeking message is forbidden", s.opts.BrokerName)
	}
	if _, err := s.readableTopic(topic, q, outcome.InvalidParameter); err != nil {
		return err
	}
	return s.consumableGroup(group, connID)
}

type peeking struct {
	s   *Service
	r   *PeekRequest
	res Result
	got []*store.GetResult
}

func (pk *peeking) topic(name string, randQ int) {
	if tc, ok := pk.s.Deps.Topics.Get(name); ok {
		pk.queues(tc, randQ)
	}
}

func (pk *peeking) queues(tc body.TopicConfig, randQ int) {
	for i := range tc.ReadQueueNums {
		pk.queue(tc.TopicName, int32((randQ+i)%tc.ReadQueueNums))
	}
}

// queue reads one queue at the group's pop offset, taking nothing.
func (pk *peeking) queue(topic string, q int32) {
	st := pk.s.Deps.Store
	offset := pk.s.peekOffset(topic, pk.r.Group, q)
	pk.res.RestNum += st.MaxOffsetInQueue(topic, q) - offset
	left := pk.r.MaxMsgNums - int32(len(pk.res.Records))
	if left <= 0 {
		return
	}
	got := st.GetMessage(pk.r.Group, topic, q, offset, left, nil)
	if got != nil && (got.Status == store.OffsetTooSmall || got.Status == store.OffsetOverflowBadly) {
		next := got.NextBeginOffset
		got.Release()
		got = st.GetMessage(pk.r.Group, topic, q, next, left, nil)
	}
	if got == nil {
		return
	}
	if got.Status != store.Found {
		got.Release()
		return
	}
	pk.res.Records = append(pk.res.Records, got.Records...)
	pk.got = append(pk.got, got)
}

func (pk *peeking) result() Result {
	if len(pk.res.Records) == 0 {
		return pk.res
	}
	pk.res.Status, pk.res.Remark = outcome.OK, store.Found.String()
	got := pk.got
	pk.res.Release = func() {
		for _, g := range got {
			g.Release()
		}
	}
	return pk.res
}

// peekOffset is where a group's pop of a queue would start, without committing an init offset:
// its committed offset, else the queue's first (Java's getPopOffset of peek and notification).
func (s *Service) peekOffset(topic, group string, q int32) int64 {
	if off, ok := s.Deps.Offsets.Query(group, topic, q); ok && off >= 0 {
		return off
	}
	return s.Deps.Store.MinOffsetInQueue(topic, q)
}

// NotifyRequest is one NOTIFICATION.
type NotifyRequest struct {
	Group     string
	Topic     string
	QueueID   int32
	PollTime  int64
	BornTime  int64
	Order     bool
	AttemptID string
	ConnID    uint64
}

// NotifyResult answers a NOTIFICATION: whether a POP would find something, and whether the
// broker could not hold the request.
type NotifyResult struct {
	HasMsg      bool
	PollingFull bool
}

// Notification reports whether the group has messages to pop in the topic (or its retry topic).
// Without any, the request is held like a POP: held is true and wake is called later with the
// answer.
func (s *Service) Notification(r NotifyRequest, wake func(NotifyResult)) (res NotifyResult, held bool, err error) {
	if r.BornTime <= 0 {
		r.BornTime = s.nowMs()
	}
	if err := s.checkRead(r.Group, r.Topic, r.QueueID, r.ConnID); err != nil {
		return NotifyResult{}, false, err
	}
	if err := checkAttemptID(r.AttemptID); err != nil {
		return NotifyResult{}, false, err
	}
	s.clampPoll(&r.BornTime, &r.PollTime)
	return s.runNotify(&r, wake)
}

func (s *Service) runNotify(r *NotifyRequest, wake func(NotifyResult)) (NotifyResult, bool, error) {
	if s.hasMessage(r) {
		return NotifyResult{HasMsg: true}, false, nil
	}
	h := &hold{key: pollKey{r.Topic, r.Group, r.QueueID}, topics: []string{r.Topic, RetryTopic(r.Group, r.Topic)},
		connID: r.ConnID, deadline: r.BornTime + r.PollTime, run: func(final bool) { s.renotify(r, wake, final) }}
	if r.PollTime <= 0 || wake == nil {
		return NotifyResult{}, false, nil
	}
	switch s.polls.add(h, s.nowMs()) {
	case holdOK:
		return NotifyResult{}, true, nil
	case holdFull:
		return NotifyResult{PollingFull: true}, false, nil
	}
	return NotifyResult{}, false, nil
}

func (s *Service) renotify(r *NotifyRequest, wake func(NotifyResult), final bool) {
	if final {
		wake(NotifyResult{HasMsg: s.hasMessage(r)})
		return
	}
	res, held, _ := s.runNotify(r, wake)
	if !held {
		wake(res)
	}
}

// hasMessage is Java's hasMsgFromTopic and hasMsgFromQueue: the retry topic first one time in
// five, the topic's queues (or the one asked), then the retry topic.
func (s *Service) hasMessage(r *NotifyRequest) bool {
	randQ := s.rand(100)
	retry := RetryTopic(r.Group, r.Topic)
	retryFirst := randQ%5 == 0
	if retryFirst && s.topicHasMessage(retry, r, randQ) {
		return true
	}
	if r.QueueID < 0 {
		if s.topicHasMessage(r.Topic, r, randQ) {
			return true
		}
	} else if s.queueHasMessage(r.Topic, r, r.QueueID) {
		return true
	}
	return !retryFirst && s.topicHasMessage(retry, r, randQ)
}

func (s *Service) topicHasMessage(topic string, r *NotifyRequest, randQ int) bool {
	tc, ok := s.Deps.Topics.Get(topic)
	if !ok {
		return false
	}
	for i := range tc.ReadQueueNums {
		if s.queueHasMessage(topic, r, int32((randQ+i)%tc.ReadQueueNums)) {
			return true
		}
	}
	return false
}

func (s *Service) queueHasMessage(topic string, r *NotifyRequest, q int32) bool {
	if r.Order && s.orders.blocked(r.AttemptID, r.Topic, r.Group, q, 0, s.nowMs()) {
		return false
	}
	return s.Deps.Store.MaxOffsetInQueue(topic, q)-s.peekOffset(topic, r.Group, q) > 0
}

// PollingInfo is the number of POP_MESSAGE requests held for a group's topic and queue.
func (s *Service) PollingInfo(group, topic string, q int32, connID uint64) (int, error) {
	if err := s.checkRead(group, topic, q, connID); err != nil {
		return 0, err
	}
	return s.polls.pops(pollKey{topic, group, q}), nil
}
