package hostile

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

const reqDeleteTopicInNamesrv = 216

func freePort(t testing.TB) int {
	p, err := cluster.FreePort()
	require.NoError(t, err)
	return p
}

// TestListenersAndAllowlists: with bindAddress=127.0.0.1 every listener of both servers (client
// port, HA, metrics, pprof) binds to 127.0.0.1 only (before: metrics and HA listened on all
// interfaces, row 11); the HA port closes a connection from outside haAllowlist before it reads
// a byte of the CommitLog (row 10); the name server answers NO_PERMISSION to admin writes from
// outside adminWriteAllowlist while brokers inside brokerRegistrationAllowlist register.
func TestListenersAndAllowlists(t *testing.T) {
	brokerMetrics, pprofPort, nsMetrics := freePort(t), freePort(t), freePort(t)
	c := cluster.Start(t, cluster.Options{
		BrokerProps: map[string]string{"bindAddress": "127.0.0.1", "metricsExporterType": "PROM",
			"metricsPromExporterPort": strconv.Itoa(brokerMetrics), "haAllowlist": "10.9.9.9"},
		BrokerArgs: []string{"--pprof-addr", ":" + strconv.Itoa(pprofPort)},
		NamesrvProps: map[string]string{"bindAddress": "127.0.0.1", "metricsExporterType": "PROM",
			"metricsPromExporterPort": strconv.Itoa(nsMetrics), "brokerRegistrationAllowlist": "127.0.0.1",
			"adminWriteAllowlist": "10.9.9.9"},
	})
	b := c.Brokers[0]
	listening := listeningSockets(t)
	for name, port := range map[string]int{"broker client port": b.Port, "HA": b.HAPort, "broker metrics": brokerMetrics,
		"pprof": pprofPort, "name server": c.Namesrv.Port, "name server metrics": nsMetrics} {
		require.Equal(t, []string{"127.0.0.1"}, listening[port], "%s (port %d) listens on", name, port)
	}

	// HA: 8 bytes asking for the CommitLog from offset 0, from an address not on haAllowlist.
	ha := dialRaw(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(b.HAPort)))
	_ = ha.write(make([]byte, 8), 5*time.Second) // the port may have closed already
	_ = ha.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := io.Copy(io.Discard, ha.nc)
	require.Zero(t, n, "the HA port sent %d bytes to a peer outside haAllowlist", n)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the HA port kept a peer outside haAllowlist connected")

	r := dialRaw(t, c.NamesrvAddr())
	resp := r.roundTrip(reqPutKVConfig, map[string]string{"namespace": "ns", "key": "k", "value": "v"}, nil)
	require.Equal(t, codeNoPermission, resp.Code, resp.String())
	require.Contains(t, resp.Remark, "not in adminWriteAllowlist")
	resp = r.roundTrip(reqDeleteTopicInNamesrv, map[string]string{"topic": "TBW102"}, nil)
	require.Equal(t, codeNoPermission, resp.Code, resp.String())
	route, _, err := cluster.RouteInfo(t.Context(), c.NamesrvAddr(), "TBW102")
	require.NoError(t, err)
	require.Equal(t, b.Addr, route.MasterAddr(b.Name), "the broker inside brokerRegistrationAllowlist is registered")
}

// listeningSockets maps each listening TCP port to the local addresses it is bound to, from
// /proc/net/tcp and /proc/net/tcp6 ("::" for an IPv6 wildcard).
func listeningSockets(t testing.TB) map[int][]string {
	out := map[int][]string{}
	for _, path := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // 0A: LISTEN
				continue
			}
			hostHex, portHex, _ := strings.Cut(f[1], ":")
			port, err := strconv.ParseUint(portHex, 16, 16)
			require.NoError(t, err, line)
			out[int(port)] = append(out[int(port)], procAddr(hostHex))
		}
	}
	return out
}

// procAddr decodes the hex address of /proc/net/tcp{,6} (little-endian 32-bit words).
func procAddr(h string) string {
	b := make(net.IP, len(h)/2)
	for i := range b {
		v, _ := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		b[i] = byte(v)
	}
	for i := 0; i+4 <= len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	if len(b) == 16 && b.To4() != nil && !b.Equal(net.IPv6zero) {
		return b.To4().String()
	}
	return fmt.Sprint(b)
}
