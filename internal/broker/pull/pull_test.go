package pull

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/longpoll"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/policy"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// fakeStore answers every read with next (a copy), recording the reads.
type fakeStore struct {
	next   store.GetResult
	nilOK  bool // answer nil, as a closed store does
	panics bool
	reads  []read
}

type read struct {
	group, topic string
	queueID      int32
	offset       int64
	max          int32
	filter       store.MessageFilter
}

func (f *fakeStore) GetMessage(group, topic string, q int32, off int64, n int32, mf store.MessageFilter) *store.GetResult {
	f.reads = append(f.reads, read{group, topic, q, off, n, mf})
	if f.panics {
		panic("store fault")
	}
	if f.nilOK {
		return nil
	}
	r := f.next
	return &r
}

type fakeGroups map[string]body.SubscriptionGroupConfig

func (f fakeGroups) FindOrCreateFor(owner uint64, g string) (body.SubscriptionGroupConfig, bool, error) {
	if owner == refusedOwner {
		return body.SubscriptionGroupConfig{}, false, errors.New("quota exceeded")
	}
	c, ok := f[g]
	return c, ok, nil
}

// refusedOwner is the connection that may create no more groups.
const refusedOwner = 666

type fakeTopics map[string]body.TopicConfig

func (f fakeTopics) Get(t string) (body.TopicConfig, bool) {
	c, ok := f[t]
	return c, ok
}

// fakeConsumers holds heartbeat subscriptions by group and topic.
type fakeConsumers struct {
	subs  map[string]map[string]*client.Subscription
	built int
}

func (f *fakeConsumers) HasGroup(g string) bool { return f.subs[g] != nil }

func (f *fakeConsumers) Subscription(g, t string) (*client.Subscription, bool) {
	s, ok := f.subs[g][t]
	return s, ok
}

func (f *fakeConsumers) BuildSubscription(d body.SubscriptionData) *client.Subscription {
	f.built++
	return client.NewSubscription(d)
}

type fakeHolds struct {
	held     []*longpoll.Request
	full     error
	released []uint64
}

func (f *fakeHolds) Hold(r *longpoll.Request) error {
	if f.full != nil {
		return f.full
	}
	f.held = append(f.held, r)
	return nil
}

func (f *fakeHolds) Release(owner uint64) int {
	f.released = append(f.released, owner)
	return 0
}

type fakeOffsets struct{ commits []int64 }

func (f *fakeOffsets) Commit(_, _ string, _ int32, off int64) { f.commits = append(f.commits, off) }

type fakeMetrics struct {
	out    []int
	pulled []string
}

func (f *fakeMetrics) MessagesOut(_, _ string, n, bytes int) { f.out = append(f.out, n, bytes) }

func (f *fakeMetrics) Pulled(group, topic string, q int32, next int64) {
	f.pulled = append(f.pulled, fmt.Sprintf("%s/%s/%d→%d", group, topic, q, next))
}

type env struct {
	svc       *Service
	store     *fakeStore
	groups    fakeGroups
	topics    fakeTopics
	consumers *fakeConsumers
	holds     *fakeHolds
	offsets   *fakeOffsets
	metrics   *fakeMetrics
}

var epoch = time.Unix(1_700_000_000, 0)

func newEnv(edit ...func(*Options)) *env {
	tc := body.NewTopicConfig("T")
	tc.ReadQueueNums, tc.WriteQueueNums = 4, 4
	e := &env{
		store:     &fakeStore{next: store.GetResult{Status: store.Found, NextBeginOffset: 5, MinOffset: 0, MaxOffset: 9}},
		groups:    fakeGroups{"G": body.NewSubscriptionGroupConfig("G")},
		topics:    fakeTopics{"T": tc},
		consumers: &fakeConsumers{subs: map[string]map[string]*client.Subscription{}},
		holds:     &fakeHolds{}, offsets: &fakeOffsets{}, metrics: &fakeMetrics{},
	}
	opts := Options{BrokerName: "broker-a", BrokerPermission: body.PermRead | body.PermWrite, LongPollingEnable: true}
	for _, f := range edit {
		f(&opts)
	}
	e.svc = New(opts, Deps{Store: e.store, Groups: e.groups, Topics: e.topics, Consumers: e.consumers,
		Holds: e.holds, Offsets: e.offsets, Metrics: e.metrics})
	e.svc.now = func() time.Time { return epoch }
	return e
}

