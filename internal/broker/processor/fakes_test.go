package processor_test

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/brokertest"
	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/hastatus"
	"github.com/rocketgo/rocketgo/internal/broker/processor"
	"github.com/rocketgo/rocketgo/internal/broker/pull"
	"github.com/rocketgo/rocketgo/internal/broker/query"
	"github.com/rocketgo/rocketgo/internal/broker/relay"
	"github.com/rocketgo/rocketgo/internal/broker/send"
	"github.com/rocketgo/rocketgo/internal/broker/sendback"
	"github.com/rocketgo/rocketgo/internal/broker/stats"
	"github.com/rocketgo/rocketgo/internal/broker/transaction"
	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// fakes stands in for every service: each method records what it was asked (calls) and answers
// with the fields set for it. The handlers run on a real remoting server, so the tests talk to
// them in frames, without a broker behind.
type fakes struct {
	mu       sync.Mutex
	calls    []any
	a        answers
	wake     func(pull.Result, error)
	channels []client.ClientChannel
	pulled   []pulledBy
	released []uint64
}

// answers are what the fake services answer; the tests change them with set.
type answers struct {
	err error // returned by every method that can fail

	sendResult  send.Result
	replyResult send.ReplyResult
	pullResult  pull.Result
	pullHeld    bool
	committed   int64
	ids         []string
	record      []byte
	queryRes    *store.QueryResult
	answer      relay.Answer
	resetTable  map[body.MessageQueue]int64
	statuses    map[string]map[body.MessageQueue]int64
	locked      []body.MessageQueue
	writable    error
	haStatus    hastatus.Status
}

// called records a call and returns the answers to give.
func (f *fakes) called(v any) answers {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, v)
	return f.a
}

// awaitPulls waits until n pulls have reached the fake.
func (f *fakes) awaitPulls(t *testing.T, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		pulls := 0
		for _, c := range f.calls {
			if _, ok := c.(pull.Request); ok {
				pulls++
			}
		}
		return pulls >= n
	}, 5*time.Second, time.Millisecond)
}

// count is the number of calls so far.
func (f *fakes) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// set changes the answers.
func (f *fakes) set(edit func(*answers)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	edit(&f.a)
}

// woken returns the wake callback of the last pull (set before the pull is counted, so after
// awaitPulls it is that pull's).
func (f *fakes) woken() func(pull.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.wake
}

// channel returns the channel of the i-th heartbeat.
func (f *fakes) channel(i int) client.ClientChannel {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.channels[i]
}

func (f *fakes) last() any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return nil
	}
	return f.calls[len(f.calls)-1]
}

type (
	sendCall   struct{ R send.Request }
	batchCall  struct{ R send.Request }
	commitCall struct {
		Group, Topic string
		Q            int32
		Off          int64
	}
	queueCall struct {
		What, Topic string
		Q           int32
		TS          int64
	}
	unregister  struct{ Group, Producer, Consumer string }
	groupDelete struct {
		Group         string
		RemoveOffsets bool
	}
	consumeStats struct{ Group, Only string }
	timeSpanCall struct{ Topic, Group string }
	directCall   struct{ Group, ClientID, MsgID string }
	statusCall   struct{ Topic, Group, Only string }
	lockCall     struct {
		Unlock          bool
		Group, ClientID string
		MQs             []body.MessageQueue
	}
	configUpdate  struct{ Text string }
	committedCall struct {
		Group, Topic string
		Q            int32
	}
)

// Send records the request without its connection's port and id, which vary (Owner must be set).
func (f *fakes) Send(r send.Request) (send.Result, error) {
	r.BornHost = netip.AddrPortFrom(r.BornHost.Addr(), 0) // the test client's port varies
	r.Owner = ownerSet(r.Owner)
	a := f.called(sendCall{r})
	return a.sendResult, a.err
}

// SendAsync answers at once, as Send does: the handler tests see one call either way.
func (f *fakes) SendAsync(r send.Request, _ send.Answerer) (send.Result, bool, error) {
	res, err := f.Send(r)
	return res, false, err
}

func (f *fakes) SendBatch(r send.Request) (send.Result, error) {
	r.BornHost = netip.AddrPortFrom(r.BornHost.Addr(), 0)
	r.Owner = ownerSet(r.Owner)
	a := f.called(batchCall{r})
	return a.sendResult, a.err
}

func (f *fakes) SendBack(r sendback.Request) error {
	r.Owner = ownerSet(r.Owner)
	return f.called(r).err
}

