package groupadmin

import (
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/names"
)

// Config is one group's config (GET_SUBSCRIPTIONGROUP_CONFIG).
func (s *Service) Config(group string) (body.SubscriptionGroupConfig, error) {
	if err := names.Group(group); err != nil {
		return body.SubscriptionGroupConfig{}, outcome.Errorf(outcome.SystemError, "%v", err)
	}
	cfg, ok := s.groups.Get(group)
	if !ok {
		return cfg, outcome.Errorf(outcome.GroupNotExist, "No group in this broker")
	}
	return cfg, nil
}

// MaxListEntries bounds the groups of one UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST.
const MaxListEntries = 1000

// UpdateList creates or replaces several groups (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST): at
// most MaxListEntries; a config without a valid name refuses the whole list before anything is
// written; all are written with one write of the file.
func (s *Service) UpdateList(list []body.SubscriptionGroupConfig, from string) error {
	if err := s.Writable(); err != nil {
		return err
	}
	if len(list) == 0 {
		return outcome.Errorf(outcome.SystemError, "the subscription group config list is empty")
	}
	if len(list) > MaxListEntries {
		return outcome.Errorf(outcome.SystemError, "the subscription group config list holds %d groups, more than %d",
			len(list), MaxListEntries)
	}
	for _, cfg := range list {
		if cfg.GroupName == "" {
			return outcome.Errorf(outcome.SystemError, "a SubscriptionGroupConfig of the list has no groupName")
		}
		if err := names.Group(cfg.GroupName); err != nil {
			return outcome.Errorf(outcome.SystemError, "%v", err)
		}
	}
	if err := s.groups.PutAll(list); err != nil {
		return err
	}
	s.lg.Info("subscription groups updated by admin", zap.Int("groups", len(list)), zap.String("from", from))
	return nil
}