// heartbeat gives group G a heartbeat subscription to T.
func (e *env) heartbeat(expr, typ string, version int64) {
	e.consumers.subs["G"] = map[string]*client.Subscription{"T": client.NewSubscription(body.SubscriptionData{
		Topic: "T", SubString: expr, ExpressionType: typ, SubVersion: body.Int64(version)})}
}

func ownRequest(expr string) Request {
	return Request{Group: "G", Topic: "T", QueueID: 1, QueueOffset: 3, MaxMsgNums: 32, OwnSubscription: true,
		Subscription: expr, ExpressionType: body.ExpressionTag}
}

func noWake(Result, error) { panic("woken") }

func TestPullFound(t *testing.T) {
	e := newEnv()
	e.store.next.Records = [][]byte{[]byte("r1"), []byte("r2")}
	e.store.next.BufferTotalSize = 4
	r := ownRequest("*")
	r.Commit, r.CommitOffset = true, 2
	res, held, err := e.svc.Pull(r, noWake)
	require.NoError(t, err)
	require.False(t, held)
	require.Equal(t, outcome.OK, res.Status)
	require.Equal(t, "FOUND", res.Remark)
	require.Equal(t, int64(5), res.NextBeginOffset)
	require.Equal(t, int64(9), res.MaxOffset)
	require.Equal(t, body.MasterID, res.SuggestBrokerID)
	require.Len(t, res.Records, 2)
	require.NotNil(t, res.Release)
	res.Release()
	require.Equal(t, []int{2, 4}, e.metrics.out)
	require.Equal(t, []string{"G/T/1→5"}, e.metrics.pulled, "the group's position, for the lag gauges")
	require.Equal(t, []int64{2}, e.offsets.commits, "the commit offset rides on the pull")
	require.Equal(t, read{"G", "T", 1, 3, 32, e.store.reads[0].filter}, e.store.reads[0])
}

func TestPullChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(*env, *Request)
		kind   outcome.Kind
		remark string
	}{
		{"broker not readable", func(e *env, _ *Request) { e.svc.opts.BrokerPermission = body.PermWrite },
			outcome.NoPermission, "the broker[broker-a] pulling message is forbidden"},
		{"unknown group", func(_ *env, r *Request) { r.Group = "Nobody" },
			outcome.GroupNotExist, "subscription group [Nobody] does not exist"},
		{"not a group name", func(_ *env, r *Request) { r.Group = "../../etc" },
			outcome.GroupNotExist, `subscription group does not exist: The specified group "../../etc" contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`},
		{"a group its connection may not create", func(_ *env, r *Request) { r.Owner = refusedOwner },
			outcome.SystemError, "subscription group [G] cannot be created: quota exceeded"},
		{"group may not consume", func(e *env, _ *Request) {
			g := e.groups["G"]
			g.ConsumeEnable = false
			e.groups["G"] = g
		}, outcome.NoPermission, "subscription group no permission, G"},
		{"unknown topic", func(_ *env, r *Request) { r.Topic = "U" },
			outcome.TopicNotExist, "topic[U] not exist, apply first please!"},
		{"topic not readable", func(e *env, _ *Request) {
			tc := e.topics["T"]
			tc.Perm = body.PermWrite
			e.topics["T"] = tc
		}, outcome.NoPermission, "the topic[T] pulling message is forbidden"},
		{"queue past the read queues", func(_ *env, r *Request) { r.QueueID = 4 },
			outcome.SystemError, "queueId[4] is illegal, topic:[T] topicConfig.readQueueNums:[4] consumer:[G]"},
		{"negative queue", func(_ *env, r *Request) { r.QueueID = -1 },
			outcome.SystemError, "queueId[-1] is illegal, topic:[T] topicConfig.readQueueNums:[4] consumer:[G]"},
		{"no heartbeat from the group", func(_ *env, r *Request) { r.OwnSubscription = false },
			outcome.SubscriptionNotExist, "the consumer's group info not exist, G"},
		{"no heartbeat subscription to the topic", func(e *env, r *Request) {
			e.heartbeat("*", body.ExpressionTag, 1)
			r.OwnSubscription, r.Topic = false, "T2"
			e.topics["T2"] = e.topics["T"]
		}, outcome.SubscriptionNotExist, "the consumer's subscription not exist, group G topic T2"},
		{"heartbeat subscription older than the pull's", func(e *env, r *Request) {
			e.heartbeat("*", body.ExpressionTag, 1)
			r.OwnSubscription, r.SubVersion = false, 2
		}, outcome.SubscriptionNotLatest, "the consumer's subscription not latest, group G topic T"},
		{"SQL92 without enablePropertyFilter", func(_ *env, r *Request) { r.ExpressionType = body.ExpressionSQL92 },
			outcome.SystemError, "The broker does not support consumer to filter message by SQL92"},
		{"an unknown expression type", func(e *env, r *Request) {
			e.svc.opts.EnablePropertyFilter = true
			r.ExpressionType = "XPATH"
		}, outcome.SystemError, "The broker does not support consumer to filter message by XPATH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv()
			r := ownRequest("*")
			tc.setup(e, &r)
			_, held, err := e.svc.Pull(r, noWake)
			require.Equal(t, &outcome.Error{Kind: tc.kind, Remark: tc.remark}, err)
			require.False(t, held)
			require.Empty(t, e.store.reads)
			require.Empty(t, e.offsets.commits)
		})
	}
}

