// Package groupadmin changes and lists the broker's consumer group configs for admin tools:
// create or update one, delete one (with its committed offsets when asked), list them all. A
// slave's groups are copies of its master's: it refuses changes.
package groupadmin

import (
	"errors"

	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Groups holds the consumer group configs.
type Groups interface {
	Get(group string) (body.SubscriptionGroupConfig, bool)
	Put(cfg body.SubscriptionGroupConfig) error
	PutAll(list []body.SubscriptionGroupConfig) error
	Delete(group string) (bool, error)
	Wrapper() body.SubscriptionGroupWrapper
}

// Offsets drops a deleted group's committed offsets.
type Offsets interface {
	RemoveGroup(group string) int
}

// Options are the broker settings group admin depends on.
type Options struct {
	Slave bool
}

// Service administers consumer groups.
type Service struct {
	opts    Options
	groups  Groups
	offsets Offsets
	lg      *zap.Logger
}

// New returns a Service.
func New(opts Options, groups Groups, offsets Offsets, lg *zap.Logger) *Service {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Service{opts: opts, groups: groups, offsets: offsets, lg: lg}
}

// Writable refuses changes on a slave (Java validateSlave); adapters ask before they read the
// request, so that a slave says so whatever else is wrong with it.
func (s *Service) Writable() error {
	if s.opts.Slave {
		return outcome.Errorf(outcome.SystemError,
			"Can't modify topic or subscription group from slave broker, please execute it from master broker.")
	}
	return nil
}

// Update creates or replaces a group's config; from names the requester for the log.
func (s *Service) Update(cfg body.SubscriptionGroupConfig, from string) error {
	if err := s.Writable(); err != nil {
		return err
	}
	if cfg.GroupName == "" {
		return outcome.Errorf(outcome.SystemError, "the SubscriptionGroupConfig body has no groupName")
	}
	if err := names.Group(cfg.GroupName); err != nil {
		return outcome.Errorf(outcome.SystemError, "%v", err)
	}
	if err := s.groups.Put(cfg); err != nil {
		if errors.Is(err, subscription.ErrEmptyGroupName) {
			return outcome.Errorf(outcome.SystemError, "the SubscriptionGroupConfig body has no groupName")
		}
		return err
	}
	s.lg.Info("subscription group updated by admin", zap.String("group", cfg.GroupName), zap.String("from", from))
	return nil
}

// Delete removes a group's config and, with removeOffsets, its committed offsets on every topic.
// Deleting a group that does not exist succeeds, as in Java.
func (s *Service) Delete(group string, removeOffsets bool, from string) error {
	if err := s.Writable(); err != nil {
		return err
	}
	if err := names.Group(group); err != nil {
		return outcome.Errorf(outcome.SystemError, "%v", err)
	}
	existed, err := s.groups.Delete(group)
	if err != nil {
		return err
	}
	removed := 0
	if removeOffsets {
		removed = s.offsets.RemoveGroup(group)
	}
	s.lg.Info("subscription group deleted by admin", zap.String("group", group), zap.Bool("existed", existed),
		zap.Int("offsetTopicsRemoved", removed), zap.String("from", from))
	return nil
}

// All is every group's config (subscriptionGroup.json's content).
func (s *Service) All() body.SubscriptionGroupWrapper { return s.groups.Wrapper() }
