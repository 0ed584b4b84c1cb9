package topic

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func testOptions(t *testing.T) Options {
	o := DefaultOptions()
	o.StorePathRootDir = t.TempDir()
	o.ClusterName = "c1"
	o.BrokerName = "broker-a"
	clk := &fakeClock{t: time.UnixMilli(1700000000000)}
	o.Now = clk.Now
	return o
}

func newManager(t *testing.T, o Options) *Manager {
	t.Helper()
	m, err := New(o, nil)
	require.NoError(t, err)
	return m
}

func TestBuiltinTopics(t *testing.T) {
	m := newManager(t, testOptions(t))
	for name, want := range map[string][2]int{ // queues, perm
		systopic.SelfTest:         {1, 6},
		systopic.AutoCreate:       {8, 7},
		systopic.Benchmark:        {1024, 6},
		"c1":                      {16, 7},
		"broker-a":                {1, 7},
		systopic.OffsetMovedEvent: {1, 6},
		systopic.Schedule:         {18, 6},
		"c1_REPLY_TOPIC":          {1, 6},
		systopic.TransHalf:        {1, 6},
		systopic.TransOpHalf:      {1, 6},
	} {
		tc, ok := m.Get(name)
		require.True(t, ok, name)
		require.Equal(t, want[0], tc.ReadQueueNums, name)
		require.Equal(t, want[0], tc.WriteQueueNums, name)
		require.Equal(t, want[1], tc.Perm, name)
		require.True(t, m.IsSystemTopic(name), name)
	}
	require.False(t, m.Contains(systopic.Trace))
	require.True(t, m.IsSystemTopic("rmq_sys_anything"))
	require.False(t, m.IsSystemTopic("TopicTest"))
	require.Equal(t, int64(0), m.DataVersion().Counter, "built-ins do not bump the version")

	o := testOptions(t)
	o.AutoCreateTopicEnable = false
	o.ClusterTopicEnable = false
	o.BrokerTopicEnable = false
	o.TraceTopicEnable = true
	m = newManager(t, o)
	require.False(t, m.Contains(systopic.AutoCreate))
	tc, _ := m.Get("c1")
	require.Equal(t, body.PermInherit, tc.Perm)
	tc, _ = m.Get("broker-a")
	require.Equal(t, body.PermInherit, tc.Perm)
	require.True(t, m.Contains(systopic.Trace))
}

func TestCreateTopicInSendMessage(t *testing.T) {
	o := testOptions(t)
	var changes []Change
	o.OnChange = func(c Change) { changes = append(changes, c) }
	m := newManager(t, o)
	v0 := m.DataVersion()

	tc, ok := m.CreateTopicInSendMessage("TopicTest", systopic.AutoCreate, 4, 0)
	require.True(t, ok)
	require.Equal(t, body.TopicConfig{TopicName: "TopicTest", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6, TopicFilterType: body.SingleTag}, tc)
	require.Len(t, changes, 1)
	require.Equal(t, "TopicTest", changes[0].Topic.TopicName)
	v1 := m.DataVersion()
	require.Equal(t, v0.Counter+1, v1.Counter)
	require.Greater(t, v1.Timestamp, v0.Timestamp)

	again, ok := m.CreateTopicInSendMessage("TopicTest", systopic.AutoCreate, 2, 0)
	require.True(t, ok)
	require.Equal(t, tc, again, "an existing topic is returned unchanged")
	require.Len(t, changes, 1)
	require.Equal(t, v1, m.DataVersion())

	tc, ok = m.CreateTopicInSendMessage("Big", systopic.AutoCreate, 16, 3)
	require.True(t, ok)
	require.Equal(t, 8, tc.WriteQueueNums, "capped by the default topic's write queues")
	require.Equal(t, 3, tc.TopicSysFlag)

	tc, ok = m.CreateTopicInSendMessage("FromCluster", "c1", 4, 0)
	require.True(t, ok, "the cluster topic inherits")
	require.Equal(t, 6, tc.Perm)

	_, ok = m.CreateTopicInSendMessage("NoDefault", "missing", 4, 0)
	require.False(t, ok)
	_, ok = m.CreateTopicInSendMessage("NoInherit", systopic.SelfTest, 4, 0)
	require.False(t, ok)
	require.False(t, m.Contains("NoDefault"))
	require.False(t, m.Contains("NoInherit"))

	// Persisted: a new manager on the same root sees the topics and the version.
	m2 := newManager(t, o)
	got, ok := m2.Get("TopicTest")
	require.True(t, ok)
	require.Equal(t, 4, got.WriteQueueNums)
	require.Equal(t, m.DataVersion(), m2.DataVersion())
	require.Equal(t, m.Topics(), m2.Topics())
}

