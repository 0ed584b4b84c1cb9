package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type channel struct{ id uint64 }

func (c channel) ID() uint64                           { return c.id }
func (c channel) RemoteAddr() string                   { return "10.0.0.1:1" }
func (c channel) InvokeOneway(*protocol.Command) error { return nil }

// fakeClients answers by channel id: err[id] fails the call, otherwise a table or an answer.
type fakeClients struct {
	mu      sync.Mutex
	err     map[uint64]error
	tables  map[uint64]map[body.MessageQueue]int64
	asked   []string
	notices []ResetNotice
	block   bool // wait for the context to end
}

func (f *fakeClients) record(ctx context.Context, what string, ch client.Channel) error {
	f.mu.Lock()
	f.asked = append(f.asked, fmt.Sprintf("%s/%d", what, ch.ID()))
	err := f.err[ch.ID()]
	f.mu.Unlock()
	if f.block {
		<-ctx.Done()
		return ctx.Err()
	}
	return err
}

func (f *fakeClients) RunningInfo(ctx context.Context, ch client.Channel, q RunningInfoQuery) (Answer, error) {
	if err := f.record(ctx, "info", ch); err != nil {
		return Answer{}, err
	}
	return Answer{Code: 0, Remark: fmt.Sprint(q.Jstack), Body: []byte(q.ClientID)}, nil
}

func (f *fakeClients) ConsumeDirectly(ctx context.Context, ch client.Channel, q DirectQuery) (Answer, error) {
	if err := f.record(ctx, "direct", ch); err != nil {
		return Answer{}, err
	}
	return Answer{Code: 0, Remark: q.BrokerName + "/" + q.MsgID, Body: q.Record}, nil
}

func (f *fakeClients) ConsumerStatus(ctx context.Context, ch client.Channel, _, _ string) (map[body.MessageQueue]int64, error) {
	if err := f.record(ctx, "status", ch); err != nil {
		return nil, err
	}
	if ch.ID() == panicky {
		panic("a client answer the broker could not handle")
	}
	return f.tables[ch.ID()], nil
}

func (f *fakeClients) ResetOffset(ch client.Channel, n ResetNotice) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.notices = append(f.notices, n)
	return f.err[ch.ID()]
}

// panicky is the channel id whose status call panics.
const panicky = 9

type fakeConsumers map[string][]client.ClientChannel

func (f fakeConsumers) Channels(g string) []client.ClientChannel { return f[g] }

type fakeMessages map[string][]byte

// RecordByID finds records of topic T.
func (f fakeMessages) RecordByID(id string, mayRead func(string) error) ([]byte, error) {
	if rec, ok := f[id]; ok {
		if mayRead != nil {
			if err := mayRead("T"); err != nil {
				return nil, err
			}
		}
		return rec, nil
	}
	return nil, outcome.Errorf(outcome.SystemError, "bad msgId %q", id)
}

type fakeOffsets map[int32]int64

func (f fakeOffsets) Query(_, _ string, q int32) (int64, bool) {
	off, ok := f[q]
	return off, ok
}

func (f fakeOffsets) Commit(_, _ string, q int32, off int64) { f[q] = off }

// fakeStore: every queue ends at 10; the offset of time ts is ts/100.
type fakeStore struct{}

func (fakeStore) MinOffsetInQueue(string, int32) int64                  { return 2 }
func (fakeStore) MaxOffsetInQueue(string, int32) int64                  { return 10 }
func (fakeStore) OffsetInQueueByTime(_ string, _ int32, ts int64) int64 { return ts / 100 }

type fakeTopics map[string]int

func (f fakeTopics) Get(t string) (body.TopicConfig, bool) {
	n, ok := f[t]
	return body.TopicConfig{TopicName: t, ReadQueueNums: n, WriteQueueNums: n}, ok
}

type fakeGroups map[string]bool

func (f fakeGroups) Get(g string) (body.SubscriptionGroupConfig, bool) {
	return body.NewSubscriptionGroupConfig(g), f[g]
}

type env struct {
	svc       *Service
	clients   *fakeClients
	consumers fakeConsumers
	offsets   fakeOffsets
}

