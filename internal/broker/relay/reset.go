package relay

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Offsets holds the groups' committed offsets.
type Offsets interface {
	Query(group, topic string, queueID int32) (int64, bool)
	Commit(group, topic string, queueID int32, offset int64)
}

// Store finds queue offsets.
type Store interface {
	MinOffsetInQueue(topic string, queueID int32) int64
	MaxOffsetInQueue(topic string, queueID int32) int64
	OffsetInQueueByTime(topic string, queueID int32, ts int64) int64
}

// Topics looks topics up.
type Topics interface {
	Get(topic string) (body.TopicConfig, bool)
}

// ResetRequest asks to move a group's offsets on every queue of a topic to the offset of a point
// in time (-1: the end), or, as RocketMQ 5 asks, on one queue to an offset or a point in time.
type ResetRequest struct {
	Topic     string
	Group     string
	Timestamp int64
	Force     bool
	// QueueID, when set and not negative, resets that queue only: to Offset when it is set and
	// not -1, else to Timestamp's offset (a negative timestamp: the end).
	QueueID *int32
	Offset  *int64
	// Language is the requester's client language: Java tells the members in the C++ client's
	// encoding when a C++ tool asks.
	Language string
	// From names the requester for the log.
	From string
}

// ResetNotice tells a member its group's new offsets.
type ResetNotice struct {
	ResetRequest
	Offsets map[body.MessageQueue]int64
}

// ResetOffset moves a group's offsets (Java Broker2Client.resetOffset) and returns the new ones.
//
// For each queue (0..writeQueueNums-1, as Java counts them) the target is the max offset when the
// timestamp is -1, else the store's offset for the timestamp; policy.ResetTarget keeps a queue
// from moving forward unless forced. A queue without a committed offset fails the request, as in
// Java. With nobody of the group online the answer is ConsumerNotOnline and nothing changes
// (Java's admin tool then falls back to UPDATE_CONSUMER_OFFSET per queue). Otherwise the offsets
// are committed here (so a consumer that starts or rebalances reads them; Java leaves that to
// the clients) and every member is told.
func (s *Service) ResetOffset(r ResetRequest) (map[body.MessageQueue]int64, error) {
	if err := s.checkResetNames(r.Topic, r.Group); err != nil {
		return nil, err
	}
	if r.QueueID != nil && *r.QueueID >= 0 {
		return s.resetQueue(r, *r.QueueID)
	}
	table, err := s.resetTargets(r)
	if err != nil {
		return nil, err
	}
	members := s.Consumers.Channels(r.Group)
	if len(members) == 0 {
		return nil, outcome.Errorf(outcome.ConsumerNotOnline,
			"Consumer not online, so can not reset offset, Group: %s Topic: %s Timestamp: %d", r.Group, r.Topic, r.Timestamp)
	}
	if err := requireClientVersion(members); err != nil {
		return nil, err
	}
	for mq, off := range table {
		s.Offsets.Commit(r.Group, r.Topic, mq.QueueID, off)
	}
	s.tellReset(members, ResetNotice{ResetRequest: r, Offsets: table})
	return table, nil
}

// checkResetNames refuses a topic or group that is not a valid name: a reset commits offsets
// under them.
func (s *Service) checkResetNames(topic, group string) error {
	if err := names.Topic(topic); err != nil {
		return outcome.Errorf(outcome.TopicNotExist, "%v", err)
	}
	if err := names.Group(group); err != nil {
		return outcome.Errorf(outcome.GroupNotExist, "%v", err)
	}
	return nil
}

// groupExists refuses a group the broker does not have (Java's resetOffsetInner): one queue's
// reset needs nobody online, so without it any group name would get an offset.
func (s *Service) groupExists(group string) error {
	if s.Groups == nil {
		return nil
	}
	if _, ok := s.Groups.Get(group); !ok {
		return outcome.Errorf(outcome.GroupNotExist, "Group %s does not exist", group)
	}
	return nil
}

// resetQueue moves a group's offset of one queue (RocketMQ 5's resetOffsetInner for a queue id):
// to the offset asked for, which must lie in the queue, or to the timestamp's offset; unlike the
// whole-topic reset it needs nobody online and moves back or forth. It is committed here, and
// online members are told of that queue alone.
func (s *Service) resetQueue(r ResetRequest, q int32) (map[body.MessageQueue]int64, error) {
	tc, ok := s.Topics.Get(r.Topic)
	if !ok {
		return nil, outcome.Errorf(outcome.TopicNotExist, "Topic %s does not exist", r.Topic)
	}
	if err := s.groupExists(r.Group); err != nil {
		return nil, err
	}
	if int(q) >= max(tc.ReadQueueNums, tc.WriteQueueNums) {
		return nil, outcome.Errorf(outcome.SystemError, "queue %d of topic %s does not exist", q, r.Topic)
	}
	target, err := s.queueTarget(r, q)
	if err != nil {
		return nil, err
	}
	s.Offsets.Commit(r.Group, r.Topic, q, target)
	table := map[body.MessageQueue]int64{{Topic: r.Topic, BrokerName: s.opts.BrokerName, QueueID: q}: target}
	if members := s.Consumers.Channels(r.Group); len(members) > 0 {
		s.tellReset(members, ResetNotice{ResetRequest: r, Offsets: table})
	}
	return table, nil
}

