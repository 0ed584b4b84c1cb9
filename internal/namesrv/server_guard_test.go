package namesrv

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting/remotingtest"
	"github.com/rocketgo/rocketgo/pkg/protocol"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

func kvPut(ns, key, value string) *protocol.Command {
	return protocol.NewHeaderRequest(protocol.PutKVConfig, &protocol.PutKVConfigRequestHeader{Namespace: ns, Key: key, Value: value}, nil)
}

// TestAllowlistsRefuseOtherPeers: with the allowlists set, registrations and admin writes from
// other addresses are answered NO_PERMISSION with a remark naming the list; reads stay open.
func TestAllowlistsRefuseOtherPeers(t *testing.T) {
	s := startServer(t, func(o *Options) {
		o.RegistrationAllowlist = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
		o.AdminAllowlist = []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")}
	})
	conn := remotingtest.Dial(t, s.addr)
	resp := conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil))
	requireCode(t, resp, protocol.NoPermission)
	require.Contains(t, resp.Remark, "not in brokerRegistrationAllowlist")
	requireCode(t, conn.RoundTrip(identityRequest(protocol.UnregisterBroker, brokerA, nil)), protocol.NoPermission)
	resp = conn.RoundTrip(kvPut("ns", "k", "v"))
	requireCode(t, resp, protocol.NoPermission)
	require.Contains(t, resp.Remark, "not in adminWriteAllowlist")
	requireCode(t, conn.RoundTrip(routeRequest("T")), protocol.TopicNotExist)
	require.Zero(t, s.Routes().LiveBrokers())

	open := startServer(t, func(o *Options) {
		o.RegistrationAllowlist = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
		o.AdminAllowlist = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	conn = remotingtest.Dial(t, open.addr)
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	requireCode(t, conn.RoundTrip(kvPut("ns", "k", "v")), protocol.Success)
}

// TestRegistrationCaps: a registration over the topic cap or the body cap is refused with
// SYSTEM_ERROR naming the cap, compressed or not, and leaves no trace.
func TestRegistrationCaps(t *testing.T) {
	s := startServer(t, func(o *Options) { o.MaxTopicsPerRegistration = 50; o.MaxRegistrationBodyBytes = 64 << 10 })
	conn := remotingtest.Dial(t, s.addr)
	many := func(n int) *body.TopicConfigSerializeWrapper {
		var tcs []body.TopicConfig
		for i := 0; i < n; i++ {
			tcs = append(tcs, topicCfg("T"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("0", i/26), 4, 6))
		}
		return topics(1, tcs...)
	}
	for _, compressed := range []bool{false, true} {
		resp := conn.RoundTrip(registerRequest(brokerA, many(51), compressed, nil))
		requireCode(t, resp, protocol.SystemError)
		require.Contains(t, resp.Remark, "registerBrokerMaxTopics")
		require.Contains(t, resp.Remark, "51 topics, limit 50")
	}
	big := topicCfg("Big", 4, 6)
	big.Attributes = map[string]string{"+x": strings.Repeat("y", 70<<10)}
	for _, compressed := range []bool{false, true} {
		resp := conn.RoundTrip(registerRequest(brokerA, topics(1, big), compressed, nil))
		requireCode(t, resp, protocol.SystemError)
		require.Contains(t, resp.Remark, "registerBrokerMaxBodyBytes")
	}
	require.Zero(t, s.Routes().LiveBrokers())
	require.Zero(t, s.Routes().TopicCount())
	requireCode(t, conn.RoundTrip(registerRequest(brokerA, many(50), true, nil)), protocol.Success)
}

// TestNamesFromTheWireAreValidated: bad names are refused with a remark saying what is wrong,
// before they reach the route table or the KV store.
func TestNamesFromTheWireAreValidated(t *testing.T) {
	s := startServer(t, nil)
	conn := remotingtest.Dial(t, s.addr)
	bad := brokerA
	bad.name = "broker\n-a"
	resp := conn.RoundTrip(registerRequest(bad, topics(1, topicCfg("T", 4, 6)), false, nil))
	requireCode(t, resp, protocol.SystemError)
	require.Equal(t, `invalid brokerName "broker\n-a": character '\n' at 6; allowed are letters, digits and %|_-.:@`, resp.Remark)

	resp = conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("../../victim", 4, 6)), true, nil))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, `invalid topic "../../victim"`)

	resp = conn.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("Huge", 1<<30, 6)), false, nil))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, `topic "Huge": 1073741824 queues, want 0-65536`)

	resp = conn.RoundTrip(routeRequest(strings.Repeat("t", 500)))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "500 bytes, at most 127")

	resp = conn.RoundTrip(kvPut("ns", "k\r\n", "v"))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, `invalid key "k\r\n"`)
	resp = conn.RoundTrip(kvPut("ns", "k", strings.Repeat("v", 100<<10)))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "kvConfigMaxValueBytes")
	require.Zero(t, s.Routes().LiveBrokers())
	_, ok := s.KV().List("ns")
	require.False(t, ok)
}

// TestSecondRegistrationFromAnotherConnectionIsRefused: over TCP, a hijacker's REGISTER_BROKER
// for a live master's brokerName/brokerId at another address is refused, and its
// UNREGISTER_BROKER too.
func TestSecondRegistrationFromAnotherConnectionIsRefused(t *testing.T) {
	s := startServer(t, nil)
	real := remotingtest.Dial(t, s.addr)
	requireCode(t, real.RoundTrip(registerRequest(brokerA, topics(1, topicCfg("T", 4, 6)), false, nil)), protocol.Success)
	hijacker := remotingtest.Dial(t, s.addr)
	fake := brokerA
	fake.addr = "127.0.0.1:6666"
	resp := hijacker.RoundTrip(registerRequest(fake, topics(2, topicCfg("T", 4, 6)), false, nil))
	requireCode(t, resp, protocol.SystemError)
	require.Contains(t, resp.Remark, "registered at another address")
	requireCode(t, hijacker.RoundTrip(identityRequest(protocol.UnregisterBroker, brokerA, nil)), protocol.SystemError)

	route, ok := s.Routes().TopicRoute("T")
	require.True(t, ok)
	require.Equal(t, body.BrokerAddrs{0: brokerA.addr}, route.BrokerDatas[0].BrokerAddrs)
	// The real broker re-registers over a new connection after its old one closed.
	real.Close()
	again := remotingtest.Dial(t, s.addr)
	require.Eventually(t, func() bool {
		return again.RoundTrip(registerRequest(brokerA, topics(3, topicCfg("T", 4, 6)), false, nil)).ResponseCode() == protocol.Success
	}, remotingtest.Timeout, 10*time.Millisecond)
}
