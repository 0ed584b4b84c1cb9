package membership

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/broker/client"
	"github.com/rocketgo/rocketgo/internal/broker/outcome"
	"github.com/rocketgo/rocketgo/internal/broker/subscription"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// fakeGroups has the groups in it and creates none; asked records FindOrCreateMany's calls.
type fakeGroups struct {
	cfgs  map[string]body.SubscriptionGroupConfig
	asked []uint64
	err   error
}

func (f *fakeGroups) Missing(groups []string) []string {
	var out []string
	for _, g := range groups {
		if _, ok := f.cfgs[g]; !ok {
			out = append(out, g)
		}
	}
	return out
}

func (f *fakeGroups) FindOrCreateMany(owner uint64, groups []string) (map[string]body.SubscriptionGroupConfig, error) {
	f.asked = append(f.asked, owner)
	found := map[string]body.SubscriptionGroupConfig{}
	for _, g := range groups {
		if c, ok := f.cfgs[g]; ok {
			found[g] = c
		}
	}
	return found, f.err
}

func (f *fakeGroups) Get(g string) (body.SubscriptionGroupConfig, bool) {
	c, ok := f.cfgs[g]
	return c, ok
}

// fakeTopics records created topics' queue counts, and the number of calls.
type fakeTopics struct {
	queues map[string]int
	calls  int
}

func (f *fakeTopics) CreateAllIfAbsent(tcs []body.TopicConfig, _ string) error {
	f.calls++
	for _, tc := range tcs {
		f.queues[tc.TopicName] = tc.WriteQueueNums
	}
	return nil
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
	groups    *fakeGroups
	topics    *fakeTopics
	consumers *members
	producers *producers
	notifier  *notifier
}

func newEnv() *env {
	g := body.NewSubscriptionGroupConfig("CG")
	g.RetryQueueNums = 3
	e := &env{groups: &fakeGroups{cfgs: map[string]body.SubscriptionGroupConfig{"CG": g}},
		topics: &fakeTopics{queues: map[string]int{}}, consumers: &members{ids: map[string][]string{}},
		producers: &producers{}, notifier: &notifier{}}
	e.svc = New(Options{MaxNewGroupsPerRequest: 3}, Deps{Groups: e.groups, Topics: e.topics, Consumers: e.consumers,
		Producers: e.producers, Notifier: e.notifier}, nil)
	return e
}

func TestHeartbeat(t *testing.T) {
	e := newEnv()
	e.consumers.changed = true
	ch := client.ClientChannel{Channel: channel{1}, ClientID: "c1"}
	require.NoError(t, e.svc.Heartbeat(ch, body.HeartbeatData{ClientID: "c1",
		ConsumerDataSet: []body.ConsumerData{{GroupName: "CG"}, {GroupName: "Unknown"}, {GroupName: "CG"}},
		ProducerDataSet: []body.ProducerData{{GroupName: "PG"}}}))
	require.Equal(t, []string{"CG/c1", "Unknown/c1", "CG/c1"}, e.consumers.log, "a group the broker cannot create still registers")
	require.Equal(t, []string{"PG/c1"}, e.producers.log)
	require.Equal(t, map[string]int{"%RETRY%CG": 3}, e.topics.queues, "a known group's retry topic, with its retry queues")
	require.Equal(t, 1, e.topics.calls, "the retry topics are created at once")
	require.Equal(t, []uint64{1}, e.groups.asked, "groups are created for the heartbeat's connection")
}

// TestHeartbeatRefusals: a heartbeat with a bad name, too many new groups, or groups its
// connection may not create any more is refused with a remark, and registers nothing.
func TestHeartbeatRefusals(t *testing.T) {
	long := strings.Repeat("g", 1000)
	for name, tc := range map[string]struct {
		hb     body.HeartbeatData
		remark string
	}{
		"bad client id": {body.HeartbeatData{ClientID: "a b"}, "bad heartbeat: The client id \"a b\" contains a character"},
		"no client id":  {body.HeartbeatData{}, "bad heartbeat: The client id is empty."},
		"long group": {body.HeartbeatData{ClientID: "c", ConsumerDataSet: []body.ConsumerData{{GroupName: long}}},
			"bad heartbeat: consumer group: The specified group \"" + long[:64] + "\"... (1000 bytes) is longer than group max length 255."},
		"bad group": {body.HeartbeatData{ClientID: "c", ConsumerDataSet: []body.ConsumerData{{GroupName: "../x"}}},
			"bad heartbeat: consumer group: The specified group \"../x\" contains illegal characters"},
		"bad topic": {body.HeartbeatData{ClientID: "c", ConsumerDataSet: []body.ConsumerData{{GroupName: "CG",
			SubscriptionDataSet: []body.SubscriptionData{{Topic: "a/b"}}}}}, "bad heartbeat: group CG subscribes to \"a/b\": The specified topic contains illegal characters"},
		"bad producer group": {body.HeartbeatData{ClientID: "c", ProducerDataSet: []body.ProducerData{{GroupName: ""}}},
			"bad heartbeat: producer group: The specified group is blank."},
		"too many new groups": {body.HeartbeatData{ClientID: "c", ConsumerDataSet: []body.ConsumerData{{GroupName: "N1"},
			{GroupName: "N2"}, {GroupName: "CG"}, {GroupName: "N3"}, {GroupName: "N4"}}},
			"the heartbeat names 4 consumer groups this broker does not have; one request may create at most 3 (maxNewGroupsPerRequest)"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv()
			err := e.svc.Heartbeat(client.ClientChannel{Channel: channel{1}, ClientID: tc.hb.ClientID}, tc.hb)
			k, remark := outcome.Of(err)
			require.Equal(t, outcome.SystemError, k)
			require.Contains(t, remark, tc.remark)
			require.Empty(t, e.consumers.log)
			require.Empty(t, e.producers.log)
			require.Empty(t, e.groups.asked)
		})
	}
	e := newEnv()
	e.groups.err = &subscription.QuotaError{Err: errors.New("quota exceeded: this connection has created 1000 consumer groups")}
	err := e.svc.Heartbeat(client.ClientChannel{Channel: channel{1}, ClientID: "c"}, body.HeartbeatData{ClientID: "c",
		ConsumerDataSet: []body.ConsumerData{{GroupName: "N1"}}})
	require.Equal(t, &outcome.Error{Kind: outcome.SystemError, Remark: "the heartbeat's new consumer groups are refused: " +
		"quota exceeded: this connection has created 1000 consumer groups"}, err)
	require.Empty(t, e.consumers.log)
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

	g := e.groups.cfgs["CG"]
	g.NotifyConsumerIdsChangedEnable = false
	e.groups.cfgs["CG"] = g
	e.svc.GroupChanged("CG", remaining)
	require.Len(t, e.notifier.told, 3, "a group that turned notification off is not told")
}
