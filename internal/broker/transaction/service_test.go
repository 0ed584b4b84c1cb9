package transaction

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.uber.org/zap/zaptest"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/internal/store/storetest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const group = "PG_TX"

// fakeOffsets is an offset table.
type fakeOffsets struct {
	mu sync.Mutex
	m  map[string]int64
}

func (f *fakeOffsets) key(group, topic string, q int32) string {
	return topic + "@" + group + "/" + strconv.Itoa(int(q))
}

func (f *fakeOffsets) Query(group, topic string, q int32) (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.m[f.key(group, topic, q)]
	return v, ok
}

func (f *fakeOffsets) Commit(group, topic string, q int32, off int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[f.key(group, topic, q)] = off
}

// fakeChannel records the requests sent to a producer.
type fakeChannel struct {
	id     uint64
	closed bool
	mu     sync.Mutex
	reqs   []*protocol.Command
}

func (c *fakeChannel) ID() uint64         { return c.id }
func (c *fakeChannel) RemoteAddr() string { return "10.0.0.1:5555" }
func (c *fakeChannel) InvokeOneway(req *protocol.Command) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	c.reqs = append(c.reqs, req)
	return nil
}

func (c *fakeChannel) requests() []*protocol.Command {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*protocol.Command(nil), c.reqs...)
}

type closedErr struct{}

func (closedErr) Error() string { return "connection closed" }

var errClosed = closedErr{}

type fakeProducers map[string][]client.ClientChannel

func (f fakeProducers) Channels(group string) []client.ClientChannel { return f[group] }

type fakeTopics struct{}

func (fakeTopics) Get(topic string) (body.TopicConfig, bool) {
	return body.TopicConfig{TopicName: topic, ReadQueueNums: 1, WriteQueueNums: 1}, true
}

// env is a Service over a real store, with a producer connection for group.
type env struct {
	st      *store.Store
	svc     *Service
	offsets *fakeOffsets
	ch      *fakeChannel
}

var host = netip.MustParseAddrPort("127.0.0.1:10911")

func newEnv(t *testing.T, edit func(*Options)) *env {
	t.Helper()
	st := storetest.Open(t, storetest.Options(t.TempDir()))
	ch := &fakeChannel{id: 1}
	dead := &fakeChannel{id: 2, closed: true}
	e := &env{st: st, offsets: &fakeOffsets{m: map[string]int64{}}, ch: ch}
	o := Options{BrokerName: "broker-a", StoreHost: storetest.StoreHost, Timeout: time.Minute, CheckMax: 15, MaxDelayLevel: 18,
		// A second ahead of the store's clock, so that what was stored before a pass is never "fresh".
		Now: func() time.Time { return time.Now().Add(time.Second) }}
	if edit != nil {
		edit(&o)
	}
	producers := fakeProducers{group: {{Channel: dead, ClientID: "a"}, {Channel: ch, ClientID: "b"}}}
	e.svc = New(o, st, e.offsets, producers, fakeTopics{}, zaptest.NewLogger(t))
	t.Cleanup(func() { require.NoError(t, e.svc.Close()) })
	return e
}

// sendHalf stores a half message born age ago, as the send path does, and returns where it went.
func (e *env) sendHalf(t *testing.T, uniq string, age time.Duration, extra ...string) store.PutResult {
	t.Helper()
	kv := append([]string{"TRAN_MSG", "true", "PGROUP", group, "UNIQ_KEY", uniq, "TAGS", "tx"}, extra...)
	m := &store.Message{Topic: "Orders", QueueID: 2, SysFlag: message.SysFlagTransactionPrep,
		BornTimestamp: time.Now().Add(-age).UnixMilli(), BornHost: netip.MustParseAddrPort("10.0.0.1:5555"),
		Body: []byte("body of " + uniq), Properties: props(kv...)}
	require.True(t, IsHalfSend(m.Properties, 0))
	require.NoError(t, e.svc.Prepare(m))
	res := e.st.PutMessage(m)
	require.Equal(t, store.PutOK, res.Status)
	e.waitQueue(t, systopic.TransHalf, 0, res.QueueOffset+1)
	return res
}

