package send

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/message"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

type env struct {
	svc     *Service
	store   *fakeStore
	topics  *fakeTopics
	groups  fakeGroups
	tx      *fakeTx
	metrics *fakeMetrics
}

func newEnv(edit ...func(*Options)) *env {
	e := &env{store: &fakeStore{}, topics: newTopics("T", "%RETRY%G"), tx: &fakeTx{}, metrics: &fakeMetrics{},
		groups: fakeGroups{"G": body.NewSubscriptionGroupConfig("G")}}
	opts := Options{BrokerName: "broker-a", BrokerPermission: body.PermRead | body.PermWrite, MaxMessageSize: 1024,
		StoreHost: netip.MustParseAddrPort("10.0.0.9:10911"), MaxDelayLevel: 18,
		ClusterName: "DefaultCluster", RegionID: "DefaultRegion", TraceOn: true}
	for _, f := range edit {
		f(&opts)
	}
	e.svc = New(opts, Deps{Store: e.store, Topics: e.topics, Groups: e.groups, Transactions: e.tx, Metrics: e.metrics})
	e.svc.pick = func(n int32) int32 { return n - 1 }
	return e
}

func request(topic string, props ...string) *Request {
	var p []byte
	for i := 0; i+1 < len(props); i += 2 {
		p = message.AppendProperty(p, props[i], props[i+1])
	}
	return &Request{ProducerGroup: "PG", Topic: topic, DefaultTopic: "TBW102", DefaultTopicQueueNums: 4, QueueID: 1,
		MaxReconsumeTimes: -1, Properties: string(p), Body: []byte("hello")}
}

func requireKind(t *testing.T, err error, k outcome.Kind, remark string) {
	t.Helper()
	got, text := outcome.Of(err)
	require.Equal(t, k, got, text)
	require.Equal(t, remark, text)
}

func TestSendStores(t *testing.T) {
	e := newEnv()
	r := request("T", message.PropertyUniqClientMessageID, "UNIQ-1", message.PropertyTags, "a")
	r.Flag, r.SysFlag, r.BornTimestamp = 3, 4, 1234
	r.BornHost = netip.MustParseAddrPort("10.0.0.1:5555")
	res, err := e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, outcome.OK, res.Status)
	require.Equal(t, int32(1), res.QueueID)
	require.Equal(t, int64(7), res.Put.QueueOffset)
	require.Len(t, e.store.puts, 1)
	m := e.store.puts[0]
	require.Equal(t, store.Message{Topic: "T", QueueID: 1, Flag: 3, SysFlag: 4, BornTimestamp: 1234,
		BornHost: r.BornHost, Body: []byte("hello"), Properties: r.Properties + stamped}, m,
		"a message with a UNIQ_KEY keeps its properties, the broker's own added")
	require.Equal(t, []counted{{"T", metrics.Normal, 1, 50}}, e.metrics.in)
}

// stamped is what the broker appends to every message of newEnv's options.
const stamped = "MSG_REGION\x01DefaultRegion\x02TRACE_ON\x01true\x02CLUSTER\x01DefaultCluster\x02"

// TestSendStampsBrokerProperties: every stored message carries MSG_REGION, TRACE_ON and CLUSTER
// as Apache's broker writes them (5.x consume traces and request-reply read them); what a producer
// sent for them is replaced, not kept beside.
func TestSendStampsBrokerProperties(t *testing.T) {
	e := newEnv(func(o *Options) { o.RegionID, o.TraceOn, o.ClusterName = "Region-1", false, "C1" })
	r := request("T", message.PropertyMsgRegion, "fake", message.PropertyUniqClientMessageID, "U1",
		message.PropertyCluster, "other", message.PropertyKeys, "k")
	_, err := e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, "UNIQ_KEY\x01U1\x02KEYS\x01k\x02MSG_REGION\x01Region-1\x02TRACE_ON\x01false\x02CLUSTER\x01C1\x02",
		e.store.puts[0].Properties)

	r = request("T")
	r.Properties = "TAGS\x01a" // no trailing separator
	_, err = e.svc.Send(*r)
	require.NoError(t, err)
	props := message.ParseProperties(e.store.puts[1].Properties)
	require.Equal(t, "a", props[message.PropertyTags])
	require.Equal(t, "C1", props[message.PropertyCluster])
	require.Len(t, props, 5)

	e = newEnv(func(o *Options) { o.ClusterName, o.RegionID = "", "" })
	_, err = e.svc.Send(*request("T", message.PropertyUniqClientMessageID, "U2"))
	require.NoError(t, err)
	require.Equal(t, "UNIQ_KEY\x01U2\x02TRACE_ON\x01true\x02", e.store.puts[0].Properties,
		"no empty CLUSTER or MSG_REGION")
}