func TestTBW102LeftOverWithoutAutoCreate(t *testing.T) {
	o := testOptions(t)
	require.NoError(t, newManager(t, o).Persist())
	o.AutoCreateTopicEnable = false
	m := newManager(t, o)
	require.True(t, m.Contains(systopic.AutoCreate), "loaded from topics.json")
	_, ok := m.CreateTopicInSendMessage("TopicTest", systopic.AutoCreate, 4, 0)
	require.False(t, ok, "TBW102 no longer inherits once autoCreateTopicEnable is off")
}

func TestCreateTopicInSendMessageBack(t *testing.T) {
	o := testOptions(t)
	calls := 0
	o.OnChange = func(Change) { calls++ }
	m := newManager(t, o)
	tc := m.CreateTopicInSendMessageBack(systopic.Retry("g1"), 1, body.PermRead|body.PermWrite, 0)
	require.Equal(t, body.TopicConfig{TopicName: "%RETRY%g1", ReadQueueNums: 1, WriteQueueNums: 1, Perm: 6, TopicFilterType: body.SingleTag}, tc)
	require.Equal(t, tc, m.CreateTopicInSendMessageBack(systopic.Retry("g1"), 4, 2, 0))
	require.Equal(t, 1, calls)
}

func TestPutDeleteAndValidation(t *testing.T) {
	o := testOptions(t)
	var changes []Change
	o.OnChange = func(c Change) { changes = append(changes, c) }
	m := newManager(t, o)

	tc := body.NewTopicConfig("T1")
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Order = 2, 2, true
	require.NoError(t, m.Put(tc))
	require.True(t, m.IsOrderTopic("T1"))
	require.ErrorIs(t, m.Put(body.NewTopicConfig("bad topic")), ErrTopicChars)
	require.ErrorIs(t, m.Put(body.NewTopicConfig(strings.Repeat("a", 128))), ErrTopicTooLong)
	require.ErrorIs(t, m.Put(body.NewTopicConfig(" ")), ErrTopicBlank)
	require.NoError(t, ValidateTopic("%RETRY%a|b_c-D9"))

	existed, err := m.Delete("T1")
	require.NoError(t, err)
	require.True(t, existed)
	existed, err = m.Delete("T1")
	require.NoError(t, err)
	require.False(t, existed)
	require.Equal(t, []Change{{Topic: tc}, {Topic: tc, Deleted: true}}, changes)

	require.False(t, newManager(t, o).Contains("T1"), "deletion persisted")
}

func TestUpdateOrderTopicConfig(t *testing.T) {
	o := testOptions(t)
	m := newManager(t, o)
	require.NoError(t, m.Put(body.NewTopicConfig("T1")))
	v := m.DataVersion()
	require.NoError(t, m.UpdateOrderTopicConfig(map[string]string{"T1": "broker-a:4", "Unknown": "x"}))
	require.True(t, m.IsOrderTopic("T1"))
	require.Equal(t, v.Counter+1, m.DataVersion().Counter)
	require.NoError(t, m.UpdateOrderTopicConfig(map[string]string{"T1": "broker-a:4"}))
	require.Equal(t, v.Counter+1, m.DataVersion().Counter, "no change, no bump")
}

func TestRegistrationWrapperMasksPerm(t *testing.T) {
	m := newManager(t, testOptions(t))
	w := m.RegistrationWrapper(body.PermRead | body.PermWrite)
	require.Equal(t, 7, w.TopicConfigTable[systopic.AutoCreate].Perm)
	w = m.RegistrationWrapper(body.PermRead)
	require.Equal(t, body.PermRead, w.TopicConfigTable[systopic.AutoCreate].Perm)
	require.Equal(t, body.PermRead, w.TopicConfigTable[systopic.SelfTest].Perm)
	tc, _ := m.Get(systopic.AutoCreate)
	require.Equal(t, 7, tc.Perm, "the table itself is untouched")
}

