package sendback

import (
	"errors"
	"net/netip"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
)

type fakeStore struct {
	msgs   map[int64]message.MessageExt
	status store.PutStatus
	puts   []store.Message
}

func (f *fakeStore) LookMessageByOffset(off int64) *message.MessageExt {
	m, ok := f.msgs[off]
	if !ok {
		return nil
	}
	m.Props = message.ParseProperties(m.Properties)
	return &m
}

func (f *fakeStore) PutMessage(m *store.Message) store.PutResult {
	f.puts = append(f.puts, *m)
	return store.PutResult{Status: f.status}
}

type fakeTopics struct{ created map[string]int }

func (f *fakeTopics) CreateTopicInSendMessageBack(topic string, queues, _, _ int) body.TopicConfig {
	f.created[topic] = queues
	return body.TopicConfig{TopicName: topic, ReadQueueNums: queues, WriteQueueNums: queues}
}

type fakeGroups map[string]body.SubscriptionGroupConfig

func (f fakeGroups) FindOrCreateFor(owner uint64, group string) (body.SubscriptionGroupConfig, bool, error) {
	if owner == 666 {
		return body.SubscriptionGroupConfig{}, false, errors.New("quota exceeded")
	}
	g, ok := f[group]
	return g, ok, nil
}

type fakeMetrics struct{ dlq []string }

func (f *fakeMetrics) SentToDLQ(group, topic string) { f.dlq = append(f.dlq, group+"/"+topic) }

type env struct {
	svc     *Service
	store   *fakeStore
	topics  *fakeTopics
	groups  fakeGroups
	metrics *fakeMetrics
}

var storeHost = netip.MustParseAddrPort("10.0.0.9:10911")

func newEnv(perm int) *env {
	g := body.NewSubscriptionGroupConfig("G")
	g.RetryQueueNums = 2
	e := &env{topics: &fakeTopics{created: map[string]int{}}, groups: fakeGroups{"G": g},
		store: &fakeStore{msgs: map[int64]message.MessageExt{}}, metrics: &fakeMetrics{}}
	e.svc = New(Options{BrokerName: "broker-a", BrokerPermission: perm, MaxDelayLevel: 18, Metrics: e.metrics},
		e.store, e.topics, e.groups)
	e.svc.pick = func(n int32) int32 { return n - 1 }
	return e
}

// stored puts a consumed message at offset off, reconsumed times times so far.
func (e *env) stored(off int64, times int32, props ...string) {
	var p []byte
	for i := 0; i+1 < len(props); i += 2 {
		p = message.AppendProperty(p, props[i], props[i+1])
	}
	e.store.msgs[off] = message.MessageExt{Message: message.Message{Topic: "Orders", QueueID: 3, Flag: 1,
		PhysicalOffset: off, StoreHost: storeHost, ReconsumeTimes: times, Body: []byte("b"), Properties: string(p),
		BornTimestamp: 77}}
}

func TestSendBackToRetryTopic(t *testing.T) {
	e := newEnv(body.PermRead | body.PermWrite)
	e.stored(500, 0, message.PropertyTags, "a")
	require.NoError(t, e.svc.SendBack(Request{Offset: 500, Group: "G", MaxReconsumeTimes: -1}))
	require.Len(t, e.store.puts, 1)
	m := e.store.puts[0]
	require.Equal(t, message.ScheduleTopic, m.Topic, "the retry is delayed")
	require.Equal(t, int32(2), m.QueueID, "by the broker's level 3 + 0")
	require.Equal(t, int32(1), m.ReconsumeTimes)
	require.Equal(t, []byte("b"), m.Body)
	require.Equal(t, int64(77), m.BornTimestamp)
	props := message.ParseProperties(m.Properties)
	require.Equal(t, map[string]string{
		message.PropertyTags:              "a",
		message.PropertyRetryTopic:        "Orders",
		message.PropertyWaitStoreMsgOK:    "false",
		message.PropertyOriginMessageID:   message.OffsetMsgID(storeHost, 500),
		message.PropertyDelayTimeLevel:    "3",
		message.PropertyMaxReconsumeTimes: "16",
		message.PropertyRealTopic:         "%RETRY%G",
		message.PropertyRealQueueID:       "1",
	}, props)
	require.Equal(t, map[string]int{"%RETRY%G": 2}, e.topics.created)
}

func TestSendBackKeepsOrigin(t *testing.T) {
	e := newEnv(body.PermRead | body.PermWrite)
	e.stored(9, 4, message.PropertyRetryTopic, "First", message.PropertyOriginMessageID, "ORIG")
	require.NoError(t, e.svc.SendBack(Request{Offset: 9, Group: "G", DelayLevel: 2, OriginMsgID: "IGNORED",
		MaxReconsumeTimes: -1}))
	props := message.ParseProperties(e.store.puts[0].Properties)
	require.Equal(t, "First", props[message.PropertyRetryTopic], "a message retried before keeps its first topic")
	require.Equal(t, "ORIG", props[message.PropertyOriginMessageID])
	require.Equal(t, "2", props[message.PropertyDelayTimeLevel], "the consumer's level")

	e.stored(10, 0)
	require.NoError(t, e.svc.SendBack(Request{Offset: 10, Group: "G", OriginMsgID: "CLIENT-ID", MaxReconsumeTimes: -1}))
	require.Equal(t, "CLIENT-ID", message.ParseProperties(e.store.puts[1].Properties)[message.PropertyOriginMessageID])
}