func (e *env) waitQueue(t *testing.T, topic string, q int32, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return e.st.MaxOffsetInQueue(topic, q) >= n }, 10*time.Second, 2*time.Millisecond,
		"%s/%d never held %d entries", topic, q, n)
}

// read returns the messages of a queue from offset 0.
func (e *env) read(t *testing.T, topic string, q int32) []*message.MessageExt {
	t.Helper()
	r := e.st.GetMessage("test", topic, q, 0, 64, nil)
	require.NotNil(t, r)
	defer r.Release()
	var out []*message.MessageExt
	for _, rec := range r.Records {
		m, err := message.Decode(rec, true)
		require.NoError(t, err)
		out = append(out, m)
	}
	return out
}

func (e *env) end(res store.PutResult, state int32) error {
	return e.svc.End(EndRequest{ProducerGroup: group, TranStateTableOffset: res.QueueOffset, CommitLogOffset: res.WroteOffset,
		CommitOrRollback: state, MsgID: res.MsgID()})
}

func (e *env) committedOffset(topic string) int64 {
	off, _ := e.offsets.Query(systopic.TransCheckGroup, topic, 0)
	return off
}

func TestPrepareRejected(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RejectTransactionMessage = true })
	m := &store.Message{Topic: "Orders", Properties: props("TRAN_MSG", "true")}
	require.ErrorIs(t, e.svc.Prepare(m), ErrRejected)
	require.Equal(t, "Orders", m.Topic, "a refused message is left alone")
}

func TestEndCommit(t *testing.T) {
	e := newEnv(t, nil)
	half := e.sendHalf(t, "U-COMMIT", 0)
	require.Zero(t, e.st.MaxOffsetInQueue("Orders", 2), "a half message is not in its topic")
	require.NoError(t, e.end(half, StateCommit))

	e.waitQueue(t, "Orders", 2, 1)
	got := e.read(t, "Orders", 2)
	require.Len(t, got, 1)
	m := got[0]
	require.Equal(t, "body of U-COMMIT", string(m.Body))
	require.Equal(t, "U-COMMIT", m.UniqKey())
	require.Equal(t, "tx", m.Tags())
	require.Equal(t, group, m.Props[message.PropertyProducerGroup])
	require.Equal(t, message.SysFlagTransactionCommit, message.TransactionType(m.SysFlag))
	require.Equal(t, half.WroteOffset, m.PreparedTransactionOffset)
	require.NotContains(t, m.Props, message.PropertyRealTopic)

	e.waitQueue(t, systopic.TransOpHalf, 0, 1)
	ops := e.read(t, systopic.TransOpHalf, 0)
	require.Len(t, ops, 1)
	require.Equal(t, strconv.FormatInt(half.QueueOffset, 10), string(ops[0].Body))
	require.Equal(t, RemoveTag, ops[0].Tags())
	require.Equal(t, storetest.StoreHost, ops[0].BornHost, "the broker itself wrote it")
}

func TestEndRollbackAndUnknown(t *testing.T) {
	e := newEnv(t, nil)
	half := e.sendHalf(t, "U-ROLL", 0)
	require.NoError(t, e.end(half, StateUnknown))
	require.NoError(t, e.end(half, StateRollback))
	e.waitQueue(t, systopic.TransOpHalf, 0, 1)
	require.Len(t, e.read(t, systopic.TransOpHalf, 0), 1, "unknown writes nothing, rollback one op message")
	require.Zero(t, e.st.MaxOffsetInQueue("Orders", 2))
}