func TestSendAddsUniqKey(t *testing.T) {
	e := newEnv()
	_, err := e.svc.Send(*request("T", message.PropertyTags, "a"))
	require.NoError(t, err)
	props := message.ParseProperties(e.store.puts[0].Properties)
	require.Equal(t, "a", props[message.PropertyTags])
	require.Len(t, props[message.PropertyUniqClientMessageID], 32, "a UNIQ_KEY is 32 hex digits")

	_, err = e.svc.Send(*request("T"))
	require.NoError(t, err)
	props = message.ParseProperties(e.store.puts[1].Properties)
	require.Len(t, props, 4, "UNIQ_KEY and the broker's three")
	require.NotEqual(t, message.ParseProperties(e.store.puts[0].Properties)[message.PropertyUniqClientMessageID],
		props[message.PropertyUniqClientMessageID], "every message gets its own key")
}

func TestSendChecks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   func(*Options)
		req    func(*Request)
		kind   outcome.Kind
		remark string
	}{
		{"broker not writable", func(o *Options) { o.BrokerPermission = body.PermRead }, nil,
			outcome.NoPermission, "the broker[broker-a] sending message is forbidden"},
		{"bad topic name", nil, func(r *Request) { r.Topic = "a b" },
			outcome.MessageIllegal, `The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$ topic: "a b"`},
		{"a topic nobody may send to", nil, func(r *Request) { r.Topic = "SCHEDULE_TOPIC_XXXX" },
			outcome.NoPermission, "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden."},
		{"a new topic without auto-creation", nil, func(r *Request) { r.Topic = "New" },
			outcome.TopicNotExist, "topic[New] not exist, apply first please!"},
		{"a queue past the topic's", nil, func(r *Request) { r.QueueID = 4 },
			outcome.SystemError, "request queueId[4] is illegal, topic T has 4 queues, producer: PG"},
		{"a body over maxMessageSize", func(o *Options) { o.MaxMessageSize = 4 }, nil,
			outcome.MessageIllegal, "the message body size 5 exceeds maxMessageSize 4"},
		{"a retry topic of an unknown group", nil, func(r *Request) { r.Topic, r.QueueID = "%RETRY%Nobody", 0 },
			outcome.GroupNotExist, "subscription group not exist, Nobody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var edits []func(*Options)
			if tc.opts != nil {
				edits = append(edits, tc.opts)
			}
			e := newEnv(edits...)
			r := request("T")
			if tc.req != nil {
				tc.req(r)
			}
			_, err := e.svc.Send(*r)
			requireKind(t, err, tc.kind, tc.remark)
			require.Empty(t, e.store.puts)
			require.Empty(t, e.metrics.in)
		})
	}
}

func TestSendTopicNotWritable(t *testing.T) {
	e := newEnv()
	tc := e.topics.cfgs["T"]
	tc.Perm = body.PermRead
	e.topics.cfgs["T"] = tc
	_, err := e.svc.Send(*request("T"))
	requireKind(t, err, outcome.NoPermission, "the topic[T] sending message is forbidden")
}