func TestPullSQLFilters(t *testing.T) {
	e := newEnv(func(o *Options) { o.EnablePropertyFilter = true })
	r := ownRequest("a >")
	r.ExpressionType = body.ExpressionSQL92
	_, _, err := e.svc.Pull(r, noWake)
	k, remark := outcome.Of(err)
	require.Equal(t, outcome.SubscriptionParseFailed, k, "the pull's own expression does not compile")
	require.Contains(t, remark, "parse the consumer's subscription failed: ")

	e.heartbeat("a >", body.ExpressionSQL92, 1)
	r.OwnSubscription = false
	_, _, err = e.svc.Pull(r, noWake)
	k, remark = outcome.Of(err)
	require.Equal(t, outcome.FilterDataNotExist, k, "the heartbeat's expression does not compile")
	require.Contains(t, remark, "The broker's consumer filter data is not exist!Your expression may be wrong! ")

	e.heartbeat("a > 1", body.ExpressionSQL92, 1)
	_, _, err = e.svc.Pull(r, noWake)
	require.NoError(t, err)
	f := e.store.reads[0].filter
	require.True(t, f.MatchByConsumeQueue(12345), "SQL92 filters by properties only")
	require.True(t, f.MatchByCommitLog([]byte("a\x012\x02")))
	require.False(t, f.MatchByCommitLog([]byte("a\x010\x02")))
}

func TestPullOwnSubscription(t *testing.T) {
	e := newEnv(func(o *Options) { o.EnablePropertyFilter = true })
	e.heartbeat("a || b", body.ExpressionTag, 1)
	_, _, err := e.svc.Pull(ownRequest("a || b"), noWake)
	require.NoError(t, err)
	require.Equal(t, 0, e.consumers.built, "the heartbeat's subscription stands in for the same expression")
	f := e.store.reads[0].filter
	hb, _ := e.consumers.Subscription("G", "T")
	for code := range hb.Codes {
		require.True(t, f.MatchByConsumeQueue(code))
	}
	require.False(t, f.MatchByConsumeQueue(42))
	require.True(t, f.MatchByCommitLog(nil))

	_, _, err = e.svc.Pull(ownRequest("c"), noWake)
	require.NoError(t, err)
	require.Equal(t, 1, e.consumers.built, "another expression is built")

	e.heartbeat("x > 1", body.ExpressionSQL92, 1)
	_, _, err = e.svc.Pull(ownRequest("x > 1"), noWake)
	require.NoError(t, err, "a SQL92 heartbeat serves a pull that labels the same expression TAG (the Go pull consumer)")
	require.Equal(t, 1, e.consumers.built)
	require.True(t, e.store.reads[2].filter.MatchByCommitLog([]byte("x\x015\x02")))

	r := ownRequest("")
	r.ExpressionType = ""
	_, _, err = e.svc.Pull(r, noWake)
	require.NoError(t, err, "no expression type is TAG")
	require.True(t, e.store.reads[3].filter.MatchByConsumeQueue(42), "an empty expression takes everything")
}

