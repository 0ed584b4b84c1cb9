package config

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/remoting"
)

// limitCases are the cases of the connection limits, which land in the remoting.Limits at lim.
func limitCases[T any](lim func(T) remoting.Limits) map[string]keyCase[T] {
	return map[string]keyCase[T]{
		"serverChannelMaxIdleTimeSeconds": {line: "serverChannelMaxIdleTimeSeconds=30", want: func(t *testing.T, o T) {
			require.Equal(t, 30*time.Second, lim(o).IdleTimeout)
		}},
		"writeBufferHighWaterMark": {line: "writeBufferHighWaterMark=65536", want: func(t *testing.T, o T) {
			require.Equal(t, 65536, lim(o).WriteBufferHighWaterMark)
		}},
		"writeBufferLowWaterMark": {line: "writeBufferLowWaterMark=32768", want: func(t *testing.T, o T) {
			require.Equal(t, 32768, lim(o).WriteBufferLowWaterMark)
		}},
		"serverChannelMaxQueuedBytes": {line: "serverChannelMaxQueuedBytes=1048576", want: func(t *testing.T, o T) {
			require.Equal(t, 1<<20, lim(o).MaxQueuedBytes)
		}},
		"serverMaxTotalQueuedBytes": {line: "serverMaxTotalQueuedBytes=8589934592", want: func(t *testing.T, o T) {
			require.Equal(t, int64(8<<30), lim(o).MaxTotalQueuedBytes)
		}},
		"serverChannelMaxConcurrentRequests": {line: "serverChannelMaxConcurrentRequests=16", want: func(t *testing.T, o T) {
			require.Equal(t, 16, lim(o).MaxConnRequests)
		}},
		"serverMaxConnections": {line: "serverMaxConnections=100", want: func(t *testing.T, o T) {
			require.Equal(t, 100, lim(o).MaxConnections)
		}},
	}
}

func brokerLimitCases() map[string]brokerCase {
	cases := limitCases(func(o BrokerOptions) remoting.Limits { return o.Broker.Remoting })
	cases["haAllowlist"] = brokerCase{line: "haAllowlist=10.0.0.0/8,192.168.1.7/32", want: func(t *testing.T, o BrokerOptions) {
		require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32")},
			o.Broker.HA.AllowedPeers)
	}}
	return cases
}

func namesrvLimitCases() map[string]namesrvCase {
	cases := limitCases(func(o NamesrvOptions) remoting.Limits { return o.Namesrv.Limits })
	for name, c := range map[string]namesrvCase{
		"registerBrokerMaxTopics": {line: "registerBrokerMaxTopics=5000", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, 5000, o.Namesrv.MaxTopicsPerRegistration)
		}},
		"registerBrokerMaxBodyBytes": {line: "registerBrokerMaxBodyBytes=1048576", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, 1<<20, o.Namesrv.MaxRegistrationBodyBytes)
		}},
		"kvConfigMaxValueBytes": {line: "kvConfigMaxValueBytes=1024", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, 1024, o.Namesrv.KVMaxValueBytes)
		}},
		"kvConfigMaxTotalBytes": {line: "kvConfigMaxTotalBytes=1048576", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, 1<<20, o.Namesrv.KVMaxTotalBytes)
		}},
		"brokerRegistrationAllowlist": {line: "brokerRegistrationAllowlist=10.1.2.3/32,10.2.0.0/16", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.1.2.3/32"), netip.MustParsePrefix("10.2.0.0/16")},
				o.Namesrv.RegistrationAllowlist)
		}},
		"adminWriteAllowlist": {line: "adminWriteAllowlist=::1/128", want: func(t *testing.T, o NamesrvOptions) {
			require.Equal(t, []netip.Prefix{netip.MustParsePrefix("::1/128")}, o.Namesrv.AdminAllowlist)
		}},
	} {
		cases[name] = c
	}
	return cases
}

func TestAllowlistText(t *testing.T) {
	var a Allowlist
	require.NoError(t, a.UnmarshalText([]byte(" 10.0.0.1 ; 10.9.9.9/8,,::ffff:1.2.3.4 ")))
	require.Equal(t, "10.0.0.1/32,10.0.0.0/8,1.2.3.4/32", a.String())
	require.NoError(t, a.UnmarshalText(nil))
	require.Empty(t, a.Prefixes)
	require.Error(t, a.UnmarshalText([]byte("host.example.com")))
}

// TestDefaultLimits: without keys, the servers get the documented limits.
func TestDefaultLimits(t *testing.T) {
	want := remoting.Limits{IdleTimeout: 120 * time.Second, MaxConnections: 10000, WriteBufferHighWaterMark: 1 << 20,
		WriteBufferLowWaterMark: 256 << 10, MaxQueuedBytes: 64 << 20, MaxTotalQueuedBytes: 512 << 20, MaxConnRequests: 256}
	n, err := LoadNamesrv("", nil, nil)
	require.NoError(t, err)
	no, err := n.Options()
	require.NoError(t, err)
	require.Equal(t, want, no.Namesrv.Limits)
	require.Equal(t, 100000, no.Namesrv.MaxTopicsPerRegistration)
	require.Empty(t, no.Namesrv.RegistrationAllowlist)
	b, err := LoadBroker("", map[string]string{"brokerIP1": "127.0.0.1", "brokerIP2": "127.0.0.1"}, nil)
	require.NoError(t, err)
	bo, err := b.Options()
	require.NoError(t, err)
	require.Equal(t, want, bo.Broker.Remoting)
	require.Empty(t, bo.Broker.HA.AllowedPeers)
}

// TestListenersFollowBindAddress: the metrics listener (and HA, and the client port) bind where
// bindAddress says, unless a key of their own says otherwise.
func TestListenersFollowBindAddress(t *testing.T) {
	b, err := LoadBroker("", map[string]string{"brokerIP1": "127.0.0.1", "brokerIP2": "127.0.0.1",
		"bindAddress": "127.0.0.1", "metricsExporterType": "PROM"}, nil)
	require.NoError(t, err)
	bo, err := b.Options()
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:10911", bo.Broker.ListenAddr)
	require.Equal(t, "127.0.0.1:10912", bo.Broker.HA.ListenAddr)
	require.Equal(t, "127.0.0.1:5557", bo.Metrics.Addr)

	n, err := LoadNamesrv("", map[string]string{"bindAddress": "127.0.0.1", "metricsExporterType": "PROM",
		"metricsPromExporterHost": "10.0.0.1"}, nil)
	require.NoError(t, err)
	no, err := n.Options()
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9876", no.Namesrv.ListenAddr)
	require.Equal(t, "10.0.0.1:5558", no.Metrics.Addr, "a host of its own wins")

	require.Equal(t, "", SpecificHost("0.0.0.0"))
	require.Equal(t, "10.1.1.1", SpecificHost("10.1.1.1"))
}
