// Package membership keeps track of which clients are in which producer and consumer groups:
// heartbeats register them (and create a consumer group's retry topic), unregistering or a closed
// connection removes them, and when a consumer group changes its remaining members are told to
// rebalance, unless the group turned that off. Telling a client is per protocol: the Notifier the
// adapter supplies does it.
//
// A heartbeat is checked before anything of it is kept: its client id, groups and topics must be
// valid names, and it may create at most MaxNewGroupsPerRequest groups (and their retry topics),
// which are written to the config files at once and are durable when it is answered.
package membership

import (
	"errors"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// Groups finds (or auto-creates) consumer groups: many at once for a heartbeat, for its
// connection (whose creations are counted), with one write of the file.
type Groups interface {
	Missing(groups []string) []string
	FindOrCreateMany(owner uint64, groups []string) (map[string]body.SubscriptionGroupConfig, error)
	Get(group string) (body.SubscriptionGroupConfig, bool)
}

// Topics creates retry topics, many at once with one write of the file.
type Topics interface {
	CreateAllIfAbsent(tcs []body.TopicConfig, why string) error
}

// DefaultMaxNewGroupsPerRequest is maxNewGroupsPerRequest's default.
const DefaultMaxNewGroupsPerRequest = 100

// Options are the broker settings membership depends on.
type Options struct {
	// MaxNewGroupsPerRequest bounds the consumer groups one heartbeat may create; 0 is
	// DefaultMaxNewGroupsPerRequest.
	MaxNewGroupsPerRequest int
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

// Service keeps the groups' membership.
type Service struct {
	opts Options
	Deps
	lg *zap.Logger
}

// New returns a Service.
func New(opts Options, deps Deps, lg *zap.Logger) *Service {
	if opts.MaxNewGroupsPerRequest <= 0 {
		opts.MaxNewGroupsPerRequest = DefaultMaxNewGroupsPerRequest
	}
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Service{opts: opts, Deps: deps, lg: lg}
}

// Heartbeat registers the client on ch in the groups its heartbeat names, creating the consumer
// groups it may (and their retry topics) in one write of each config file. A heartbeat with a
// name that is not valid, or naming more new groups than one request or its connection may
// create, is refused (SystemError saying what) and changes nothing.
func (s *Service) Heartbeat(ch client.ClientChannel, hb body.HeartbeatData) error {
	groups, err := checkHeartbeat(&hb)
	if err != nil {
		return err
	}
	if missing := s.Groups.Missing(groups); len(missing) > s.opts.MaxNewGroupsPerRequest {
		return outcome.Errorf(outcome.SystemError, "the heartbeat names %d consumer groups this broker does not have; one request may "+
			"create at most %d (maxNewGroupsPerRequest)", len(missing), s.opts.MaxNewGroupsPerRequest)
	}
	if err := s.createGroups(ch.Channel.ID(), groups); err != nil {
		return err
	}
	for _, cd := range hb.ConsumerDataSet {
		if s.Consumers.Register(cd.GroupName, ch, cd) {
			s.lg.Info("consumer group changed", zap.String("group", cd.GroupName), zap.String("client", hb.ClientID))
		}
	}
	for _, pd := range hb.ProducerDataSet {
		s.Producers.Register(pd.GroupName, ch)
	}
	return nil
}

// checkHeartbeat checks every name of a heartbeat and returns its consumer groups, once each.
func checkHeartbeat(hb *body.HeartbeatData) ([]string, error) {
	if err := names.ClientID(hb.ClientID); err != nil {
		return nil, outcome.Errorf(outcome.SystemError, "bad heartbeat: %v", err)
	}
	var groups []string
	seen := make(map[string]bool, len(hb.ConsumerDataSet))
	for _, cd := range hb.ConsumerDataSet {
		if err := names.Group(cd.GroupName); err != nil {
			return nil, outcome.Errorf(outcome.SystemError, "bad heartbeat: consumer group: %v", err)
		}
		for _, sd := range cd.SubscriptionDataSet {
			if err := names.Topic(sd.Topic); err != nil {
				return nil, outcome.Errorf(outcome.SystemError, "bad heartbeat: group %s subscribes to %s: %v", cd.GroupName,
					names.Quote(sd.Topic), err)
			}
		}
		if !seen[cd.GroupName] {
			seen[cd.GroupName] = true
			groups = append(groups, cd.GroupName)
		}
	}
	for _, pd := range hb.ProducerDataSet {
		if err := names.Group(pd.GroupName); err != nil {
			return nil, outcome.Errorf(outcome.SystemError, "bad heartbeat: producer group: %v", err)
		}
	}
	return groups, nil
}

// createGroups finds or creates the heartbeat's consumer groups for the connection owner, and
// their retry topics, each file written once.
func (s *Service) createGroups(owner uint64, groups []string) error {
	found, err := s.Groups.FindOrCreateMany(owner, groups)
	var qe *subscription.QuotaError
	if errors.As(err, &qe) {
		return outcome.Errorf(outcome.SystemError, "the heartbeat's new consumer groups are refused: %v", qe.Err)
	}
	if err != nil {
		return outcome.Errorf(outcome.SystemError, "creating the heartbeat's consumer groups: %v", err)
	}
	retry := make([]body.TopicConfig, 0, len(found))
	for _, g := range groups {
		if cfg, ok := found[g]; ok {
			tc := body.NewTopicConfig(systopic.Retry(g))
			tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = cfg.RetryQueueNums, cfg.RetryQueueNums, body.PermRead|body.PermWrite
			retry = append(retry, tc)
		}
	}
	if err := s.Topics.CreateAllIfAbsent(retry, "heartbeat"); err != nil {
		return outcome.Errorf(outcome.SystemError, "creating the heartbeat's retry topics: %v", err)
	}
	return nil
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

// GroupChanged tells a consumer group's remaining members to rebalance, unless the group turned
// notification off (notifyConsumerIdsChangedEnable).
func (s *Service) GroupChanged(group string, remaining []client.ClientChannel) {
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