func TestEndRefusesWhatIsNotItsHalf(t *testing.T) {
	e := newEnv(t, nil)
	half := e.sendHalf(t, "U-BAD", 0)
	normal := e.st.PutMessage(storetest.Msg("Orders", 2, []byte("plain"), map[string]string{"PGROUP": group}))
	require.Equal(t, store.PutOK, normal.Status)
	logEnd := e.st.CommitLogMaxOffset()
	good := EndRequest{ProducerGroup: group, TranStateTableOffset: half.QueueOffset, CommitLogOffset: half.WroteOffset,
		CommitOrRollback: StateCommit, MsgID: half.MsgID()}
	for _, tc := range []struct {
		name   string
		edit   func(*EndRequest)
		remark string
	}{
		{"other group", func(r *EndRequest) { r.ProducerGroup = "PG_OTHER" }, "The producer group wrong"},
		{"other queue offset", func(r *EndRequest) { r.TranStateTableOffset++ }, "The transaction state table offset wrong"},
		{"no record there", func(r *EndRequest) { r.CommitLogOffset = 987654321 }, "Find prepared transaction message failed"},
		{"inside a record", func(r *EndRequest) { r.CommitLogOffset++ }, "Find prepared transaction message failed"},
		{"not a half message", func(r *EndRequest) { r.CommitLogOffset = normal.WroteOffset }, "not a half message"},
		{"bad state", func(r *EndRequest) { r.CommitOrRollback = 4 }, "commitOrRollback 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := good
			tc.edit(&r)
			err := e.svc.End(r)
			var ee *EndError
			require.ErrorAs(t, err, &ee)
			require.Contains(t, ee.Error(), tc.remark)
		})
	}
	require.Equal(t, logEnd, e.st.CommitLogMaxOffset(), "nothing committed, nothing settled")
}

// TestEndAsksAboutTheRealTopic: the request's check is asked about the topic the half message
// was sent to; a refusal commits and settles nothing.
func TestEndAsksAboutTheRealTopic(t *testing.T) {
	e := newEnv(t, nil)
	half := e.sendHalf(t, "U-ACL", 0)
	logEnd := e.st.CommitLogMaxOffset()
	refused := errors.New("refused")
	var asked []string
	r := EndRequest{ProducerGroup: group, TranStateTableOffset: half.QueueOffset, CommitLogOffset: half.WroteOffset,
		CommitOrRollback: StateCommit, MsgID: half.MsgID(), MayWrite: func(topic string) error {
			asked = append(asked, topic)
			return refused
		}}
	require.Same(t, refused, e.svc.End(r))
	require.Equal(t, []string{"Orders"}, asked)
	require.Equal(t, logEnd, e.st.CommitLogMaxOffset(), "nothing committed, nothing settled")
}

// TestCheckBack: an old half message with no op message is put back with TRANSACTION_CHECK_TIMES=1
// and its producer is asked about the copy; once the copy is committed, the next pass moves past it.
func TestCheckBack(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Timeout = 50 * time.Millisecond })
	settled := e.sendHalf(t, "U-SETTLED", time.Hour)
	require.NoError(t, e.end(settled, StateRollback))
	half := e.sendHalf(t, "U-CHECK", time.Hour)
	e.waitQueue(t, systopic.TransOpHalf, 0, 1)

	e.svc.Check()
	reqs := e.ch.requests()
	require.Len(t, reqs, 1, "one check, for the half message without an op message, to the live connection")
	req := reqs[0]
	require.Equal(t, protocol.CheckTransactionState, req.RequestCode())
	copyQ := brokerInt(t, req, "tranStateTableOffset")
	copyPhy := brokerInt(t, req, "commitLogOffset")
	require.Equal(t, half.QueueOffset+1, copyQ, "the copy follows the half message in the half queue")
	require.Greater(t, copyPhy, half.WroteOffset)
	require.Equal(t, "U-CHECK", req.ExtFields.Get("msgId"))
	require.Equal(t, "U-CHECK", req.ExtFields.Get("transactionId"))
	require.Equal(t, message.OffsetMsgID(storetest.StoreHost, copyPhy), req.ExtFields.Get("offsetMsgId"))
	require.Equal(t, "Orders", req.ExtFields.Get("topic"))
	require.Equal(t, "broker-a", req.ExtFields.Get("brokerName"))
	recs, err := message.DecodeAll(req.Body, true)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	rec := recs[0]
	require.Equal(t, "Orders", rec.Topic, "the body names the real topic")
	require.Equal(t, int32(2), rec.QueueID)
	require.Equal(t, copyQ, rec.QueueOffset)
	require.Equal(t, copyPhy, rec.PhysicalOffset)
	require.Equal(t, "1", rec.Props[message.PropertyTransactionCheckTimes])
	require.Equal(t, group, rec.Props[message.PropertyProducerGroup])
	require.Equal(t, "body of U-CHECK", string(rec.Body))
	stored := e.st.LookMessageByOffset(copyPhy)
	require.NotNil(t, stored)
	require.Equal(t, stored.StoreTimestamp, rec.StoreTimestamp)
	require.Equal(t, stored.Properties, rec.Properties)

	require.Equal(t, half.QueueOffset+1, e.committedOffset(systopic.TransHalf), "the pass moved past both")
	require.Equal(t, int64(1), e.committedOffset(systopic.TransOpHalf), "the op message of the settled half is done")

	// The producer commits the copy it was asked about.
	require.NoError(t, e.svc.End(EndRequest{ProducerGroup: group, TranStateTableOffset: copyQ, CommitLogOffset: copyPhy,
		CommitOrRollback: StateCommit, FromTransactionCheck: true, MsgID: "U-CHECK"}))
	e.waitQueue(t, systopic.TransOpHalf, 0, 2)
	e.waitQueue(t, systopic.TransHalf, 0, copyQ+1)
	e.svc.Check()
	require.Len(t, e.ch.requests(), 1, "the committed copy is not checked again")
	require.Equal(t, copyQ+1, e.committedOffset(systopic.TransHalf))
	e.svc.Check()
	require.Equal(t, int64(2), e.committedOffset(systopic.TransOpHalf), "op messages behind the half offset are done")
	e.waitQueue(t, "Orders", 2, 1)
	require.Equal(t, "U-CHECK", e.read(t, "Orders", 2)[0].UniqKey())
}

