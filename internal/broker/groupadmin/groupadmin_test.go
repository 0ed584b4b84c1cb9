package groupadmin

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

type fakeGroups struct {
	cfgs   map[string]body.SubscriptionGroupConfig
	putErr error
	writes int // PutAll calls
}

func (f *fakeGroups) Put(cfg body.SubscriptionGroupConfig) error {
	if f.putErr != nil {
		return f.putErr
	}
	f.cfgs[cfg.GroupName] = cfg
	return nil
}

func (f *fakeGroups) PutAll(list []body.SubscriptionGroupConfig) error {
	for _, cfg := range list {
		if err := f.Put(cfg); err != nil {
			return err
		}
	}
	f.writes++
	return nil
}

func (f *fakeGroups) Delete(group string) (bool, error) {
	if group == "Stuck" {
		return false, errors.New("disk full")
	}
	_, ok := f.cfgs[group]
	delete(f.cfgs, group)
	return ok, nil
}

func (f *fakeGroups) Wrapper() body.SubscriptionGroupWrapper {
	return body.SubscriptionGroupWrapper{SubscriptionGroupTable: f.cfgs}
}

type fakeOffsets struct{ removed []string }

func (f *fakeOffsets) RemoveGroup(group string) int {
	f.removed = append(f.removed, group)
	return 2
}

var slaveRefusal = &outcome.Error{Kind: outcome.SystemError,
	Remark: "Can't modify topic or subscription group from slave broker, please execute it from master broker."}

func TestUpdateAndDelete(t *testing.T) {
	groups, offsets := &fakeGroups{cfgs: map[string]body.SubscriptionGroupConfig{}}, &fakeOffsets{}
	s := New(Options{}, groups, offsets, nil)
	require.NoError(t, s.Writable())
	require.NoError(t, s.Update(body.NewSubscriptionGroupConfig("G"), "10.0.0.1:1"))
	require.Contains(t, s.All().SubscriptionGroupTable, "G")

	require.NoError(t, s.Delete("G", false, ""))
	require.Empty(t, offsets.removed, "offsets stay unless asked")
	require.NoError(t, s.Delete("G", true, ""), "deleting a group that is gone succeeds")
	require.Equal(t, []string{"G"}, offsets.removed)
	require.EqualError(t, s.Delete("Stuck", true, ""), "disk full")
}

func TestUpdateRefusals(t *testing.T) {
	groups := &fakeGroups{cfgs: map[string]body.SubscriptionGroupConfig{}, putErr: fmt.Errorf("put: %w", subscription.ErrEmptyGroupName)}
	s := New(Options{}, groups, &fakeOffsets{}, nil)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "the SubscriptionGroupConfig body has no groupName"},
		s.Update(body.SubscriptionGroupConfig{}, ""))
	groups.putErr = errors.New("disk full")
	require.EqualError(t, s.Update(body.NewSubscriptionGroupConfig("G"), ""), "disk full")
	bad := outcome.Errorf(outcome.SystemError, `The specified group "../G" contains illegal characters, allowing only ^[%%|a-zA-Z0-9_-]+$`)
	require.Equal(t, bad, s.Update(body.NewSubscriptionGroupConfig("../G"), ""))
	require.Equal(t, bad, s.Delete("../G", true, ""))
	require.Empty(t, groups.cfgs)
}

func TestSlaveRefuses(t *testing.T) {
	groups, offsets := &fakeGroups{cfgs: map[string]body.SubscriptionGroupConfig{}}, &fakeOffsets{}
	s := New(Options{Slave: true}, groups, offsets, nil)
	require.Equal(t, slaveRefusal, s.Writable())
	require.Equal(t, slaveRefusal, s.Update(body.NewSubscriptionGroupConfig("G"), ""))
	require.Equal(t, slaveRefusal, s.Delete("G", true, ""))
	require.Empty(t, groups.cfgs)
	require.Empty(t, offsets.removed)
}
