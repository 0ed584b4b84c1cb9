package topicadmin

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func (f *fakeTopics) Get(name string) (body.TopicConfig, bool) {
	tc, ok := f.cfgs[name]
	return tc, ok
}

func TestConfig(t *testing.T) {
	s, _ := newService()
	require.NoError(t, s.Update(topicConfig("T", 4, 2)))
	tc, err := s.Config("T")
	require.NoError(t, err)
	require.Equal(t, topicConfig("T", 4, 2), tc)
	_, err = s.Config("Nope")
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.TopicNotExist, k)
	require.Equal(t, "No topic in this broker. topic: Nope", remark)
}

func TestUpdateList(t *testing.T) {
	s, topics := newService()
	require.NoError(t, s.UpdateList([]body.TopicConfig{topicConfig("L1", 2, 2), topicConfig("L2", 8, 8)}))
	require.Equal(t, 2, topics.cfgs["L1"].ReadQueueNums)
	require.Equal(t, 8, topics.cfgs["L2"].WriteQueueNums)

	err := s.UpdateList([]body.TopicConfig{topicConfig("L3", 2, 2), topicConfig("SCHEDULE_TOPIC_XXXX", 1, 1)})
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.SystemError, k)
	require.Equal(t, "The topic[SCHEDULE_TOPIC_XXXX] is conflict with system topic.", remark)
	require.NotContains(t, topics.cfgs, "L3", "a bad config in the list changes nothing")
	require.Error(t, s.UpdateList([]body.TopicConfig{topicConfig("L4", 0, 2)}))
	require.Error(t, s.UpdateList(nil))
}

// TestUpdateListIsBounded: a list of more than MaxListEntries topics is refused with a remark and
// creates nothing; a full list is written with one PutAll.
func TestUpdateListIsBounded(t *testing.T) {
	s, topics := newService()
	list := make([]body.TopicConfig, MaxListEntries+1)
	for i := range list {
		list[i] = topicConfig(fmt.Sprintf("LT%d", i), 1, 1)
	}
	err := s.UpdateList(list)
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.SystemError, k)
	require.Equal(t, "the topic config list holds 1001 topics, more than 1000", remark)
	require.NotContains(t, topics.cfgs, "LT0")
	topics.log = nil
	require.NoError(t, s.UpdateList(list[:MaxListEntries]))
	require.Contains(t, topics.cfgs, "LT999")
	require.Equal(t, []string{"putAll"}, topics.log, "one write for the list")
}