func brokerInt(t *testing.T, req *protocol.Command, key string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(req.ExtFields.Get(key), 10, 64)
	require.NoError(t, err, "%s=%q", key, req.ExtFields.Get(key))
	return n
}

// TestCheckDiscardsAfterMax: a half message its producer never ends is checked CheckMax times,
// then dropped.
func TestCheckDiscardsAfterMax(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Timeout = time.Millisecond; o.CheckMax = 3 })
	e.sendHalf(t, "U-MAX", time.Hour)
	for pass := 1; pass <= 5; pass++ {
		e.svc.Check()
		want := min(pass, 3)
		require.Len(t, e.ch.requests(), want, "after pass %d", pass)
		e.waitQueue(t, systopic.TransHalf, 0, int64(want+1))
		require.Equal(t, int64(want+1), e.st.MaxOffsetInQueue(systopic.TransHalf, 0), "copies after pass %d", pass)
	}
	for i, req := range e.ch.requests() {
		recs, err := message.DecodeAll(req.Body, true)
		require.NoError(t, err)
		require.Equal(t, strconv.Itoa(i+1), recs[0].Props[message.PropertyTransactionCheckTimes])
	}
	require.Equal(t, int64(4), e.committedOffset(systopic.TransHalf), "the last copy was discarded")
}

func TestCheckLeavesYoungAndRecent(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Timeout = time.Hour })
	e.sendHalf(t, "U-YOUNG", 0)
	e.sendHalf(t, "U-OLD", 2*time.Hour) // behind a young one: waits for it
	e.svc.Check()
	require.Empty(t, e.ch.requests())
	require.Equal(t, int64(0), e.committedOffset(systopic.TransHalf))

	e2 := newEnv(t, func(o *Options) { o.Timeout = time.Millisecond; o.Now = time.Now; o.FileReservedTime = time.Minute })
	e2.sendHalf(t, "U-ANCIENT", time.Hour)
	e2.svc.Check()
	require.Empty(t, e2.ch.requests(), "born before its CommitLog file may be deleted: discarded unchecked")
	require.Equal(t, int64(1), e2.committedOffset(systopic.TransHalf))
}

