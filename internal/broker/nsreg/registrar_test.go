package nsreg

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rocketgo/rocketgo/internal/remoting"
	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeNamesrv records the registrations a real remoting server receives.
type fakeNamesrv struct {
	mu         sync.Mutex
	registered []*protocol.Command
	unregs     int
	bodies     []*body.RegisterBrokerBody
	queried    []string // the DataVersion bodies of QUERY_DATA_VERSION
	changed    bool     // what QUERY_DATA_VERSION answers
}

func (f *fakeNamesrv) start(t *testing.T) string {
	srv := remotingtest.StartServer(t, remoting.ServerOptions{}, func(s *remoting.Server) {
		s.Handle(protocol.RegisterBroker, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			b, err := body.DecodeRegisterBrokerBody(req.Body, req.ExtFields.Get("compressed") == "true")
			f.mu.Lock()
			f.registered = append(f.registered, req)
			if err == nil {
				f.bodies = append(f.bodies, b)
			}
			f.mu.Unlock()
			resp := protocol.NewResponse(req, protocol.Success, "")
			resp.SetExt("masterAddr", "10.0.0.1:10911")
			resp.SetExt("haServerAddr", "10.0.0.1:10912")
			return resp
		}))
		s.Handle(protocol.QueryDataVersion, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.queried = append(f.queried, string(req.Body))
			resp := protocol.NewResponse(req, protocol.Success, "")
			protocol.QueryDataVersionResponseHeader{Changed: f.changed}.Encode(&resp.ExtFields)
			return resp
		}))
		s.Handle(protocol.UnregisterBroker, remoting.HandlerFunc(func(_ context.Context, _ *remoting.Conn, req *protocol.Command) *protocol.Command {
			f.mu.Lock()
			f.unregs++
			f.mu.Unlock()
			return protocol.NewResponse(req, protocol.Success, "")
		}))
	})
	return srv.Addr().String()
}

func (f *fakeNamesrv) queries() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.queried...)
}

func (f *fakeNamesrv) count() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.registered), f.unregs
}

func TestRegistersWithEveryNamesrvAndUnregistersOnClose(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		a, b := &fakeNamesrv{}, &fakeNamesrv{}
		addrs := []string{a.start(t), b.start(t)}
		cli := remoting.NewClient(remoting.ClientOptions{}, nil)
		topics := body.TopicConfigSerializeWrapper{TopicConfigTable: map[string]body.TopicConfig{"T": body.NewTopicConfig("T")}}
		var results sync.Map
		r := New(Options{NamesrvAddrs: addrs, ClusterName: "C", BrokerName: "b", BrokerAddr: "127.0.0.1:10911",
			HAServerAddr: "127.0.0.1:10912", Compressed: compressed}, cli,
			func() body.TopicConfigSerializeWrapper { return topics }, func(res Result) { results.Store(res.NamesrvAddr, res) }, nil)
		r.Start() // registers synchronously once
		for _, f := range []*fakeNamesrv{a, b} {
			n, _ := f.count()
			require.Equal(t, 1, n)
			f.mu.Lock()
			req, bodies := f.registered[0], f.bodies
			f.mu.Unlock()
			require.Equal(t, "b", req.ExtFields.Get("brokerName"))
			require.Equal(t, "0", req.ExtFields.Get("brokerId"))
			require.Equal(t, "C", req.ExtFields.Get("clusterName"))
			require.NotEqual(t, "0", req.ExtFields.Get("bodyCrc32"))
			require.Len(t, bodies, 1)
			require.Contains(t, bodies[0].TopicConfigSerializeWrapper.TopicConfigTable, "T")
		}
		got, ok := results.Load(addrs[0])
		require.True(t, ok)
		require.Equal(t, "10.0.0.1:10911", got.(Result).MasterAddr)

		r.Trigger()
		require.Eventually(t, func() bool { n, _ := a.count(); return n == 2 }, 5*time.Second, 10*time.Millisecond)
		r.Close()
		r.Close()
		for _, f := range []*fakeNamesrv{a, b} {
			_, u := f.count()
			require.Equal(t, 1, u)
		}
		require.NoError(t, cli.Close())
	}
}

func TestPeriodIsClamped(t *testing.T) {
	r := New(Options{Period: time.Second}, nil, nil, nil, nil)
	require.Equal(t, 10*time.Second, r.opts.Period)
	r = New(Options{Period: time.Hour}, nil, nil, nil, nil)
	require.Equal(t, time.Minute, r.opts.Period)
}

// TestSkipUnchanged: with forceRegister=false the periodic registration asks every name server
// for the topic table's version first and registers only when one says it changed; a
// registration asked for with Trigger always happens.
func TestSkipUnchanged(t *testing.T) {
	a, b := &fakeNamesrv{}, &fakeNamesrv{}
	addrs := []string{a.start(t), b.start(t)}
	cli := remoting.NewClient(remoting.ClientOptions{}, nil)
	defer func() { require.NoError(t, cli.Close()) }()
	topics := body.TopicConfigSerializeWrapper{DataVersion: body.DataVersion{Counter: 7, Timestamp: 1700000000000}}
	r := New(Options{NamesrvAddrs: addrs, BrokerName: "b", BrokerAddr: "127.0.0.1:10911", SkipUnchanged: true}, cli,
		func() body.TopicConfigSerializeWrapper { return topics }, nil, nil)
	r.periodic()
	for _, f := range []*fakeNamesrv{a, b} {
		n, _ := f.count()
		require.Zero(t, n, "unchanged: no registration")
		q := f.queries()
		require.Len(t, q, 1)
		require.JSONEq(t, `{"counter":7,"timestamp":1700000000000}`, q[0])
	}
	b.mu.Lock()
	b.changed = true
	b.mu.Unlock()
	r.periodic()
	for _, f := range []*fakeNamesrv{a, b} {
		n, _ := f.count()
		require.Equal(t, 1, n, "one name server saw a change: every one gets the registration")
	}

	forced := New(Options{NamesrvAddrs: addrs[:1], BrokerName: "b"}, cli, func() body.TopicConfigSerializeWrapper { return topics }, nil, nil)
	forced.periodic()
	n, _ := a.count()
	require.Equal(t, 2, n, "forceRegister (the default) registers every period")
	require.Len(t, a.queries(), 2, "without asking")
}