func TestPullNotFound(t *testing.T) {
	e := newEnv()
	e.store.next = store.GetResult{Status: store.OffsetOverflowOne, NextBeginOffset: 3, MaxOffset: 3}
	r := ownRequest("*")
	r.Commit, r.CommitOffset = true, 1
	res, held, err := e.svc.Pull(r, noWake)
	require.NoError(t, err)
	require.False(t, held, "a pull that may not be suspended is answered")
	require.Equal(t, outcome.PullNotFound, res.Status)
	require.Equal(t, "OFFSET_OVERFLOW_ONE", res.Remark)
	require.Nil(t, res.Release)
	require.Empty(t, e.metrics.out)
	require.Equal(t, []string{"G/T/1→3"}, e.metrics.pulled, "a pull that finds nothing still says where the group is")
	require.Equal(t, []int64{1}, e.offsets.commits)
}

func TestPullHeldAndWoken(t *testing.T) {
	e := newEnv()
	e.store.next = store.GetResult{Status: store.OffsetOverflowOne, NextBeginOffset: 3}
	r := ownRequest("a")
	r.Suspend, r.SuspendTimeout, r.Commit, r.CommitOffset = true, 15*time.Second, true, 1
	type woken struct {
		res Result
		err error
	}
	var got []woken
	_, held, err := e.svc.Pull(r, func(res Result, err error) { got = append(got, woken{res, err}) })
	require.NoError(t, err)
	require.True(t, held)
	require.Len(t, e.holds.held, 1)
	h := e.holds.held[0]
	require.Equal(t, longpoll.Request{Topic: "T", QueueID: 1, Offset: 3, Deadline: epoch.Add(15 * time.Second)},
		longpoll.Request{Topic: h.Topic, QueueID: h.QueueID, Offset: h.Offset, Deadline: h.Deadline})
	hb := client.NewSubscription(body.SubscriptionData{Topic: "T", SubString: "a"})
	for code := range hb.Codes {
		require.True(t, h.Match(code, nil), "a message tagged a wakes it")
	}
	require.False(t, h.Match(7, nil))
	require.Equal(t, []int64{1}, e.offsets.commits)
	require.Empty(t, got)

	e.store.next = store.GetResult{Status: store.Found, NextBeginOffset: 4, Records: [][]byte{[]byte("r")}}
	h.Wake(false)
	require.Len(t, got, 1)
	require.NoError(t, got[0].err)
	require.Equal(t, outcome.OK, got[0].res.Status)
	require.Len(t, got[0].res.Records, 1)
	require.Len(t, e.holds.held, 1, "a woken pull is not held again")
	require.Equal(t, []int64{1}, e.offsets.commits, "the offset was committed once, when the pull came")

	e.store.next = store.GetResult{Status: store.OffsetOverflowOne}
	_, _, _ = e.svc.Pull(r, func(res Result, err error) { got = append(got, woken{res, err}) })
	e.holds.held[1].Wake(true)
	require.Equal(t, outcome.PullNotFound, got[1].res.Status, "a timed-out pull is answered PULL_NOT_FOUND")

	_, _, _ = e.svc.Pull(r, func(res Result, err error) { got = append(got, woken{res, err}) })
	delete(e.topics, "T")
	e.holds.held[2].Wake(false)
	k, _ := outcome.Of(got[2].err)
	require.Equal(t, outcome.TopicNotExist, k, "a woken pull is checked again")
}

