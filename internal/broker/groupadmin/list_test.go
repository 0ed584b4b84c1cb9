package groupadmin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func (f *fakeGroups) Get(group string) (body.SubscriptionGroupConfig, bool) {
	cfg, ok := f.cfgs[group]
	return cfg, ok
}

func TestConfigAndUpdateList(t *testing.T) {
	groups := &fakeGroups{cfgs: map[string]body.SubscriptionGroupConfig{}}
	s := New(Options{}, groups, &fakeOffsets{}, nil)
	g1, g2 := body.NewSubscriptionGroupConfig("G1"), body.NewSubscriptionGroupConfig("G2")
	g2.RetryMaxTimes = 3
	require.NoError(t, s.UpdateList([]body.SubscriptionGroupConfig{g1, g2}, ""))
	cfg, err := s.Config("G2")
	require.NoError(t, err)
	require.Equal(t, g2, cfg)
	_, err = s.Config("Nope")
	require.Equal(t, &outcome.Error{Kind: outcome.GroupNotExist, Remark: "No group in this broker"}, err)

	err = s.UpdateList([]body.SubscriptionGroupConfig{body.NewSubscriptionGroupConfig("G3"), {}}, "")
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "a SubscriptionGroupConfig of the list has no groupName"}, err)
	require.NotContains(t, groups.cfgs, "G3", "a bad config changes nothing")
	require.Error(t, s.UpdateList(nil, ""))

	slave := New(Options{Slave: true}, groups, &fakeOffsets{}, nil)
	require.Equal(t, slaveRefusal, slave.UpdateList([]body.SubscriptionGroupConfig{g1}, ""))
}