// ownerSet is what the fakes record of a request's connection id: 0 when it was set, as every
// request from a connection must have it, else a value no expected request has.
func ownerSet(owner uint64) uint64 {
	if owner != 0 {
		return 0
	}
	return 1 << 63
}

// Pull records the request without its connection (Owner, Done), which pulled keeps.
func (f *fakes) Pull(r pull.Request, wake func(pull.Result, error)) (pull.Result, bool, error) {
	f.mu.Lock()
	f.wake = wake
	f.pulled = append(f.pulled, pulledBy{r.Owner, r.Done})
	f.mu.Unlock()
	r.Owner, r.Done = 0, nil
	a := f.called(r)
	return a.pullResult, a.pullHeld, a.err
}

// ConnClosed records the closed connection's owner id.
func (f *fakes) ConnClosed(owner uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = append(f.released, owner)
}

type pulledBy struct {
	owner uint64
	done  <-chan struct{}
}

// connOf returns the connection of the i-th pull, and the owners released so far.
func (f *fakes) connOf(i int) (pulledBy, []uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pulled[i], append([]uint64(nil), f.released...)
}

func (f *fakes) Committed(group, topic string, q int32) (int64, error) {
	a := f.called(committedCall{group, topic, q})
	return a.committed, a.err
}

func (f *fakes) Commit(_ uint64, group, topic string, q int32, off int64) error {
	return f.called(commitCall{group, topic, q, off}).err
}

func (f *fakes) MaxOffset(topic string, q int32) int64 {
	f.called(queueCall{"max", topic, q, 0})
	return 11
}

func (f *fakes) MinOffset(topic string, q int32) int64 {
	f.called(queueCall{"min", topic, q, 0})
	return 2
}

func (f *fakes) EarliestTime(topic string, q int32) int64 {
	f.called(queueCall{"earliest", topic, q, 0})
	return 1234
}

func (f *fakes) OffsetByTime(topic string, q int32, ts int64) int64 {
	f.called(queueCall{"bytime", topic, q, ts})
	return 7
}

func (f *fakes) All() body.ConsumerOffsetSerializeWrapper {
	return body.ConsumerOffsetSerializeWrapper{OffsetTable: map[string]map[int32]int64{"T@G": {0: 3}}}
}

// members is the Members service of fakes (its method names clash with others').
type members struct{ *fakes }

func (m members) Heartbeat(ch client.ClientChannel, hb body.HeartbeatData) error {
	m.mu.Lock()
	m.channels = append(m.channels, ch)
	m.mu.Unlock()
	return m.called(hb).err
}

func (m members) Unregister(chID uint64, producerGroup, consumerGroup string) {
	m.called(unregister{"", producerGroup, consumerGroup})
}

func (m members) ConsumerIDs(group string) ([]string, error) {
	a := m.called(group)
	return a.ids, a.err
}

func (m members) ConnClosed(chID uint64) { m.called("closed") }

func (f *fakes) ByKey(q query.KeyQuery) (*store.QueryResult, error) {
	a := f.called(q)
	return a.queryRes, a.err
}

// Record reads a record of topic recordTopic: a check the handler passes is asked about it.
func (f *fakes) Record(off int64, mayRead func(string) error) ([]byte, error) {
	a := f.called(off)
	if err := check(mayRead); err != nil {
		return nil, err
	}
	return a.record, a.err
}

// recordTopic is the topic of every record the fakes read.
const recordTopic = "RecordTopic"

func check(may func(string) error) error {
	if may == nil {
		return nil
	}
	return may(recordTopic)
}

func (f *fakes) End(r transaction.EndRequest) error { return f.called(r).err }

// topics is the TopicAdmin service of fakes.
type topics struct{ *fakes }

func (t topics) Update(tc body.TopicConfig) error { return t.called(tc).err }
func (t topics) Delete(name string) error         { return t.called("delete " + name).err }
func (t topics) All() body.TopicConfigSerializeWrapper {
	return body.TopicConfigSerializeWrapper{TopicConfigTable: map[string]body.TopicConfig{"T": body.NewTopicConfig("T")}}
}
func (t topics) SystemTopics() []string { return []string{"A", "B"} }

// groups is the GroupAdmin service of fakes.
type groups struct{ *fakes }

func (g groups) Writable() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.a.writable
}
func (g groups) Update(cfg body.SubscriptionGroupConfig, _ string) error {
	return g.called(cfg).err
}
func (g groups) Delete(group string, removeOffsets bool, _ string) error {
	return g.called(groupDelete{group, removeOffsets}).err
}
func (g groups) All() body.SubscriptionGroupWrapper {
	return body.SubscriptionGroupWrapper{SubscriptionGroupTable: map[string]body.SubscriptionGroupConfig{"G": body.NewSubscriptionGroupConfig("G")}}
}