// queueTarget is where resetQueue moves the queue's offset.
func (s *Service) queueTarget(r ResetRequest, q int32) (int64, error) {
	if r.Offset != nil && *r.Offset != -1 {
		lo, hi := s.Store.MinOffsetInQueue(r.Topic, q), s.Store.MaxOffsetInQueue(r.Topic, q)
		if off := *r.Offset; lo >= 0 && off < lo || off > hi {
			return 0, outcome.Errorf(outcome.SystemError, "Target offset %d not in consume queue range [%d-%d]", off, lo, hi)
		}
		return *r.Offset, nil
	}
	if r.Timestamp < 0 {
		return s.Store.MaxOffsetInQueue(r.Topic, q), nil
	}
	return s.Store.OffsetInQueueByTime(r.Topic, q, r.Timestamp), nil
}

// resetTargets computes the offset each queue of the topic is reset to.
func (s *Service) resetTargets(r ResetRequest) (map[body.MessageQueue]int64, error) {
	tc, ok := s.Topics.Get(r.Topic)
	if !ok {
		return nil, outcome.Errorf(outcome.SystemError, "[reset-offset] reset offset failed, no topic in this broker. topic=%s", r.Topic)
	}
	table := make(map[body.MessageQueue]int64, tc.WriteQueueNums)
	for q := range int32(tc.WriteQueueNums) {
		committed, ok := s.Offsets.Query(r.Group, r.Topic, q)
		if !ok {
			return nil, outcome.Errorf(outcome.SystemError,
				"The consumer group <%s> not exist: it has no committed offset on queue %d of topic %s", r.Group, q, r.Topic)
		}
		target := s.Store.MaxOffsetInQueue(r.Topic, q)
		if r.Timestamp != -1 {
			target = s.Store.OffsetInQueueByTime(r.Topic, q, r.Timestamp)
		}
		table[body.MessageQueue{Topic: r.Topic, BrokerName: s.opts.BrokerName, QueueID: q}] = policy.ResetTarget(target, committed, r.Force)
	}
	return table, nil
}

func (s *Service) tellReset(members []client.ClientChannel, n ResetNotice) {
	for _, m := range members {
		if err := s.Clients.ResetOffset(m.Channel, n); err != nil {
			s.lg.Warn("reset offset: notify consumer failed", zap.String("group", n.Group),
				zap.String("client", m.ClientID), zap.Error(err))
		}
	}
	s.lg.Info("consumer offsets reset", zap.String("topic", n.Topic), zap.String("group", n.Group),
		zap.Int64("timestamp", n.Timestamp), zap.Bool("force", n.Force), zap.Int("consumers", len(members)),
		zap.String("from", n.From))
}

// statusReply is one member's answer to ConsumerStatus.
type statusReply struct {
	clientID string
	table    map[body.MessageQueue]int64
}

// ConsumerStatus asks the group's members (or only the one whose client id is only, when it is
// not empty) in parallel for the offsets they hold of a topic (Java Broker2Client.getConsumeStatus)
// and returns them by client id. Members that fail to answer, or cannot be called, are left out.
func (s *Service) ConsumerStatus(ctx context.Context, topic, group, only string) (map[string]map[body.MessageQueue]int64, error) {
	members := s.Consumers.Channels(group)
	if len(members) == 0 {
		return nil, outcome.Errorf(outcome.SystemError, "No Any Consumer online in the consumer group: [%s]", group)
	}
	if err := requireClientVersion(members); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	replies := make(chan statusReply, len(members))
	asked := 0
	for _, m := range members {
		if (only == "" || only == m.ClientID) && s.calls.Go(func(<-chan struct{}) { replies <- s.askStatus(ctx, m, topic, group) }) {
			asked++
		}
	}
	tables := map[string]map[body.MessageQueue]int64{}
	for range asked {
		if r := <-replies; r.table != nil {
			tables[r.clientID] = r.table
		}
	}
	return tables, nil
}

// askStatus asks one member; a call that fails (or panics: it runs on a goroutine of its own,
// started from a request) yields no table. The call ends within ctx's timeout, so a stopping
// service waits for it rather than cancelling it.
func (s *Service) askStatus(ctx context.Context, m client.ClientChannel, topic, group string) (reply statusReply) {
	defer func() {
		if v := recover(); v != nil {
			s.lg.Error("get consumer status panicked", zap.String("group", group), zap.String("client", m.ClientID),
				zap.Any("panic", v), zap.Stack("stack"))
			reply = statusReply{clientID: m.ClientID}
		}
	}()
	table, err := s.Clients.ConsumerStatus(ctx, m.Channel, topic, group)
	if err != nil {
		if !errors.Is(err, ErrNotCallable) {
			s.lg.Warn("get consumer status failed", zap.String("group", group), zap.String("client", m.ClientID), zap.Error(err))
		}
		return statusReply{clientID: m.ClientID}
	}
	return statusReply{clientID: m.ClientID, table: table}
}