func member(id uint64, clientID string, version int32) client.ClientChannel {
	return client.ClientChannel{Channel: channel{id}, ClientID: clientID, Version: version}
}

func newEnv(t *testing.T) *env {
	e := &env{clients: &fakeClients{err: map[uint64]error{}, tables: map[uint64]map[body.MessageQueue]int64{}},
		consumers: fakeConsumers{"G": {member(1, "c1", 409), member(2, "c2", 409)}},
		offsets:   fakeOffsets{0: 5, 1: 2}}
	e.svc = New(Options{BrokerName: "broker-a", CallTimeout: time.Minute}, Deps{Groups: fakeGroups{"G": true, "Offline": true}, Consumers: e.consumers,
		Messages: fakeMessages{"M1": []byte("record")}, Offsets: e.offsets, Store: fakeStore{},
		Topics: fakeTopics{"T": 2}, Clients: e.clients}, nil)
	t.Cleanup(e.svc.Close)
	return e
}

func TestRunningInfo(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.RunningInfo(context.Background(), RunningInfoQuery{Group: "G", ClientID: "c2", Jstack: true})
	require.NoError(t, err)
	require.Equal(t, Answer{Remark: "true", Body: []byte("c2")}, a)
	require.Equal(t, []string{"info/2"}, e.clients.asked)

	_, err = e.svc.RunningInfo(context.Background(), RunningInfoQuery{Group: "G", ClientID: "c9"})
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "The Consumer <G> <c9> not online"}, err)
}

func TestCallFailures(t *testing.T) {
	e := newEnv(t)
	q := RunningInfoQuery{Group: "G", ClientID: "c1"}
	e.clients.err[1] = ErrNotCallable
	_, err := e.svc.RunningInfo(context.Background(), q)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "The Consumer <G> <c1> not online"}, err,
		"a member on another protocol is not online for this one")
	e.clients.err[1] = errors.New("connection reset")
	_, err = e.svc.RunningInfo(context.Background(), q)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "invoke consumer <G> <c1> Exception: connection reset"}, err)

	e.svc.opts.CallTimeout = time.Millisecond
	e.clients.block = true
	_, err = e.svc.RunningInfo(context.Background(), q)
	require.Equal(t, &outcome.Error{Kind: outcome.ClientTimeout, Remark: "consumer <G> <c1> Timeout: context deadline exceeded"}, err)
}

func TestConsumeDirectly(t *testing.T) {
	e := newEnv(t)
	a, err := e.svc.ConsumeDirectly(context.Background(), "G", "c1", "M1", nil)
	require.NoError(t, err)
	require.Equal(t, Answer{Remark: "broker-a/M1", Body: []byte("record")}, a)
	_, err = e.svc.ConsumeDirectly(context.Background(), "G", "c1", "M2", nil)
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: `bad msgId "M2"`}, err)
	require.Len(t, e.clients.asked, 1, "a message that is not found is not relayed")
	refused := errors.New("refused")
	_, err = e.svc.ConsumeDirectly(context.Background(), "G", "c1", "M1", func(string) error { return refused })
	require.Same(t, refused, err)
	require.Len(t, e.clients.asked, 1, "a message the requester may not read is not relayed")
}

func TestResetOffset(t *testing.T) {
	e := newEnv(t)
	r := ResetRequest{Topic: "T", Group: "G", Timestamp: 300, Language: "CPP"}
	table, err := e.svc.ResetOffset(r)
	require.NoError(t, err)
	want := map[body.MessageQueue]int64{
		{Topic: "T", BrokerName: "broker-a", QueueID: 0}: 3,
		{Topic: "T", BrokerName: "broker-a", QueueID: 1}: 2, // forward without force stays
	}
	require.Equal(t, want, table)
	require.Equal(t, fakeOffsets{0: 3, 1: 2}, e.offsets, "committed here")
	require.Equal(t, []ResetNotice{{ResetRequest: r, Offsets: want}, {ResetRequest: r, Offsets: want}}, e.clients.notices)

	e.clients.err[1] = errors.New("gone")
	table, err = e.svc.ResetOffset(ResetRequest{Topic: "T", Group: "G", Timestamp: -1, Force: true})
	require.NoError(t, err, "a member that cannot be told does not fail the reset")
	require.Equal(t, int64(10), table[body.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 1}], "-1 is the end")
	require.Len(t, e.clients.notices, 4)
}

func TestResetOffsetRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*env)
		r     ResetRequest
		want  error
	}{
		{"unknown topic", nil, ResetRequest{Topic: "U", Group: "G"}, &outcome.Error{Kind: outcome.SystemError,
			Remark: "[reset-offset] reset offset failed, no topic in this broker. topic=U"}},
		{"a queue without offset", func(e *env) { delete(e.offsets, 1) }, ResetRequest{Topic: "T", Group: "G"},
			&outcome.Error{Kind: outcome.SystemError, Remark: "The consumer group <G> not exist: it has no committed offset on queue 1 of topic T"}},
		{"nobody online", nil, ResetRequest{Topic: "T", Group: "Offline", Timestamp: 5},
			&outcome.Error{Kind: outcome.ConsumerNotOnline, Remark: "Consumer not online, so can not reset offset, Group: Offline Topic: T Timestamp: 5"}},
		{"an old client", func(e *env) { e.consumers["G"] = append(e.consumers["G"], member(3, "old", 27)) },
			ResetRequest{Topic: "T", Group: "G"},
			&outcome.Error{Kind: outcome.SystemError, Remark: "the client does not support this feature. version=27 (client old)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			if tc.setup != nil {
				tc.setup(e)
			}
			before := fmt.Sprint(e.offsets)
			_, err := e.svc.ResetOffset(tc.r)
			require.Equal(t, tc.want, err)
			require.Equal(t, before, fmt.Sprint(e.offsets), "nothing changes")
			require.Empty(t, e.clients.notices)
		})
	}
}

func TestConsumerStatus(t *testing.T) {
	e := newEnv(t)
	mq := body.MessageQueue{Topic: "T", BrokerName: "broker-a"}
	e.consumers["G"] = append(e.consumers["G"], member(3, "c3", 409), member(4, "c4", 409))
	e.clients.tables[1] = map[body.MessageQueue]int64{mq: 4}
	e.clients.tables[2] = map[body.MessageQueue]int64{}
	e.clients.err[3] = errors.New("timeout")
	// c4 answers without a table
	tables, err := e.svc.ConsumerStatus(context.Background(), "T", "G", "")
	require.NoError(t, err)
	require.Equal(t, map[string]map[body.MessageQueue]int64{"c1": {mq: 4}, "c2": {}}, tables)
	require.ElementsMatch(t, []string{"status/1", "status/2", "status/3", "status/4"}, e.clients.asked)

	tables, err = e.svc.ConsumerStatus(context.Background(), "T", "G", "c1")
	require.NoError(t, err)
	require.Equal(t, map[string]map[body.MessageQueue]int64{"c1": {mq: 4}}, tables, "only the member asked for")

	// A call that panics on its goroutine counts as a member that did not answer.
	e.consumers["G"] = append(e.consumers["G"], member(panicky, "c9", 409))
	tables, err = e.svc.ConsumerStatus(context.Background(), "T", "G", "")
	require.NoError(t, err)
	require.Equal(t, map[string]map[body.MessageQueue]int64{"c1": {mq: 4}, "c2": {}}, tables)
	e.consumers["G"] = e.consumers["G"][:4]

	_, err = e.svc.ConsumerStatus(context.Background(), "T", "Nobody", "")
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "No Any Consumer online in the consumer group: [Nobody]"}, err)
	e.consumers["G"] = append(e.consumers["G"], member(5, "old", 1))
	_, err = e.svc.ConsumerStatus(context.Background(), "T", "G", "")
	require.True(t, outcome.Is(err, outcome.SystemError))

	e.svc.Close()
	e.consumers["G"] = e.consumers["G"][:1]
	tables, err = e.svc.ConsumerStatus(context.Background(), "T", "G", "")
	require.NoError(t, err)
	require.Empty(t, tables, "a closed service asks nobody")
}