func TestSendBackToDLQ(t *testing.T) {
	for _, tc := range []struct {
		name  string
		times int32
		req   Request
	}{
		{"the group's maximum reached", 16, Request{MaxReconsumeTimes: -1}},
		{"the client's maximum reached", 3, Request{MaxReconsumeTimes: 3}},
		{"the consumer asks for it", 0, Request{DelayLevel: -1, MaxReconsumeTimes: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(body.PermRead | body.PermWrite)
			e.stored(1, tc.times, message.PropertyDelayTimeLevel, "5")
			tc.req.Offset, tc.req.Group = 1, "G"
			require.NoError(t, e.svc.SendBack(tc.req))
			m := e.store.puts[0]
			require.Equal(t, "%DLQ%G", m.Topic)
			require.Equal(t, int32(0), m.QueueID)
			props := message.ParseProperties(m.Properties)
			require.NotContains(t, props, message.PropertyDelayTimeLevel, "a dead letter is not delayed")
			want := int32(16)
			if tc.req.MaxReconsumeTimes >= 0 {
				want = tc.req.MaxReconsumeTimes
			}
			require.Equal(t, strconv.Itoa(int(want)), props[message.PropertyMaxReconsumeTimes])
			require.Equal(t, map[string]int{"%RETRY%G": 2, "%DLQ%G": 1}, e.topics.created)
			require.Equal(t, []string{"G/Orders"}, e.metrics.dlq, "one dead letter of G, consumed from Orders")
		})
	}
}

func TestSendBackDLQCountsTheFirstTopic(t *testing.T) {
	e := newEnv(body.PermRead | body.PermWrite)
	e.stored(1, 16, message.PropertyRetryTopic, "Payments")
	require.NoError(t, e.svc.SendBack(Request{Offset: 1, Group: "G", MaxReconsumeTimes: -1}))
	require.Equal(t, []string{"G/Payments"}, e.metrics.dlq, "a retry's dead letter counts under its RETRY_TOPIC")

	e.stored(2, 1)
	require.NoError(t, e.svc.SendBack(Request{Offset: 2, Group: "G", MaxReconsumeTimes: -1}))
	require.Len(t, e.metrics.dlq, 1, "a retry is no dead letter")
}

func TestSendBackRefusals(t *testing.T) {
	e := newEnv(body.PermRead)
	err := e.svc.SendBack(Request{Offset: 1, Group: "Nobody"})
	require.Equal(t, &outcome.Error{Kind: outcome.GroupNotExist, Remark: "subscription group not exist, Nobody"}, err)
	err = e.svc.SendBack(Request{Offset: 1, Group: "G"})
	require.Equal(t, &outcome.Error{Kind: outcome.NoPermission, Remark: "the broker[broker-a] sending message is forbidden"}, err)

	e = newEnv(body.PermRead | body.PermWrite)
	err = e.svc.SendBack(Request{Offset: 404, Group: "G"})
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "look message by offset failed, 404"}, err)

	e.stored(1, 0)
	e.store.status = store.ServiceNotAvailable
	k, _ := outcome.Of(e.svc.SendBack(Request{Offset: 1, Group: "G", MaxReconsumeTimes: -1}))
	require.Equal(t, outcome.ServiceNotAvailable, k)
}

func TestSendBackWithoutRetryQueuesDrops(t *testing.T) {
	e := newEnv(body.PermRead | body.PermWrite)
	g := e.groups["G"]
	g.RetryQueueNums = 0
	e.groups["G"] = g
	e.stored(1, 0)
	require.NoError(t, e.svc.SendBack(Request{Offset: 1, Group: "G", MaxReconsumeTimes: -1}))
	require.Empty(t, e.store.puts)
}

// TestSendBackAsksAboutTheTopicRead: the request's check is asked about the topic of the message
// at the offset before anything is copied from it.
func TestSendBackAsksAboutTheTopicRead(t *testing.T) {
	e := newEnv(body.PermRead | body.PermWrite)
	e.stored(64, 0)
	refused := errors.New("refused")
	var asked []string
	err := e.svc.SendBack(Request{Offset: 64, Group: "G", MaxReconsumeTimes: -1, MayRead: func(topic string) error {
		asked = append(asked, topic)
		return refused
	}})
	require.Same(t, refused, err)
	require.Equal(t, []string{"Orders"}, asked)
	require.Empty(t, e.store.puts, "nothing is copied")
	require.Empty(t, e.topics.created)
}

func TestSendBackGroupChecks(t *testing.T) {
	e := newEnv(body.PermRead | body.PermWrite)
	e.stored(64, 0)
	err := e.svc.SendBack(Request{Offset: 64, Group: "a/b", MaxReconsumeTimes: -1})
	require.Equal(t, &outcome.Error{Kind: outcome.GroupNotExist, Remark: `subscription group not exist: The specified group "a/b" ` +
		"contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"}, err)
	err = e.svc.SendBack(Request{Offset: 64, Group: "G", MaxReconsumeTimes: -1, Owner: 666})
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "subscription group G cannot be created: quota exceeded"}, err)
	require.Empty(t, e.store.puts)
}
