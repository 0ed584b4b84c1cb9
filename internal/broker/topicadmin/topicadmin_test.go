package topicadmin

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

type fakeTopics struct {
	cfgs   map[string]body.TopicConfig
	system map[string]bool
	log    []string
}

func (f *fakeTopics) Put(tc body.TopicConfig) error {
	f.cfgs[tc.TopicName] = tc
	return nil
}

func (f *fakeTopics) PutAll(list []body.TopicConfig) error {
	f.log = append(f.log, "putAll")
	for _, tc := range list {
		f.cfgs[tc.TopicName] = tc
	}
	return nil
}

func (f *fakeTopics) Delete(name string) (bool, error) {
	if name == "Stuck" {
		return false, errors.New("disk full")
	}
	f.log = append(f.log, "topic")
	_, ok := f.cfgs[name]
	delete(f.cfgs, name)
	return ok, nil
}

func (f *fakeTopics) IsSystemTopic(name string) bool {
	return f.system[name] || systopic.IsSystem(name)
}

func (f *fakeTopics) Topics() []string {
	var out []string
	for n := range f.cfgs {
		out = append(out, n)
	}
	return out
}

func (f *fakeTopics) Wrapper() body.TopicConfigSerializeWrapper {
	return body.TopicConfigSerializeWrapper{TopicConfigTable: f.cfgs}
}

type fakeOffsets struct{ t *fakeTopics }

func (f fakeOffsets) RemoveTopic(string) int { f.t.log = append(f.t.log, "offsets"); return 1 }

type fakeStore struct{ t *fakeTopics }

func (f fakeStore) DeleteTopic(name string) error {
	f.t.log = append(f.t.log, "queues")
	if name == "Undeletable" {
		return errors.New("busy")
	}
	return nil
}

func newService() (*Service, *fakeTopics) {
	topics := &fakeTopics{cfgs: map[string]body.TopicConfig{}, system: map[string]bool{"broker-a": true}}
	topics.cfgs["broker-a"] = body.NewTopicConfig("broker-a")
	return New(Options{ClusterName: "DefaultCluster"}, topics, fakeOffsets{topics}, fakeStore{topics}), topics
}

func topicConfig(name string, read, write int) body.TopicConfig {
	tc := body.NewTopicConfig(name)
	tc.ReadQueueNums, tc.WriteQueueNums = read, write
	return tc
}

func TestUpdate(t *testing.T) {
	s, topics := newService()
	require.NoError(t, s.Update(topicConfig("T", 4, 1024)))
	require.Equal(t, 1024, topics.cfgs["T"].WriteQueueNums)
	require.Contains(t, s.All().TopicConfigTable, "T")
	for _, tc := range []struct {
		name   string
		cfg    body.TopicConfig
		remark string
	}{
		{"the cluster's name", topicConfig("DefaultCluster", 4, 4), "The specified topic[DefaultCluster] is conflicted with cluster name."},
		{"a bad name", topicConfig("a b", 4, 4), "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"too long", topicConfig(strings.Repeat("t", 128), 4, 4), "The specified topic is longer than topic max length."},
		{"a system topic", topicConfig("SCHEDULE_TOPIC_XXXX", 4, 4), "The topic[SCHEDULE_TOPIC_XXXX] is conflict with system topic."},
		{"the broker's name", topicConfig("broker-a", 4, 4), "The topic[broker-a] is conflict with system topic."},
		{"no read queues", topicConfig("T", 0, 4), "the queue numbers of topic[T] must be in 1..1024: read 0 write 4"},
		{"too many write queues", topicConfig("T", 4, 1025), "the queue numbers of topic[T] must be in 1..1024: read 4 write 1025"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: tc.remark}, s.Update(tc.cfg))
		})
	}
}

func TestDelete(t *testing.T) {
	s, topics := newService()
	for _, name := range []string{"T", "Undeletable"} {
		topics.cfgs[name] = body.NewTopicConfig(name)
	}
	require.NoError(t, s.Delete("T"))
	require.Equal(t, []string{"topic", "offsets", "queues"}, topics.log)
	require.EqualError(t, s.Delete("Stuck"), "disk full")
	require.EqualError(t, s.Delete("Undeletable"), "busy")
}

// TestDeleteRefuses: names that are not topics (they would name directories outside the topic's
// own), system topics and topics the broker does not have are refused with a remark, and
// nothing is touched.
func TestDeleteRefuses(t *testing.T) {
	s, topics := newService()
	for _, name := range []string{systopic.Schedule, systopic.TransHalf, systopic.AutoCreate, systopic.RevivePrefix + "c"} {
		topics.cfgs[name] = body.NewTopicConfig(name)
	}
	for _, tc := range []struct {
		name   string
		kind   outcome.Kind
		remark string
	}{
		{"..", outcome.SystemError, "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"../../victim", outcome.SystemError, "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"},
		{"", outcome.SystemError, "The specified topic is blank."},
		{strings.Repeat("t", 128), outcome.SystemError, "The specified topic is longer than topic max length."},
		{systopic.Schedule, outcome.SystemError, "The topic[SCHEDULE_TOPIC_XXXX] is a system topic: it cannot be deleted."},
		{systopic.TransHalf, outcome.SystemError, "The topic[RMQ_SYS_TRANS_HALF_TOPIC] is a system topic: it cannot be deleted."},
		{systopic.TransOpHalf, outcome.SystemError, "The topic[RMQ_SYS_TRANS_OP_HALF_TOPIC] is a system topic: it cannot be deleted."},
		{systopic.Trace, outcome.SystemError, "The topic[RMQ_SYS_TRACE_TOPIC] is a system topic: it cannot be deleted."},
		{"RMQ_SYS_OTHER", outcome.SystemError, "The topic[RMQ_SYS_OTHER] is a system topic: it cannot be deleted."},
		{systopic.AutoCreate, outcome.SystemError, "The topic[TBW102] is a system topic: it cannot be deleted."},
		{systopic.RevivePrefix + "c", outcome.SystemError, "The topic[rmq_sys_REVIVE_LOG_c] is a system topic: it cannot be deleted."},
		{systopic.Timer, outcome.SystemError, "The topic[rmq_sys_wheel_timer] is a system topic: it cannot be deleted."},
		{systopic.Checkpoint, outcome.SystemError, "The topic[CHECKPOINT_TOPIC] is a system topic: it cannot be deleted."},
		{"broker-a", outcome.SystemError, "The topic[broker-a] is a system topic: it cannot be deleted."},
		{"Missing", outcome.TopicNotExist, "The topic[Missing] does not exist on this broker."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topics.log = nil
			require.Equal(t, &outcome.Error{Kind: tc.kind, Remark: tc.remark}, s.Delete(tc.name))
			require.Subset(t, []string{"topic"}, topics.log, "no offsets or queues removed")
		})
	}
	require.Contains(t, topics.cfgs, systopic.Schedule)
}

func TestSystemTopics(t *testing.T) {
	s, topics := newService()
	topics.cfgs["rmq_sys_x"] = body.NewTopicConfig("rmq_sys_x")
	topics.cfgs["Orders"] = body.NewTopicConfig("Orders")
	topics.cfgs[systopic.Schedule] = body.NewTopicConfig(systopic.Schedule)
	got := s.SystemTopics()
	want := append(systopic.Static(), "broker-a", "rmq_sys_x")
	require.ElementsMatch(t, want, got, "each once")
	require.IsIncreasing(t, got)
}
