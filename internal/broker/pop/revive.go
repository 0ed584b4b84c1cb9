package pop

import (
	"time"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// reviveResult is what became of one message a revive handled.
type reviveResult int

const (
	revived reviveResult = iota // stored in the retry topic or the DLQ
	gone                        // no longer in its queue (cleaned up): nothing to revive
	failed                      // the store did not take it; try again at the next tick
)

// reviveLoop revives due checkpoints and commits the revive offsets every ReviveInterval.
func (s *Service) reviveLoop(stop <-chan struct{}) {
	t := time.NewTicker(s.opts.ReviveInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.reviveDue()
			s.commitReviveOffsets()
		}
	}
}

// reviveDue revives every checkpoint whose invisible time is over.
func (s *Service) reviveDue() {
	for _, c := range s.cks.due(s.nowMs()) {
		if !s.revive(c) {
			s.cks.unmark(c)
		}
	}
}

// revive stores the next attempt of each unsettled message of c, then a revived record for them,
// which settles c. A message the store refused stops the revive; it is retried at the next tick
// (the messages already stored are settled, so none is stored twice).
func (s *Service) revive(c *checkpoint) bool {
	var done []int64
	complete := true
	for _, off := range s.cks.unsettledOfCk(c) {
		r := s.reviveOne(c, off)
		if r == failed {
			complete = false
			break
		}
		done = append(done, off)
	}
	if len(done) > 0 {
		if _, ok := s.settle(kindRevived, c.key, done); !ok {
			return false
		}
	}
	return complete
}

// reviveOne stores the next attempt of one message of c.
func (s *Service) reviveOne(c *checkpoint, off int64) reviveResult {
	got := s.Deps.Store.GetMessage(systopic.ReviveGroup, c.topic, c.queueID, off, 1, nil)
	if got == nil {
		return failed
	}
	defer got.Release()
	if got.Status != store.Found || got.QueueOffsets[0] != off {
		return gone
	}
	v, err := message.Parse(got.Records[0])
	if err != nil {
		return gone
	}
	dlq := s.exhausted(c.group, v.ReconsumeTimes())
	m := s.nextAttempt(c, v, dlq)
	s.createDestination(m.Topic, c.group, dlq)
	res := s.Deps.Store.PutMessage(&m)
	if !res.Status.Stored() {
		s.lg.Warn("revive: the retry message was not stored", zap.String("topic", m.Topic), zap.Stringer("status", res.Status))
		return failed
	}
	return revived
}

// exhausted reports whether a message reconsumed this often goes to the DLQ: the group's
// retryMaxTimes, decided by policy.RetryOrDLQ as for a send-back.
func (s *Service) exhausted(group string, reconsumeTimes int32) bool {
	gc, ok := s.Deps.Groups.FindOrCreate(group)
	if !ok {
		gc = body.NewSubscriptionGroupConfig(group)
	}
	return policy.RetryOrDLQ(policy.Failure{ReconsumeTimes: reconsumeTimes, RequestMax: -1, GroupMax: gc.RetryMaxTimes}).DLQ
}

// createDestination creates a retry or DLQ topic of one queue when it does not exist (Java
// addRetryTopicIfNotExist); a new retry topic starts its group at offset 0.
func (s *Service) createDestination(topic, group string, dlq bool) {
	tc := body.NewTopicConfig(topic)
	tc.ReadQueueNums, tc.WriteQueueNums = 1, 1
	tc.Perm = body.PermRead | body.PermWrite
	if _, created := s.Deps.Topics.CreateTopicIfAbsent(tc); created && !dlq {
		if _, ok := s.Deps.Offsets.Query(group, topic, 0); !ok {
			s.Deps.Offsets.Commit(group, topic, 0, 0)
		}
	}
}

// commitReviveOffsets commits, for each revive queue, the offset below which every record is
// settled: recovery reads from there.
func (s *Service) commitReviveOffsets() {
	safe := s.cks.safeOffsets(func(q int32) int64 { return s.Deps.Store.MaxOffsetInQueue(s.reviveTopic, q) })
	for q, off := range safe {
		s.Deps.Offsets.Commit(systopic.ReviveGroup, s.reviveTopic, int32(q), off)
	}
}
