package slave_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/broker/offset"
	"github.com/rocketgo/rocketgo/internal/broker/slave"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tables is one broker's metadata.
type tables struct {
	topics  *topic.Manager
	groups  *subscription.Manager
	offsets *offset.Manager
}

func newTables(t *testing.T, root string) tables {
	t.Helper()
	to := topic.DefaultOptions()
	to.StorePathRootDir, to.BrokerName = root, "broker-a"
	topics, err := topic.New(to, nil)
	require.NoError(t, err)
	groups, err := subscription.New(subscription.Options{StorePathRootDir: root, AutoCreateSubscriptionGroup: true}, nil)
	require.NoError(t, err)
	offsets, err := offset.New(offset.Options{StorePathRootDir: root}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = offsets.Close() })
	return tables{topics, groups, offsets}
}

// fakeMaster serves a master's four tables over remoting, as the broker's admin handlers do.
func fakeMaster(t *testing.T, m tables, delay *atomic.Pointer[string], calls *atomic.Int32) string {
	t.Helper()
	answer := func(get func() any) remoting.Handler {
		return remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			calls.Add(1)
			data, err := body.Marshal(get())
			require.NoError(t, err)
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = data
			return resp
		})
	}
	srv := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(protocol.GetAllTopicConfig, answer(func() any { return m.topics.Wrapper() }))
		s.Handle(protocol.GetAllSubscriptionGroupConfig, answer(func() any { return m.groups.Wrapper() }))
		s.Handle(protocol.GetAllConsumerOffset, answer(func() any { return m.offsets.Wrapper() }))
		s.Handle(protocol.GetAllDelayOffset, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			calls.Add(1)
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.Body = []byte(*delay.Load())
			return resp
		}))
	})
	return srv.Addr().String()
}

func TestSyncCopiesTheMastersTables(t *testing.T) {
	master, replica := newTables(t, t.TempDir()), newTables(t, t.TempDir())
	require.NoError(t, master.topics.Put(body.NewTopicConfig("OrderTopic")))
	gc := body.NewSubscriptionGroupConfig("CG1")
	gc.RetryMaxTimes = 3
	require.NoError(t, master.groups.Put(gc))
	master.offsets.Commit("CG1", "OrderTopic", 0, 42)
	master.offsets.Commit("CG1", "OrderTopic", 3, 7)
	replica.offsets.Commit("CG2", "Other", 1, 5) // only the slave has it: it stays (Java putAll)
	require.NoError(t, replica.topics.Put(body.NewTopicConfig("Stale")))
	var delay atomic.Pointer[string]
	d1 := `{"offsetTable":{1:12,3:4}}`
	delay.Store(&d1)
	var calls atomic.Int32
	addr := fakeMaster(t, master, &delay, &calls)

	cli := remoting.NewClient(remoting.ClientOptions{}, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = cli.Close() })
	delayPath := filepath.Join(t.TempDir(), "config", "delayOffset.json")
	delayTable := &fakeDelay{}
	s := slave.New(slave.Options{DelayOffsetPath: delayPath}, cli,
		slave.Deps{Topics: replica.topics, Groups: replica.groups, Offsets: replica.offsets, Delay: delayTable}, zaptest.NewLogger(t))
	require.Error(t, s.SyncAll(context.Background()), "no master known yet")
	s.SetMasterAddr(addr)
	require.Equal(t, addr, s.MasterAddr())
	require.NoError(t, s.SyncAll(context.Background()))
	require.EqualValues(t, 4, calls.Load(), "topics, offsets, delay offsets, groups")

	require.Equal(t, master.topics.Wrapper().TopicConfigTable, replica.topics.Wrapper().TopicConfigTable)
	got, ok := replica.groups.Get("CG1")
	require.True(t, ok)
	require.Equal(t, 3, got.RetryMaxTimes)
	off, ok := replica.offsets.Query("CG1", "OrderTopic", 0)
	require.True(t, ok)
	require.EqualValues(t, 42, off)
	off, ok = replica.offsets.Query("CG2", "Other", 1)
	require.True(t, ok)
	require.EqualValues(t, 5, off)
	data, err := os.ReadFile(delayPath)
	require.NoError(t, err)
	require.Equal(t, d1, string(data))

	// Changes on the master arrive with the next pass; a deleted topic goes.
	require.NoError(t, master.topics.Put(body.NewTopicConfig("NewTopic")))
	_, err = master.topics.Delete("OrderTopic")
	require.NoError(t, err)
	master.offsets.Commit("CG1", "OrderTopic", 0, 50)
	d2 := `{"offsetTable":{1:13,3:4}}`
	delay.Store(&d2)
	require.NoError(t, s.SyncAll(context.Background()))
	_, ok = replica.topics.Get("NewTopic")
	require.True(t, ok)
	_, ok = replica.topics.Get("OrderTopic")
	require.False(t, ok)
	off, _ = replica.offsets.Query("CG1", "OrderTopic", 0)
	require.EqualValues(t, 50, off)
	data, err = os.ReadFile(delayPath)
	require.NoError(t, err)
	require.Equal(t, d2, string(data))
	require.Equal(t, map[int]int64{1: 13, 3: 4}, delayTable.get(), "the schedule service takes over the master's offsets")

	// A local change to the slave's topics is undone by the next pass even when the master's
	// version did not move.
	require.NoError(t, replica.topics.Put(body.NewTopicConfig("LocalOnly")))
	require.NoError(t, s.SyncAll(context.Background()))
	_, ok = replica.topics.Get("LocalOnly")
	require.False(t, ok)

	// A master that sends garbage leaves the tables alone.
	bad := "not json"
	delay.Store(&bad)
	require.Error(t, s.SyncAll(context.Background()))
	data, err = os.ReadFile(delayPath)
	require.NoError(t, err)
	require.Equal(t, d2, string(data))
}

func TestSyncRunsPeriodically(t *testing.T) {
	master, replica := newTables(t, t.TempDir()), newTables(t, t.TempDir())
	var delay atomic.Pointer[string]
	d := `{"offsetTable":{}}`
	delay.Store(&d)
	var calls atomic.Int32
	addr := fakeMaster(t, master, &delay, &calls)
	cli := remoting.NewClient(remoting.ClientOptions{}, zaptest.NewLogger(t))
	t.Cleanup(func() { _ = cli.Close() })
	s := slave.New(slave.Options{Interval: 20 * time.Millisecond, InitialDelay: time.Millisecond}, cli,
		slave.Deps{Topics: replica.topics, Groups: replica.groups, Offsets: replica.offsets}, zaptest.NewLogger(t))
	s.Start()
	defer s.Close()
	s.SetMasterAddr(addr)
	require.NoError(t, master.topics.Put(body.NewTopicConfig("Later")))
	require.Eventually(t, func() bool { _, ok := replica.topics.Get("Later"); return ok }, 10*time.Second, 5*time.Millisecond)
	s.SetMasterAddr("") // the master is gone: passes stop asking
	require.Error(t, s.SyncAll(context.Background()))
}

// fakeDelay records the delay offsets a Syncer hands over.
type fakeDelay struct {
	mu      sync.Mutex
	offsets map[int]int64
}

func (f *fakeDelay) ReplaceOffsets(o map[int]int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.offsets = o
}

func (f *fakeDelay) get() map[int]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.offsets
}