func TestSendCreatesTopics(t *testing.T) {
	e := newEnv()
	e.topics.autoCreate = true
	r := request("New")
	r.UnitMode = true
	_, err := e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, 1, e.topics.cfgs["New"].TopicSysFlag, "a unit-mode producer's topic is a unit topic")

	e.groups["G2"] = body.NewSubscriptionGroupConfig("G2")
	r = request("%RETRY%G2")
	r.QueueID = 0
	_, err = e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, 1, e.topics.cfgs["%RETRY%G2"].WriteQueueNums, "a retry topic is created with one queue")
	require.Equal(t, []string{"New", "%RETRY%G2"}, e.topics.created)

	// A connection that may create nothing more creates neither topics nor retry topics' groups.
	for _, topic := range []string{"New2", "%RETRY%G3"} {
		r = request(topic)
		r.QueueID, r.Owner = 0, refusedOwner
		_, err = e.svc.Send(*r)
		k, remark := outcome.Of(err)
		require.Equal(t, outcome.SystemError, k)
		require.Contains(t, remark, "cannot be created: quota exceeded")
	}
	require.Equal(t, []string{"New", "%RETRY%G2"}, e.topics.created, "nothing left behind")
}

func TestSendPicksQueue(t *testing.T) {
	e := newEnv()
	r := request("T")
	r.QueueID = -1
	res, err := e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, int32(3), res.QueueID)
	require.Equal(t, int32(3), e.store.puts[0].QueueID)
}

func TestSendToRetryTopic(t *testing.T) {
	e := newEnv()
	r := request("%RETRY%G", message.PropertyDelayTimeLevel, "3", message.PropertyRetryTopic, "T")
	r.QueueID, r.ReconsumeTimes = 0, 2
	_, err := e.svc.Send(*r)
	require.NoError(t, err)
	m := e.store.puts[0]
	require.Equal(t, message.ScheduleTopic, m.Topic, "a retry below the maximum keeps its delay")
	require.Equal(t, int32(2), m.QueueID)
	require.Equal(t, "%RETRY%G", message.ParseProperties(m.Properties)[message.PropertyRealTopic])

	r.ReconsumeTimes = 16
	_, err = e.svc.Send(*r)
	require.NoError(t, err)
	m = e.store.puts[1]
	require.Equal(t, "%DLQ%G", m.Topic, "reconsumed as often as the group allows: dead-letter queue, undelayed")
	require.Equal(t, int32(0), m.QueueID)

	r.ReconsumeTimes, r.MaxReconsumeTimes = 3, 3
	_, err = e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, "%DLQ%G", e.store.puts[2].Topic, "the producer's maximum wins")
	require.Equal(t, []string{message.ScheduleTopic, "%DLQ%G", "%DLQ%G"}, []string{e.metrics.in[0].topic, e.metrics.in[1].topic,
		e.metrics.in[2].topic}, "the sink is told the topic written, as RocketMQ 5 counts; it leaves retry and DLQ topics out itself")
	require.Equal(t, []string{"G/T", "G/T"}, e.metrics.dlq, "dead letters of group G, consumed from T (RETRY_TOPIC)")

	r = request("%RETRY%G")
	r.ReconsumeTimes = 16
	_, err = e.svc.Send(*r)
	require.NoError(t, err)
	require.Equal(t, "G/%RETRY%G", e.metrics.dlq[2], "without RETRY_TOPIC, the retry topic")
}

func TestSendDelayed(t *testing.T) {
	e := newEnv(func(o *Options) { o.MaxDelayLevel = 4 })
	_, err := e.svc.Send(*request("T", message.PropertyDelayTimeLevel, "9"))
	require.NoError(t, err)
	m := e.store.puts[0]
	require.Equal(t, message.ScheduleTopic, m.Topic)
	require.Equal(t, int32(3), m.QueueID, "level 9 is clamped to the broker's 4 levels")
	props := message.ParseProperties(m.Properties)
	require.Equal(t, "4", props[message.PropertyDelayTimeLevel])
	require.Equal(t, "T", props[message.PropertyRealTopic])
	require.Equal(t, "1", props[message.PropertyRealQueueID])
	require.Equal(t, counted{message.ScheduleTopic, metrics.Delay, 1, 50}, e.metrics.in[0],
		"counted where it was written, the delay topic, as RocketMQ 5 counts it")

	e = newEnv(func(o *Options) { o.MaxDelayLevel = 0 })
	_, err = e.svc.Send(*request("T", message.PropertyDelayTimeLevel, "2"))
	require.NoError(t, err)
	require.Equal(t, "T", e.store.puts[0].Topic, "without delay levels nothing is delayed")
}