// statsFake is the Stats service of fakes.
type statsFake struct{ *fakes }

func (s statsFake) RuntimeInfo() map[string]string {
	return map[string]string{"brokerVersionDesc": "V4_9_8"}
}
func (s statsFake) TopicStats(name string) (body.TopicStatsTable, error) {
	return body.TopicStatsTable{OffsetTable: map[body.MessageQueue]body.TopicOffset{
		{Topic: name, BrokerName: "b", QueueID: 0}: {MinOffset: 1, MaxOffset: 5}}}, s.called("stats " + name).err
}
func (s statsFake) ConsumeStats(group, only string) body.ConsumeStats {
	s.called(consumeStats{group, only})
	return body.ConsumeStats{OffsetTable: map[body.MessageQueue]body.OffsetWrapper{}}
}
func (s statsFake) Connections(group string) (body.ConsumerConnection, error) {
	return body.ConsumerConnection{MessageModel: "CLUSTERING"}, s.called("connections " + group).err
}
func (s statsFake) ConsumedBy(topic string) []string { return []string{"G1", "G2"} }
func (s statsFake) TimeSpans(topic, group string) ([]stats.QueueTimeSpan, error) {
	return []stats.QueueTimeSpan{{DelayTime: 9}}, s.called(timeSpanCall{topic, group}).err
}

// config is the Config service of fakes.
type config struct{ *fakes }

func (c config) Version() body.DataVersion { return body.DataVersion{Timestamp: 42, Counter: 1} }
func (c config) Text() string              { return "brokerName=b\n" }
func (c config) Update(text, _ string) error {
	return c.called(configUpdate{text}).err
}

// relayFake is the Relay service of fakes.
type relayFake struct{ *fakes }

func (r relayFake) RunningInfo(_ context.Context, q relay.RunningInfoQuery) (relay.Answer, error) {
	a := r.called(q)
	return a.answer, a.err
}
func (r relayFake) ConsumeDirectly(_ context.Context, group, clientID, msgID string, mayRead func(string) error) (relay.Answer, error) {
	a := r.called(directCall{group, clientID, msgID})
	if err := check(mayRead); err != nil {
		return relay.Answer{}, err
	}
	return a.answer, a.err
}
func (r relayFake) ResetOffset(q relay.ResetRequest) (map[body.MessageQueue]int64, error) {
	q.From = ""
	a := r.called(q)
	return a.resetTable, a.err
}
func (r relayFake) ConsumerStatus(_ context.Context, topic, group, only string) (map[string]map[body.MessageQueue]int64, error) {
	a := r.called(statusCall{topic, group, only})
	return a.statuses, a.err
}

func (f *fakes) TryLockBatch(group string, mqs []body.MessageQueue, clientID string) []body.MessageQueue {
	return f.called(lockCall{false, group, clientID, mqs}).locked
}

func (f *fakes) UnlockBatch(group string, mqs []body.MessageQueue, clientID string) {
	f.called(lockCall{true, group, clientID, mqs})
}

func (f *fakes) Encode() ([]byte, error) {
	return []byte(`{"offsetTable":{}}`), f.called("delay offsets").err
}

// serve starts a remoting server with the processor over f and dials it.
func serve(t *testing.T, f *fakes) *brokertest.Conn {
	t.Helper()
	return serveWith(t, f, processor.Options{RegionID: "DefaultRegion", TraceOn: true})
}

// serveWith is serve with the processor's options.
func serveWith(t *testing.T, f *fakes, opts processor.Options) *brokertest.Conn {
	t.Helper()
	p := processor.New(opts, processor.Services{
		Send: f, SendBack: f, Pull: f, Offsets: f, Members: members{f}, Query: f, EndTx: f,
		Topics: topics{f}, Groups: groups{f}, Stats: statsFake{f}, Config: config{f}, Relay: relayFake{f},
		Locks: f, DelayOffsets: f, OffsetAdmin: offsetAdmin{f}, Timers: timersFake{f}, HA: haFake{f},
	})
	srv := remoting.NewServer(remoting.ServerOptions{Addr: "127.0.0.1:0", OnDisconnect: p.ConnClosed}, nil)
	p.Register(srv)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return brokertest.Dial(t, srv.Addr().String())
}
