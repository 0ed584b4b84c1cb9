package pop

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/offset"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/internal/broker/topic"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// env is a Service over a real store and the broker's real topic, group and offset tables.
type env struct {
	t       testing.TB
	dir     string
	st      *store.Store
	topics  *topic.Manager
	offsets *offset.Manager
	svc     *Service
	clock   time.Time
	// storeOpts, when set, adjusts the store's options at each open; svcOpts the service's; and
	// wrap, the store the service sees.
	storeOpts func(*store.Options)
	svcOpts   func(*Options)
	wrap      func(Store) Store
}

func newEnv(t testing.TB) *env {
	return newEnvWith(t, nil)
}

// newEnvWith is newEnv with the store's options adjusted by storeOpts.
func newEnvWith(t testing.TB, storeOpts func(*store.Options)) *env {
	e := &env{t: t, dir: t.TempDir(), clock: time.UnixMilli(1_700_000_000_000), storeOpts: storeOpts}
	e.open()
	return e
}

// open builds the store, tables and service over e.dir and starts them.
func (e *env) open() {
	t := e.t
	so := storetest.Options(e.dir)
	if e.storeOpts != nil {
		e.storeOpts(&so)
	}
	e.st = storetest.Open(t, so)
	e.st.Start()
	to := topic.DefaultOptions()
	to.StorePathRootDir = e.dir
	var err error
	e.topics, err = topic.New(to, zap.NewNop())
	require.NoError(t, err)
	groups, err := subscription.New(subscription.Options{StorePathRootDir: e.dir, AutoCreateSubscriptionGroup: true}, zap.NewNop())
	require.NoError(t, err)
	e.offsets, err = offset.New(offset.Options{StorePathRootDir: e.dir}, zap.NewNop())
	require.NoError(t, err)
	opts := Options{ClusterName: "C", BrokerName: "broker-a", BrokerPermission: 6, StoreHost: storetest.StoreHost,
		StorePathRootDir: e.dir, ReviveQueueNum: 2}
	if e.svcOpts != nil {
		e.svcOpts(&opts)
	}
	var st Store = e.st
	if e.wrap != nil {
		st = e.wrap(st)
	}
	e.svc, err = New(opts, Deps{Store: st, Topics: e.topics, Groups: groups, Offsets: e.offsets,
		Subscriptions: client.NewConsumerManager(nil, nil)}, zap.NewNop())
	require.NoError(t, err)
	e.svc.now = func() time.Time { return e.clock }
	e.svc.rand = func(int) int { return 99 } // the retry topic after the topic
	require.NoError(t, e.svc.Start())
}

// restart stops everything as a clean shutdown does and opens it again.
func (e *env) restart() {
	e.svc.Stop()
	require.NoError(e.t, e.offsets.Close())
	require.NoError(e.t, e.st.Close())
	e.open()
}

// crash opens everything again as after a kill -9: the CommitLog holds every record put (the
// page cache survives), consumerOffset.json only what the last e.offsets.Persist wrote.
func (e *env) crash() {
	e.svc.Stop() // its last revive-offset commit stays in the memory that dies with the process
	require.NoError(e.t, e.st.Close())
	e.open()
}

func (e *env) createTopic(name string, queues int) {
	tc := body.NewTopicConfig(name)
	tc.ReadQueueNums, tc.WriteQueueNums = queues, queues
	require.NoError(e.t, e.topics.Put(tc))
}

// send stores n messages "name-i" in queue q and waits until they are dispatched.
func (e *env) send(topicName string, q int32, n int) {
	want := e.st.MaxOffsetInQueue(topicName, q) + int64(n)
	for i := range n {
		r := e.st.PutMessage(storetest.Msg(topicName, q, []byte(topicName+"-"+strconv.Itoa(i)), map[string]string{"TAGS": "T"}))
		require.True(e.t, r.Status.Stored(), r.Remark)
	}
	require.Eventually(e.t, func() bool { return e.st.MaxOffsetInQueue(topicName, q) >= want }, 5*time.Second, time.Millisecond)
}

func (e *env) pop(r Request) Result {
	res, held, err := e.svc.Pop(r, nil)
	require.NoError(e.t, err)
	require.False(e.t, held)
	return res
}

func (e *env) advance(d time.Duration) { e.clock = e.clock.Add(d) }

// waitQueue waits until a queue holds n messages (the dispatcher runs behind the puts).
func (e *env) waitQueue(topicName string, q int32, n int64) {
	e.t.Helper()
	require.Eventually(e.t, func() bool { return e.st.MaxOffsetInQueue(topicName, q) >= n }, 5*time.Second, time.Millisecond,
		"%s/%d never held %d", topicName, q, n)
}