func TestSendTransactionHalf(t *testing.T) {
	e := newEnv()
	r := request("T", message.PropertyTransactionPrepared, "true", message.PropertyDelayTimeLevel, "2")
	_, err := e.svc.Send(*r)
	require.NoError(t, err)
	require.Len(t, e.tx.prepared, 1, "a half is prepared, not delayed")
	require.Equal(t, "T", e.tx.prepared[0].Topic)
	require.Equal(t, counted{systopic.TransHalf, metrics.Transaction, 1, 50}, e.metrics.in[0])
	require.Equal(t, []string{"T"}, e.metrics.half, "one half message of T")
	require.Empty(t, e.metrics.dlq)

	e.tx.refuse = true
	_, err = e.svc.Send(*r)
	requireKind(t, err, outcome.NoPermission, "the broker[10.0.0.9] sending transaction message is forbidden")
	require.Len(t, e.store.puts, 1)
}

func TestSendPutOutcomes(t *testing.T) {
	e := newEnv()
	e.store.status = store.FlushDiskTimeout
	res, err := e.svc.Send(*request("T"))
	require.NoError(t, err, "a message stored but not flushed is no error")
	require.Equal(t, outcome.FlushDiskTimeout, res.Status)
	require.Equal(t, "flush disk timeout", res.Remark)
	require.Len(t, e.metrics.in, 1, "it was stored: it counts")

	e.store.status, e.store.remark = store.ServiceNotAvailable, "the store is read-only"
	_, err = e.svc.Send(*request("T"))
	requireKind(t, err, outcome.ServiceNotAvailable, "the store is read-only")
	require.Len(t, e.metrics.in, 1)
}

func TestSendWithoutMetrics(t *testing.T) {
	e := newEnv()
	e.svc.Metrics = nil
	_, err := e.svc.Send(*request("T"))
	require.NoError(t, err)
}

func TestMessageType(t *testing.T) {
	props := func(kv ...string) string {
		var p []byte
		for i := 0; i+1 < len(kv); i += 2 {
			p = message.AppendProperty(p, kv[i], kv[i+1])
		}
		return string(p)
	}
	order := body.TopicConfig{Order: true}
	for _, tc := range []struct {
		props string
		cfg   body.TopicConfig
		want  metrics.MessageType
	}{
		{props(), body.TopicConfig{}, metrics.Normal},
		{props(), order, metrics.FIFO},
		{props(message.PropertyTransactionPrepared, "TRUE"), order, metrics.Transaction},
		{props(message.PropertyTransactionPrepared, "false"), body.TopicConfig{}, metrics.Normal},
		{props(message.PropertyDelayTimeLevel, "3"), order, metrics.Delay},
		{props(message.PropertyDelayTimeLevel, "0"), body.TopicConfig{}, metrics.Normal},
		{props(message.PropertyTimerDeliverMS, "123"), body.TopicConfig{}, metrics.Delay},
	} {
		require.Equal(t, tc.want, MessageType(tc.props, tc.cfg), "%q", tc.props)
	}
}

// The broker's properties cost one allocation per send: the stamped text, built in a buffer
// sized for it, with or without a UNIQ_KEY to add.
func TestStampAllocatesOnce(t *testing.T) {
	e := newEnv()
	for _, props := range []string{"TAGS\x01a\x02", "UNIQ_KEY\x01U1\x02TAGS\x01a\x02", "TAGS\x01a"} {
		require.EqualValues(t, 1, testing.AllocsPerRun(100, func() { _ = e.svc.stamp(props) }), "%q", props)
	}
}