// TestHeldPullLimits: the suspend timeout is capped; a pull the holder refuses is SystemBusy
// saying why; a pull whose connection has ended is not run again when woken; a closed
// connection's pulls are released.
func TestHeldPullLimits(t *testing.T) {
	e := newEnv(func(o *Options) { o.MaxSuspendTimeout = 2 * time.Second })
	e.store.next = store.GetResult{Status: store.OffsetOverflowOne}
	r := ownRequest("*")
	r.Suspend, r.SuspendTimeout, r.Owner = true, 1e12*time.Millisecond, 42
	done := make(chan struct{})
	r.Done = done
	var woken int
	_, held, err := e.svc.Pull(r, func(Result, error) { woken++ })
	require.NoError(t, err)
	require.True(t, held)
	h := e.holds.held[0]
	require.Equal(t, epoch.Add(2*time.Second), h.Deadline, "capped at longPollingMaxSuspendMillis")
	require.Equal(t, uint64(42), h.Owner)

	close(done)
	reads := len(e.store.reads)
	h.Wake(false)
	require.Zero(t, woken, "nobody is there to answer")
	require.Len(t, e.store.reads, reads, "the pull is not run again")

	e.holds.full = errors.New("longpoll: too many held pulls: 3 pulls of this connection are held")
	_, held, err = e.svc.Pull(r, func(Result, error) {})
	require.False(t, held)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemBusy, Remark: "[PULL]the pull cannot be held: " +
		"longpoll: too many held pulls: 3 pulls of this connection are held; try again later"}, err)

	e.svc.ConnClosed(42)
	require.Equal(t, []uint64{42}, e.holds.released)
}

// TestWokenPullPanicIsAnswered: a panic while running a held pull again is answered SystemError
// before it goes on to the holder, which logs it.
func TestWokenPullPanicIsAnswered(t *testing.T) {
	e := newEnv()
	e.store.next = store.GetResult{Status: store.OffsetOverflowOne}
	r := ownRequest("*")
	r.Suspend, r.SuspendTimeout = true, time.Second
	var got error
	_, _, err := e.svc.Pull(r, func(_ Result, err error) { got = err })
	require.NoError(t, err)
	e.store.panics = true
	require.Panics(t, func() { e.holds.held[0].Wake(false) })
	k, remark := outcome.Of(got)
	require.Equal(t, outcome.SystemError, k)
	require.Contains(t, remark, "running the held pull again failed")
}

func TestPullShortPolling(t *testing.T) {
	e := newEnv(func(o *Options) { o.LongPollingEnable = false })
	e.store.next = store.GetResult{Status: store.OffsetOverflowOne}
	r := ownRequest("*")
	r.Suspend, r.SuspendTimeout = true, 15*time.Second
	_, held, err := e.svc.Pull(r, func(Result, error) {})
	require.NoError(t, err)
	require.True(t, held)
	require.Equal(t, epoch.Add(time.Second), e.holds.held[0].Deadline, "shortPollingTimeMills, 1 s by default")
}

func TestPullOnSlave(t *testing.T) {
	e := newEnv(func(o *Options) { o.Replica = policy.Replica{Slave: true, SlaveReadEnable: true} })
	g := e.groups["G"]
	g.BrokerID = 1
	e.groups["G"] = g
	e.store.next = store.GetResult{Status: store.OffsetOverflowBadly, NextBeginOffset: 3}
	r := ownRequest("*")
	r.Commit = true
	res, _, err := e.svc.Pull(r, noWake)
	require.NoError(t, err)
	require.Equal(t, outcome.PullRetryImmediately, res.Status, "a slave never moves an offset")
	require.Equal(t, int64(1), res.SuggestBrokerID)
	require.Empty(t, e.offsets.commits, "a slave commits no offsets")
}

func TestPullStoreClosed(t *testing.T) {
	e := newEnv()
	e.store.nilOK = true
	_, _, err := e.svc.Pull(ownRequest("*"), noWake)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "store getMessage returned nil: the store is closed"}, err)
}

func TestPullWithoutMetrics(t *testing.T) {
	e := newEnv()
	e.svc.Metrics = nil
	_, _, err := e.svc.Pull(ownRequest("*"), noWake)
	require.NoError(t, err)
}
