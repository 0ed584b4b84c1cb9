package pop

import (
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// AckRequest is one ACK_MESSAGE: the message's topic as popped (its retry topic for a message
// popped from one), queue and offset, and its POP_CK.
type AckRequest struct {
	Group     string
	Topic     string
	QueueID   int32
	ExtraInfo string
	Offset    int64
	ConnID    uint64 // a group a change auto-creates counts against this connection
}

// Ack settles one popped message: once the ack record is in the revive log the message is never
// revived. An ack of a message already settled, or of a checkpoint already revived, changes
// nothing and succeeds, as in Java.
func (s *Service) Ack(r AckRequest) error {
	if err := checkNames(r.Group, r.Topic); err != nil {
		return err
	}
	if err := s.checkAckTarget(r.Topic, r.QueueID, r.Offset, true); err != nil {
		return err
	}
	e, err := protocol.ParseExtraInfo(r.ExtraInfo)
	if err != nil {
		return outcome.Errorf(outcome.MessageIllegal, "%v: %s", err, names.Quote(r.ExtraInfo))
	}
	if e.ReviveQid == OrderReviveQid {
		return s.ackOrderly(r.Topic, r.Group, r.QueueID, r.Offset, e.PopTime)
	}
	k := key{topic: r.Topic, group: r.Group, queueID: r.QueueID, start: e.CkQueueOffset, popTime: e.PopTime}
	offsets := [1]int64{r.Offset}
	if _, ok := s.settle(kindAck, k, offsets[:]); !ok {
		return outcome.Errorf(outcome.SystemError, "put ack msg error: the revive log did not take the ack")
	}
	return nil
}

// checkAckTarget is Java's checks of an ack or an invisible-time change: the topic exists, the
// queue is one of its read queues, and the offset lies in the queue (up to its max offset
// inclusive for an ack, exclusive for a change).
func (s *Service) checkAckTarget(topic string, q int32, offset int64, inclusive bool) error {
	if !s.ready.Load() {
		return outcome.Errorf(outcome.NoPermission, "the broker[%s] is a slave or not started: POP needs the master", s.opts.BrokerName)
	}
	tc, ok := s.Deps.Topics.Get(topic)
	if !ok {
		return outcome.Errorf(outcome.TopicNotExist, "topic[%s] not exist, apply first please!", topic)
	}
	if q < 0 || q >= int32(tc.ReadQueueNums) {
		return outcome.Errorf(outcome.MessageIllegal, "queueId[%d] is illegal, topic:[%s] topicConfig.readQueueNums:[%d]",
			q, topic, tc.ReadQueueNums)
	}
	lo, hi := s.Deps.Store.MinOffsetInQueue(topic, q), s.Deps.Store.MaxOffsetInQueue(topic, q)
	if offset < lo || offset > hi || (!inclusive && offset == hi) {
		return outcome.Errorf(outcome.NoMessage, "offset is illegal, key:%s@%d, commit:%d, store:%d~%d", topic, q, offset, lo, hi)
	}
	return nil
}

// MaxBatchAcks bounds the entries of one BATCH_ACK_MESSAGE (each names one checkpoint; a client
// batches the acks of a few pops).
const MaxBatchAcks = 1024

// BatchAck settles the messages of BATCH_ACK_MESSAGE's entries. Offsets outside their queue and
// entries of unknown queues are skipped, as Java skips them; an empty batch is NO_MESSAGE.
func (s *Service) BatchAck(acks []body.BatchAck) error {
	if !s.ready.Load() {
		return outcome.Errorf(outcome.NoPermission, "the broker[%s] is a slave or not started: POP needs the master", s.opts.BrokerName)
	}
	if len(acks) == 0 {
		return outcome.Errorf(outcome.NoMessage, "the batch holds no ack")
	}
	if len(acks) > MaxBatchAcks {
		return outcome.Errorf(outcome.InvalidParameter, "the batch holds %d acks, more than %d", len(acks), MaxBatchAcks)
	}
	for i := range acks { // every name before any ack: a refused batch settles nothing
		if err := checkNames(acks[i].ConsumerGroup, acks[i].Topic); err != nil {
			return err
		}
	}
	for i := range acks {
		if err := s.batchAckOne(&acks[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) batchAckOne(a *body.BatchAck) error {
	mark := protocol.RetryMarkNormal
	if len(a.Retry) == 1 {
		mark = a.Retry[0]
	}
	topic := protocol.RealTopic(a.Topic, a.ConsumerGroup, mark)
	lo, hi := s.Deps.Store.MinOffsetInQueue(topic, a.QueueID), s.Deps.Store.MaxOffsetInQueue(topic, a.QueueID)
	if lo < 0 || hi <= 0 {
		return nil
	}
	var offsets []int64
	a.BitSet.Bits(func(i int) bool {
		if off := a.StartOffset + int64(i); off >= lo && off <= hi {
			offsets = append(offsets, off)
		}
		return true
	})
	if a.ReviveQueueID == OrderReviveQid {
		for _, off := range offsets {
			if err := s.ackOrderly(topic, a.ConsumerGroup, a.QueueID, off, a.PopTime); err != nil {
				return err
			}
		}
		return nil
	}
	k := key{topic: topic, group: a.ConsumerGroup, queueID: a.QueueID, start: a.StartOffset, popTime: a.PopTime}
	if _, ok := s.settle(kindAck, k, offsets); !ok {
		return outcome.Errorf(outcome.SystemError, "put ack msg error: the revive log did not take the ack")
	}
	return nil
}

// ackOrderly acknowledges an orderly message: the group's offset moves past the acknowledged
// prefix of the queue's last pop, and a held pop of the queue is woken when it is free again.
func (s *Service) ackOrderly(topic, group string, q int32, offset, popTime int64) error {
	if old, ok := s.Deps.Offsets.Query(group, topic, q); ok && offset < old {
		return nil
	}
	lk := lockKey{topic, group, q}
	s.locks.lock(lk)
	defer s.locks.unlock(lk)
	if old, ok := s.Deps.Offsets.Query(group, topic, q); ok && offset < old {
		return nil
	}
	next := s.orders.commitAndNext(topic, group, q, offset, popTime)
	switch {
	case next >= 0:
		s.Deps.Offsets.Commit(group, topic, q, next)
		if !s.orders.blocked("", topic, group, q, 0, s.nowMs()) {
			s.polls.notify(topic, q)
		}
	case next == -1:
		return outcome.Errorf(outcome.MessageIllegal, "offset is illegal, key:%s@%s@%d, commit:%d, next:%d", topic, group, q, offset, next)
	}
	return nil
}

// ChangeRequest is one CHANGE_MESSAGE_INVISIBLETIME.
type ChangeRequest struct {
	AckRequest
	InvisibleTime int64 // ms, from now
}

// ChangeResult is the new pop time and invisible time, from which the client builds the
// message's new POP_CK (its checkpoint now starts at the message's own offset).
type ChangeResult struct {
	PopTime       int64
	InvisibleTime int64
	ReviveQid     int32
}

// ChangeInvisibleTime gives a popped message a new invisible time: a checkpoint of just that
// message is written, then the message is acknowledged in its old one (Java
// appendCheckPointThenAckOrigin). An orderly message's next visible time is recorded instead.
func (s *Service) ChangeInvisibleTime(r ChangeRequest) (ChangeResult, error) {
	if err := checkNames(r.Group, r.Topic); err != nil {
		return ChangeResult{}, err
	}
	if err := s.checkAckTarget(r.Topic, r.QueueID, r.Offset, false); err != nil {
		return ChangeResult{}, err
	}
	e, err := protocol.ParseExtraInfo(r.ExtraInfo)
	if err != nil {
		return ChangeResult{}, outcome.Errorf(outcome.MessageIllegal, "%v: %s", err, names.Quote(r.ExtraInfo))
	}
	if e.ReviveQid == OrderReviveQid {
		return s.changeOrderly(r, e), nil
	}
	if err := s.consumableGroup(r.Group, r.ConnID); err != nil {
		return ChangeResult{}, err
	}
	if err := s.checkOutstanding(); err != nil {
		return ChangeResult{}, err
	}
	old := key{topic: r.Topic, group: r.Group, queueID: r.QueueID, start: e.CkQueueOffset, popTime: e.PopTime}
	if !s.holds(old, r.Offset) {
		return ChangeResult{}, outcome.Errorf(outcome.NoMessage,
			"the message %s@%d@%d is not invisible under the checkpoint of extraInfo: acknowledged, revived or never popped",
			r.Topic, r.QueueID, r.Offset)
	}
	now, ok := s.recheckpoint(r, e)
	if !ok {
		return ChangeResult{}, outcome.Errorf(outcome.SystemError, "change invisible time: the revive log did not take the checkpoint")
	}
	offsets := [1]int64{r.Offset}
	if _, ok := s.settle(kindAck, old, offsets[:]); !ok {
		return ChangeResult{}, outcome.Errorf(outcome.SystemError, "change invisible time: the revive log did not take the ack")
	}
	return ChangeResult{PopTime: now, InvisibleTime: r.InvisibleTime, ReviveQid: e.ReviveQid}, nil
}

// holds reports whether checkpoint k still has offset to settle. A change of a message no
// checkpoint holds is refused: each change then replaces an outstanding message by one, so that
// changes cannot fill the table with checkpoints of messages never popped (Java writes one for
// any offset of the queue).
func (s *Service) holds(k key, offset int64) bool {
	var todo pending
	offsets := [1]int64{offset}
	s.cks.unsettledOf(k, offsets[:], &todo)
	return todo.n > 0
}

// recheckpoint writes the one-message checkpoint of a change, under the queue's lock so that its
// key (the pop time moved on by a millisecond while taken) is its own. It returns the pop time.
func (s *Service) recheckpoint(r ChangeRequest, e protocol.ExtraInfo) (int64, bool) {
	lk := lockKey{r.Topic, r.Group, r.QueueID}
	s.locks.lock(lk)
	defer s.locks.unlock(lk)
	ck := &checkpoint{
		key:           key{topic: r.Topic, group: r.Group, queueID: r.QueueID, start: r.Offset, popTime: s.nowMs()},
		invisibleTime: r.InvisibleTime,
		reviveQid:     s.validReviveQid(e.ReviveQid),
		offsets:       []int64{r.Offset},
	}
	for s.cks.has(ck.key) {
		ck.popTime++
	}
	return ck.popTime, s.storeCheckpoint(ck, -1, func() {})
}

// validReviveQid is the client's revive queue id when it names one of the revive queues, else 0.
func (s *Service) validReviveQid(q int32) int32 {
	if q < 0 || q >= int32(s.opts.ReviveQueueNum) {
		return 0
	}
	return q
}

func (s *Service) changeOrderly(r ChangeRequest, e protocol.ExtraInfo) ChangeResult {
	if old, ok := s.Deps.Offsets.Query(r.Group, r.Topic, r.QueueID); ok && r.Offset < old {
		return ChangeResult{}
	}
	lk := lockKey{r.Topic, r.Group, r.QueueID}
	s.locks.lock(lk)
	defer s.locks.unlock(lk)
	visibleAt := s.nowMs() + r.InvisibleTime
	s.orders.changeVisibleTime(r.Topic, r.Group, r.QueueID, r.Offset, e.PopTime, visibleAt)
	return ChangeResult{PopTime: e.PopTime, InvisibleTime: visibleAt - e.PopTime, ReviveQid: e.ReviveQid}
}