func TestLoadJavaFileAndBackup(t *testing.T) {
	o := testOptions(t)
	path := ConfigPath(o.StorePathRootDir)
	require.NoError(t, os.MkdirAll(strings.TrimSuffix(path, "/topics.json"), 0o755))
	java := "{\n\t\"dataVersion\":{\n\t\t\"counter\":5,\n\t\t\"timestamp\":1600000000000\n\t},\n\t\"topicConfigTable\":{\n" +
		"\t\t\"TopicTest\":{\n\t\t\t\"order\":false,\n\t\t\t\"perm\":6,\n\t\t\t\"readQueueNums\":4,\n\t\t\t\"topicFilterType\":\"SINGLE_TAG\",\n" +
		"\t\t\t\"topicName\":\"TopicTest\",\n\t\t\t\"topicSysFlag\":0,\n\t\t\t\"writeQueueNums\":4\n\t\t},\n" +
		"\t\t\"SCHEDULE_TOPIC_XXXX\":{\"perm\":6,\"readQueueNums\":18,\"topicName\":\"SCHEDULE_TOPIC_XXXX\",\"writeQueueNums\":18}\n\t}\n}"
	require.NoError(t, os.WriteFile(path+".bak", []byte(java), 0o644))
	require.NoError(t, os.WriteFile(path, []byte(`{"topicConfigTable":{`), 0o644)) // torn

	m := newManager(t, o)
	tc, ok := m.Get("TopicTest")
	require.True(t, ok, "loaded from the backup")
	require.Equal(t, 4, tc.ReadQueueNums)
	require.Equal(t, body.DataVersion{Counter: 5, Timestamp: 1600000000000}, m.DataVersion())
	require.True(t, m.Contains(systopic.SelfTest), "built-ins stay")

	require.NoError(t, os.WriteFile(path+".bak", []byte("garbage"), 0o644))
	_, err := New(o, nil)
	require.Error(t, err, "both files corrupt: refuse to start rather than forget topics")
}

func TestConcurrentCreatesAllPersisted(t *testing.T) {
	o := testOptions(t)
	m := newManager(t, o)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				_, ok := m.CreateTopicInSendMessage(fmt.Sprintf("T%d_%d", i, j), systopic.AutoCreate, 4, 0)
				require.True(t, ok)
				_, _ = m.Get("TopicTest")
			}
		}()
	}
	wg.Wait()
	require.Equal(t, int64(80), m.DataVersion().Counter)
	m2 := newManager(t, o)
	require.Equal(t, m.Topics(), m2.Topics())
	require.Equal(t, m.DataVersion(), m2.DataVersion())
}

// TestCreateAdmitsAndBatches: a send's topic beyond what Admit allows its connection is not
// created; CreateAllIfAbsent creates many topics with one write and skips names that are not
// topics; createLocked never creates a bad name.
func TestCreateAdmitsAndBatches(t *testing.T) {
	o := testOptions(t)
	o.Admit = func(owner uint64, n int) error {
		if owner == 9 {
			return errors.New("quota")
		}
		return nil
	}
	m := newManager(t, o)
	_, ok, refused := m.CreateTopicInSendMessageFor(9, "Refused", systopic.AutoCreate, 4, 0)
	require.False(t, ok)
	require.EqualError(t, refused, "quota")
	require.False(t, m.Contains("Refused"))
	_, ok, refused = m.CreateTopicInSendMessageFor(8, "Allowed", systopic.AutoCreate, 4, 0)
	require.True(t, ok)
	require.NoError(t, refused)

	before := m.Writes()
	var tcs []body.TopicConfig
	for i := range 200 {
		tcs = append(tcs, body.NewTopicConfig(fmt.Sprintf("%%RETRY%%G%d", i)))
	}
	tcs = append(tcs, body.NewTopicConfig("%RETRY%"+strings.Repeat("g", 200)), body.NewTopicConfig("../x"))
	require.NoError(t, m.CreateAllIfAbsent(tcs, "heartbeat"))
	require.Equal(t, before+1, m.Writes(), "one write for 200 topics")
	require.True(t, m.Contains("%RETRY%G199"))
	require.False(t, m.Contains("../x"))
	require.False(t, m.Contains("%RETRY%"+strings.Repeat("g", 200)), "longer than a topic may be")
	require.NoError(t, m.CreateAllIfAbsent(tcs, "heartbeat"))
	require.Equal(t, before+1, m.Writes(), "nothing new, nothing written")

	m.CreateTopicInSendMessageBack("%RETRY%"+strings.Repeat("h", 130), 1, 6, 0)
	require.Len(t, m.Topics(), len(newManager(t, o).Topics()), "what is in memory is on disk, and no bad name")
}

// TestPutAllWritesOnce: UPDATE_AND_CREATE_TOPIC_LIST's topics are written with one write of
// topics.json; a bad name in the list changes nothing.
func TestPutAllWritesOnce(t *testing.T) {
	o := testOptions(t)
	m := newManager(t, o)
	before := m.Writes()
	var tcs []body.TopicConfig
	for i := range 500 {
		tcs = append(tcs, body.NewTopicConfig(fmt.Sprintf("List%d", i)))
	}
	require.NoError(t, m.PutAll(tcs))
	require.Equal(t, before+1, m.Writes(), "one write for 500 topics")
	require.True(t, newManager(t, o).Contains("List499"), "written")
	require.Error(t, m.PutAll([]body.TopicConfig{body.NewTopicConfig("Fine"), body.NewTopicConfig("../x")}))
	require.False(t, m.Contains("Fine"))
	require.Equal(t, before+1, m.Writes())
}
