package send

import (
	"errors"
	"net/netip"

	"github.com/rocketgo/rocketgo/internal/metrics"
	"github.com/rocketgo/rocketgo/internal/store"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
	"github.com/rocketgo/rocketgo/pkg/protocol/systopic"
)

// fakeStore records puts and answers with status.
type fakeStore struct {
	status  store.PutStatus
	remark  string
	puts    []store.Message
	batches []store.Batch
}

func (f *fakeStore) PutMessage(m *store.Message) store.PutResult {
	f.puts = append(f.puts, *m)
	return f.result(1)
}

func (f *fakeStore) PutMessages(b *store.Batch) store.PutResult {
	f.batches = append(f.batches, *b)
	return f.result(2)
}

func (f *fakeStore) result(n int) store.PutResult {
	r := store.PutResult{Status: f.status, Remark: f.remark, WroteOffset: 100, WroteBytes: 50, QueueOffset: 7,
		MsgNum: int32(n), StoreHost: netip.MustParseAddrPort("10.0.0.9:10911")}
	if n > 1 {
		r.Offsets = []int64{100, 125}
	}
	return r
}

// fakeTopics holds topic configs; autoCreate says whether CreateTopicInSendMessage succeeds.
type fakeTopics struct {
	cfgs       map[string]body.TopicConfig
	autoCreate bool
	created    []string // "name/queues/sysFlag"
}

func newTopics(names ...string) *fakeTopics {
	f := &fakeTopics{cfgs: map[string]body.TopicConfig{}}
	for _, n := range names {
		tc := body.NewTopicConfig(n)
		tc.ReadQueueNums, tc.WriteQueueNums = 4, 4
		f.cfgs[n] = tc
	}
	return f
}

func (f *fakeTopics) Get(name string) (body.TopicConfig, bool) {
	tc, ok := f.cfgs[name]
	return tc, ok
}

func (f *fakeTopics) CreateTopicInSendMessageFor(owner uint64, name, _ string, queues, sysFlag int) (body.TopicConfig, bool, error) {
	if owner == refusedOwner {
		return body.TopicConfig{}, false, errors.New("quota exceeded")
	}
	if !f.autoCreate {
		return body.TopicConfig{}, false, nil
	}
	return f.create(name, queues, sysFlag), true, nil
}

// refusedOwner is the connection that may create nothing more.
const refusedOwner = 666

func (f *fakeTopics) CreateTopicInSendMessageBack(name string, queues, _, sysFlag int) body.TopicConfig {
	return f.create(name, queues, sysFlag)
}

func (f *fakeTopics) create(name string, queues, sysFlag int) body.TopicConfig {
	tc := body.NewTopicConfig(name)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.TopicSysFlag = queues, queues, sysFlag
	f.cfgs[name] = tc
	f.created = append(f.created, name)
	return tc
}

// fakeGroups knows the groups in it; others do not exist.
type fakeGroups map[string]body.SubscriptionGroupConfig

func (f fakeGroups) FindOrCreateFor(owner uint64, group string) (body.SubscriptionGroupConfig, bool, error) {
	if owner == refusedOwner {
		return body.SubscriptionGroupConfig{}, false, errors.New("quota exceeded")
	}
	g, ok := f[group]
	return g, ok, nil
}

type fakeTx struct {
	refuse   bool
	prepared []store.Message
}

func (f *fakeTx) Prepare(m *store.Message) error {
	if f.refuse {
		return errors.New("rejected")
	}
	f.prepared = append(f.prepared, *m)
	m.Topic = systopic.TransHalf // as transaction.Service.Prepare stores it
	return nil
}

type counted struct {
	topic    string
	typ      metrics.MessageType
	n, bytes int
}

type fakeMetrics struct {
	in        []counted
	dlq, half []string
}

func (f *fakeMetrics) MessagesIn(topic string, typ metrics.MessageType, n, bytes int) {
	f.in = append(f.in, counted{topic, typ, n, bytes})
}

func (f *fakeMetrics) SentToDLQ(group, topic string) { f.dlq = append(f.dlq, group+"/"+topic) }

func (f *fakeMetrics) HalfPrepared(topic string) { f.half = append(f.half, topic) }
