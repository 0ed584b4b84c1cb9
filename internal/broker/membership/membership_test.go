package membership

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

type fakeGroups map[string]body.SubscriptionGroupConfig

func (f fakeGroups) FindOrCreate(g string) (body.SubscriptionGroupConfig, bool) {
	c, ok := f[g]
	return c, ok
}

func (f fakeGroups) Get(g string) (body.SubscriptionGroupConfig, bool) { return f.FindOrCreate(g) }

type fakeTopics map[string]int

func (f fakeTopics) CreateTopicInSendMessageBack(topic string, queues, _, _ int) body.TopicConfig {
	f[topic] = queues
	return body.TopicConfig{}
}

// members records registrations as "group/client" and removals as "-group/chID".
type members struct {
	log     []string
	ids     map[string][]string
	changed bool
}

func (m *members) Register(group string, ch client.ClientChannel, _ body.ConsumerData) bool {
	m.log = append(m.log, group+"/"+ch.ClientID)
	return m.changed
}

func (m *members) Unregister(group string, chID uint64) {
	m.log = append(m.log, "-"+group+"/"+string(rune('0'+chID)))
}

func (m *members) ClientIDs(group string) []string { return m.ids[group] }

func (m *members) ConnClosed(chID uint64) { m.log = append(m.log, "closed/"+string(rune('0'+chID))) }

type producers struct{ members }

func (p *producers) Register(group string, ch client.ClientChannel) {
	p.log = append(p.log, group+"/"+ch.ClientID)
}

type channel struct{ id uint64 }

func (c channel) ID() uint64                           { return c.id }
func (c channel) RemoteAddr() string                   { return "10.0.0.1:1" }
func (c channel) InvokeOneway(*protocol.Command) error { return nil }

type notifier struct {
	told []uint64
	err  error
}

func (n *notifier) NotifyConsumerIDsChanged(ch client.Channel, group string) error {
	n.told = append(n.told, ch.ID())
	return n.err
}

type env struct {
	svc       *Service
	groups    fakeGroups
	topics    fakeTopics
	consumers *members
	producers *producers
	notifier  *notifier
}

func newEnv() *env {
	g := body.NewSubscriptionGroupConfig("CG")
	g.RetryQueueNums = 3
	e := &env{groups: fakeGroups{"CG": g}, topics: fakeTopics{}, consumers: &members{ids: map[string][]string{}},
		producers: &producers{}, notifier: &notifier{}}
	e.svc = New(Options{}, Deps{Groups: e.groups, Topics: e.topics, Consumers: e.consumers, Producers: e.producers,
		Notifier: e.notifier}, nil)
	return e
}

func TestHeartbeat(t *testing.T) {
	e := newEnv()
	e.consumers.changed = true
	ch := client.ClientChannel{Channel: channel{1}, ClientID: "c1"}
	e.svc.Heartbeat(ch, body.HeartbeatData{ClientID: "c1",
		ConsumerDataSet: []body.ConsumerData{{GroupName: "CG"}, {GroupName: "Unknown"}},
		ProducerDataSet: []body.ProducerData{{GroupName: "PG"}}})
	require.Equal(t, []string{"CG/c1", "Unknown/c1"}, e.consumers.log, "a group the broker cannot create still registers")
	require.Equal(t, []string{"PG/c1"}, e.producers.log)
	require.Equal(t, fakeTopics{"%RETRY%CG": 3}, e.topics, "a known group's retry topic, with its retry queues")
}

func TestUnregisterAndClose(t *testing.T) {
	e := newEnv()
	e.svc.Unregister(2, "PG", "")
	e.svc.Unregister(3, "", "CG")
	e.svc.Unregister(4, "", "")
	e.svc.ConnClosed(5)
	require.Equal(t, []string{"-PG/2", "closed/5"}, e.producers.log)
	require.Equal(t, []string{"-CG/3", "closed/5"}, e.consumers.log)
}

func TestConsumerIDs(t *testing.T) {
	e := newEnv()
	_, err := e.svc.ConsumerIDs("CG")
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "no consumer for this group, CG"}, err)
	e.consumers.ids["CG"] = []string{"c1", "c2"}
	ids, err := e.svc.ConsumerIDs("CG")
	require.NoError(t, err)
	require.Equal(t, []string{"c1", "c2"}, ids)
}

func TestGroupChanged(t *testing.T) {
	e := newEnv()
	remaining := []client.ClientChannel{{Channel: channel{1}}, {Channel: channel{2}}}
	e.notifier.err = errors.New("closed")
	e.svc.GroupChanged("CG", remaining)
	require.Equal(t, []uint64{1, 2}, e.notifier.told, "a failed notification does not stop the others")
	e.svc.GroupChanged("NotConfigured", remaining[:1])
	require.Equal(t, []uint64{1, 2, 1}, e.notifier.told, "a group without config is notified")

	g := e.groups["CG"]
	g.NotifyConsumerIdsChangedEnable = false
	e.groups["CG"] = g
	e.svc.GroupChanged("CG", remaining)
	require.Len(t, e.notifier.told, 3, "a group that turned notification off is not told")
}

func TestGroupChangedBrokerSwitch(t *testing.T) {
	e := newEnv()
	e.svc.opts.NotifyConsumerIdsChangedDisabled = true
	e.svc.GroupChanged("CG", []client.ClientChannel{{Channel: channel{1}}})
	e.svc.GroupChanged("NotConfigured", []client.ClientChannel{{Channel: channel{1}}})
	require.Empty(t, e.notifier.told, "notifyConsumerIdsChangedEnable=false: nobody is told")
}