// TestCheckWithoutProducer: with no connection of its group, the half message is still put back
// and counted as checked, as in Java.
func TestCheckWithoutProducer(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Timeout = time.Millisecond })
	res := e.st.PutMessage(&store.Message{Topic: systopic.TransHalf, BornTimestamp: time.Now().Add(-time.Hour).UnixMilli(),
		BornHost: host, Body: []byte("x"),
		Properties: props("PGROUP", "PG_GONE", "REAL_TOPIC", "Orders", "REAL_QID", "0", "UNIQ_KEY", "U-GONE")})
	require.Equal(t, store.PutOK, res.Status)
	e.waitQueue(t, systopic.TransHalf, 0, 1)
	e.svc.Check()
	require.Empty(t, e.ch.requests())
	e.waitQueue(t, systopic.TransHalf, 0, 2)
	require.Equal(t, "1", e.read(t, systopic.TransHalf, 0)[1].Props[message.PropertyTransactionCheckTimes])
}

// TestCheckImmunity: a half message with CHECK_IMMUNITY_TIME_IN_SECONDS is put back unchecked
// until its immunity ends, remembering its original offset; a rollback of the original settles
// the copies.
func TestCheckImmunity(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Timeout = time.Millisecond })
	half := e.sendHalf(t, "U-IMMUNE", time.Minute, message.PropertyCheckImmunityTimeSeconds, "3600")
	e.svc.Check()
	require.Empty(t, e.ch.requests())
	e.waitQueue(t, systopic.TransHalf, 0, 2)
	cp := e.read(t, systopic.TransHalf, 0)[1]
	require.Equal(t, "0", cp.Props[message.PropertyTranPreparedQueueOffset])
	require.NotContains(t, cp.Props, message.PropertyTransactionCheckTimes, "an immune copy is not a check")

	require.NoError(t, e.end(half, StateRollback))
	e.waitQueue(t, systopic.TransOpHalf, 0, 1)
	logEnd := e.st.CommitLogMaxOffset()
	e.svc.Check()
	require.Empty(t, e.ch.requests())
	require.Equal(t, logEnd, e.st.CommitLogMaxOffset(), "the copy was settled by the original's op message: nothing put back")
	require.Equal(t, int64(2), e.committedOffset(systopic.TransHalf))
}

// TestCheckLoop: Start runs passes every CheckInterval until Close.
func TestCheckLoop(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Timeout = time.Millisecond; o.CheckInterval = 10 * time.Millisecond })
	e.sendHalf(t, "U-LOOP", time.Hour)
	e.svc.Start()
	require.Eventually(t, func() bool { return len(e.ch.requests()) >= 2 }, 10*time.Second, 5*time.Millisecond,
		"the loop checks the half message again and again")
	require.NoError(t, e.svc.Close())
	n := len(e.ch.requests())
	e.svc.Check() // a stopped service makes no more passes
	require.Len(t, e.ch.requests(), n)
}

type fakeMetrics struct{ events []string }

func (f *fakeMetrics) TransactionEnded(topic string, commit bool, born int64) {
	f.events = append(f.events, fmt.Sprintf("end %s commit=%v born=%v", topic, commit, born > 0))
}

func (f *fakeMetrics) HalfDiscarded(topic string) { f.events = append(f.events, "discard "+topic) }

func TestMetricsOfEndsAndDiscards(t *testing.T) {
	m := &fakeMetrics{}
	e := newEnv(t, func(o *Options) { o.Metrics = m; o.Timeout = time.Millisecond; o.CheckMax = 1 })
	require.NoError(t, e.end(e.sendHalf(t, "U-1", 0), StateCommit))
	half := e.sendHalf(t, "U-2", 0)
	require.NoError(t, e.end(half, StateUnknown))
	require.NoError(t, e.end(half, StateRollback))
	require.Equal(t, []string{"end Orders commit=true born=true", "end Orders commit=false born=true"}, m.events,
		"the real topic, not the half topic; an unknown state ends nothing")

	m.events = nil
	e.sendHalf(t, "U-3", time.Hour)
	e.svc.Check() // checked once, the maximum: a copy is put back
	e.waitQueue(t, systopic.TransHalf, 0, 4)
	e.svc.Check() // the copy is discarded
	require.Equal(t, []string{"discard Orders"}, m.events)
}
