// Package membership keeps track of which clients are in which producer and consumer groups:
// heartbeats register them (and create a consumer group's retry topic), unregistering or a closed
// connection removes them, and when a consumer group changes its remaining members are told to
// rebalance, unless the group turned that off. Telling a client is per protocol: the Notifier the
// adapter supplies does it.
package membership

import (
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Groups finds (or auto-creates) consumer groups.
type Groups interface {
	FindOrCreate(group string) (body.SubscriptionGroupConfig, bool)
	Get(group string) (body.SubscriptionGroupConfig, bool)
}

// Topics creates retry topics.
type Topics interface {
	CreateTopicInSendMessageBack(topic string, queueNums, perm, sysFlag int) body.TopicConfig
}

// Consumers holds the consumer groups' members.
type Consumers interface {
	Register(group string, ch client.ClientChannel, d body.ConsumerData) bool
	Unregister(group string, chID uint64)
	ClientIDs(group string) []string
	ConnClosed(chID uint64)
}

// Producers holds the producer groups' members.
type Producers interface {
	Register(group string, ch client.ClientChannel)
	Unregister(group string, chID uint64)
	ConnClosed(chID uint64)
}

// Notifier tells a client, on the protocol it connected with, that its consumer group changed.
type Notifier interface {
	NotifyConsumerIDsChanged(ch client.Channel, group string) error
}

// Deps are what the service works with.
type Deps struct {
	Groups    Groups
	Topics    Topics
	Consumers Consumers
	Producers Producers
	Notifier  Notifier
}

// Options are the broker settings membership depends on.
type Options struct {
	// NotifyConsumerIdsChangedDisabled is notifyConsumerIdsChangedEnable=false: no group's members
	// are told of its changes (each group can turn it off too).
	NotifyConsumerIdsChangedDisabled bool
}

// Service keeps the groups' membership.
type Service struct {
	opts Options
	Deps
	lg *zap.Logger
}

// New returns a Service.
func New(opts Options, deps Deps, lg *zap.Logger) *Service {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Service{opts: opts, Deps: deps, lg: lg}
}

// Heartbeat registers the client on ch in the groups its heartbeat names, creating each consumer
// group's retry topic.
func (s *Service) Heartbeat(ch client.ClientChannel, hb body.HeartbeatData) {
	for _, cd := range hb.ConsumerDataSet {
		if cfg, ok := s.Groups.FindOrCreate(cd.GroupName); ok {
			perm := body.PermRead | body.PermWrite
			s.Topics.CreateTopicInSendMessageBack(systopic.Retry(cd.GroupName), cfg.RetryQueueNums, perm, 0)
		}
		if s.Consumers.Register(cd.GroupName, ch, cd) {
			s.lg.Info("consumer group changed", zap.String("group", cd.GroupName), zap.String("client", hb.ClientID))
		}
	}
	for _, pd := range hb.ProducerDataSet {
		s.Producers.Register(pd.GroupName, ch)
	}
}

// Unregister removes the client on connection chID from a producer group and a consumer group;
// an empty name leaves that kind of group alone.
func (s *Service) Unregister(chID uint64, producerGroup, consumerGroup string) {
	if producerGroup != "" {
		s.Producers.Unregister(producerGroup, chID)
	}
	if consumerGroup != "" {
		s.Consumers.Unregister(consumerGroup, chID)
	}
}

// ConsumerIDs lists the client ids of a consumer group's members.
func (s *Service) ConsumerIDs(group string) ([]string, error) {
	ids := s.Consumers.ClientIDs(group)
	if len(ids) == 0 {
		return nil, outcome.Errorf(outcome.SystemError, "no consumer for this group, %s", group)
	}
	return ids, nil
}

// ConnClosed ends the memberships of a closed connection (the Go client never unregisters).
func (s *Service) ConnClosed(chID uint64) {
	s.Consumers.ConnClosed(chID)
	s.Producers.ConnClosed(chID)
}

// GroupChanged tells a consumer group's remaining members to rebalance, unless the broker or the
// group turned notification off (notifyConsumerIdsChangedEnable).
func (s *Service) GroupChanged(group string, remaining []client.ClientChannel) {
	if s.opts.NotifyConsumerIdsChangedDisabled {
		return
	}
	if cfg, ok := s.Groups.Get(group); ok && !cfg.NotifyConsumerIdsChangedEnable {
		return
	}
	for _, ch := range remaining {
		if err := s.Notifier.NotifyConsumerIDsChanged(ch.Channel, group); err != nil {
			s.lg.Debug("notify consumer ids changed failed", zap.String("group", group),
				zap.String("client", ch.ClientID), zap.Error(err))
		}
	}
}
