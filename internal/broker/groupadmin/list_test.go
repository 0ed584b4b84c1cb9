package groupadmin

import (
	"fmt"
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

// TestUpdateListIsBounded: a list of more than MaxListEntries groups is refused with a remark
// and creates nothing; a full list is written with one PutAll.
func TestUpdateListIsBounded(t *testing.T) {
	groups := &fakeGroups{cfgs: map[string]body.SubscriptionGroupConfig{}}
	s := New(Options{}, groups, &fakeOffsets{}, nil)
	list := make([]body.SubscriptionGroupConfig, MaxListEntries+1)
	for i := range list {
		list[i] = body.NewSubscriptionGroupConfig(fmt.Sprintf("LG%d", i))
	}
	err := s.UpdateList(list, "")
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError,
		Remark: "the subscription group config list holds 1001 groups, more than 1000"}, err)
	require.Empty(t, groups.cfgs)
	require.NoError(t, s.UpdateList(list[:MaxListEntries], ""))
	require.Len(t, groups.cfgs, MaxListEntries)
	require.Equal(t, 1, groups.writes)
	bad := []body.SubscriptionGroupConfig{body.NewSubscriptionGroupConfig("ok"), body.NewSubscriptionGroupConfig("bad\nname")}
	require.Error(t, s.UpdateList(bad, ""))
}
