package hostile

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// registerBodyCap is the name server's registerBrokerMaxBodyBytes in TestNameServerUnderAttack.
const registerBodyCap = 4 << 20

// TestNameServerUnderAttack plays rows 9 and 10 of issue 7 against a name server while a producer
// and a consumer keep working: frame announcements and a never-reading reader (rows 6 and 7 on
// the name server's port), oversize and compressed-bomb registrations, hijacking registrations
// and unregistrations, names that do not belong in a map or a log, oversize KV values and a KV
// write flood; then, after a kill -9, every KV put that was answered SUCCESS is still there.
func TestNameServerUnderAttack(t *testing.T) {
	metricsPort, err := cluster.FreePort()
	require.NoError(t, err)
	c := cluster.Start(t, cluster.Options{NamesrvProps: map[string]string{
		"registerBrokerMaxBodyBytes": strconv.Itoa(registerBodyCap),
		"metricsExporterType":        "PROM",
		"metricsPromExporterHost":    "127.0.0.1",
		"metricsPromExporterPort":    strconv.Itoa(metricsPort),
	}})
	ns := c.Namesrv
	w := startWorkload(t, c, "namesrv")
	tg := target{name: "name server", addr: ns.Addr, pid: ns.Pid(), metricsPort: metricsPort}
	t.Run("FrameAnnouncements", func(t *testing.T) { frameAnnouncements(t, tg) })
	t.Run("NeverReadingReader", func(t *testing.T) { neverReadingReader(t, tg, cluster.ReqGetBrokerClusterInfo) })
	t.Run("OversizeRegistrations", func(t *testing.T) { oversizeRegistrations(t, c) })
	t.Run("Hijack", func(t *testing.T) { hijack(t, c) })
	t.Run("BadNames", func(t *testing.T) { badNames(t, ns) })
	t.Run("KVValues", func(t *testing.T) { kvValues(t, ns) })
	var answered map[string]string
	t.Run("KVWriteFlood", func(t *testing.T) { answered = kvWriteFlood(t, ns, metricsPort) })
	w.finish()
	t.Run("KVSurvivesKill9", func(t *testing.T) { kvSurvivesKill(t, ns, answered) })
}

// compressedRegistration is a REGISTER_BROKER body in Apache RocketMQ 4.9's compressed form: zlib
// of the DataVersion JSON, the topic count, each topic in compact form, the filter server list,
// every part prefixed with its int32 length.
func compressedRegistration(t testing.TB, parts func(part func(string), count func(int32))) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	part := func(s string) {
		require.NoError(t, binary.Write(zw, binary.BigEndian, int32(len(s))))
		_, err := zw.Write([]byte(s))
		require.NoError(t, err)
	}
	count := func(n int32) { require.NoError(t, binary.Write(zw, binary.BigEndian, n)) }
	parts(part, count)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

func registrationHeader(cluster, name, addr, ha string, id int) map[string]string {
	return map[string]string{"brokerName": name, "brokerAddr": addr, "clusterName": cluster, "haServerAddr": ha,
		"brokerId": strconv.Itoa(id), "compressed": "true"}
}

// oversizeRegistrations: REGISTER_BROKER listing 200,000 topics (about 0.5 MB compressed) and
// compressed bombs are refused with SYSTEM_ERROR naming the cap, eight connections at a time,
// and the name server's memory stays flat (before: accepted, heap +170 MB).
func oversizeRegistrations(t *testing.T, c *cluster.Cluster) {
	many := compressedRegistration(t, func(part func(string), count func(int32)) {
		part(`{"counter":1,"timestamp":1700000000000}`)
		count(200000)
		for i := 0; i < 200000; i++ {
			part(fmt.Sprintf("Topic%07d 8 8 6 SINGLE_TAG", i))
		}
		part(`[]`)
	})
	bomb := compressedRegistration(t, func(part func(string), _ func(int32)) {
		part(strings.Repeat("\x00", 16<<20-1)) // 16 MiB of zeros as the DataVersion, a few KiB compressed
	})
	t.Logf("200,000 topics: %d bytes compressed; bomb: %d bytes compressed", len(many), len(bomb))
	before := readMemory(t, c.Namesrv.Pid())
	watch := watchPeak(c.Namesrv.Pid())
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := dialRaw(t, c.NamesrvAddr())
			for j := 0; j < 3; j++ {
				ext := registrationHeader(c.Name, fmt.Sprintf("flood-%d-%d", i, j), fmt.Sprintf("127.0.0.1:%d", 20000+i*10+j), "", 0)
				resp := r.roundTrip(reqRegisterBroker, ext, many)
				require.Equal(t, codeSystemError, resp.Code, resp.String())
				require.Contains(t, resp.Remark, "registerBrokerMaxTopics")
				require.Contains(t, resp.Remark, "200000 topics, limit 100000")
				resp = r.roundTrip(reqRegisterBroker, ext, bomb)
				require.Equal(t, codeSystemError, resp.Code, resp.String())
				require.Contains(t, resp.Remark, "registerBrokerMaxBodyBytes")
			}
		}(i)
	}
	wg.Wait()
	requireGrowthBelow(t, "24 registrations of 200,000 topics and 24 compressed bombs", before, watch.Peak(), 64<<20)
	info, _, err := cluster.GetClusterInfo(context.Background(), c.NamesrvAddr())
	require.NoError(t, err)
	require.Len(t, info.BrokerAddrTable, 1, "no refused registration left a broker behind")
}

// hijack: a second REGISTER_BROKER for the live broker's brokerName/brokerId from another
// connection, at another address or with another HA address, is refused and changes neither the
// routes nor what a slave learns as its master's HA address; nor does an UNREGISTER_BROKER from
// that connection remove the broker (before: the hijacker's address replaced the master's).
func hijack(t *testing.T, c *cluster.Cluster) {
	b := c.Brokers[0]
	realHA := net.JoinHostPort("127.0.0.1", strconv.Itoa(b.HAPort))
	r := dialRaw(t, c.NamesrvAddr())
	for i := 0; i < 20; i++ {
		resp := r.roundTrip(reqRegisterBroker, registrationHeader(c.Name, b.Name, "127.0.0.1:1", "127.0.0.1:2", 0), nil)
		require.Equal(t, codeSystemError, resp.Code, resp.String())
		require.Contains(t, resp.Remark, "registered at another address")
		resp = r.roundTrip(reqRegisterBroker, registrationHeader(c.Name, b.Name, b.Addr, "127.0.0.1:2", 0), nil)
		require.Equal(t, codeSystemError, resp.Code, resp.String())
		require.Contains(t, resp.Remark, "the address is registered as")
	}
	resp := r.roundTrip(reqUnregisterBroker, map[string]string{"brokerName": b.Name, "brokerAddr": b.Addr,
		"clusterName": c.Name, "brokerId": "0"}, nil)
	require.Equal(t, codeSystemError, resp.Code, resp.String())
	require.Contains(t, c.Namesrv.Log(), "by another connection that is still open", "the refusal is logged")

	route, _, err := cluster.RouteInfo(context.Background(), c.NamesrvAddr(), "TBW102")
	require.NoError(t, err)
	require.Equal(t, b.Addr, route.MasterAddr(b.Name), "the route keeps the real master")
	// A slave registering now learns the real master's HA address.
	slave := dialRaw(t, c.NamesrvAddr())
	resp = slave.roundTrip(reqRegisterBroker, registrationHeader(c.Name, b.Name, "127.0.0.1:3", "127.0.0.1:4", 1), nil)
	require.Equal(t, 0, resp.Code, resp.String())
	require.Equal(t, b.Addr, resp.ExtFields["masterAddr"])
	require.Equal(t, realHA, resp.ExtFields["haServerAddr"])
	_ = slave.nc.Close() // the fake slave leaves with its connection
}

// badNames: names that do not belong in a map, a file or a log are refused with a remark that
// says what is wrong, and never reach the log raw.
func badNames(t *testing.T, ns *cluster.Namesrv) {
	r := dialRaw(t, ns.Addr)
	resp := r.roundTrip(reqRegisterBroker, registrationHeader("c", "../../etc", "127.0.0.1:5", "", 0), nil)
	require.Equal(t, codeSystemError, resp.Code)
	require.Contains(t, resp.Remark, `invalid brokerName "../../etc"`)
	resp = r.roundTrip(cluster.ReqGetRouteInfoByTopic, map[string]string{"topic": "T\r\nFAKE LOG LINE"}, nil)
	require.Equal(t, codeSystemError, resp.Code)
	require.Contains(t, resp.Remark, `invalid topic "T\r\nFAKE LOG LINE"`)
	resp = r.roundTrip(reqPutKVConfig, map[string]string{"namespace": "ns", "key": "k\nFAKE LOG LINE", "value": "v"}, nil)
	require.Equal(t, codeSystemError, resp.Code)
	require.Contains(t, resp.Remark, `invalid key "k\nFAKE LOG LINE"`)
	resp = r.roundTrip(reqPutKVConfig, map[string]string{"namespace": strings.Repeat("n", 1000), "key": "k", "value": "v"}, nil)
	require.Equal(t, codeSystemError, resp.Code)
	require.Contains(t, resp.Remark, "1000 bytes, at most 255")
	require.NotContains(t, ns.Log(), "\nFAKE LOG LINE", "a name from the wire started a log line")
}

// kvValues: a 100 KB value is refused naming kvConfigMaxValueBytes; an accepted value is logged
// by its length and a short prefix, never in full (before: 100 KB values logged in full).
func kvValues(t *testing.T, ns *cluster.Namesrv) {
	r := dialRaw(t, ns.Addr)
	huge := strings.Repeat("H", 100<<10)
	resp := r.roundTrip(reqPutKVConfig, map[string]string{"namespace": "HOSTILE", "key": "huge", "value": huge}, nil)
	require.Equal(t, codeSystemError, resp.Code)
	require.Contains(t, resp.Remark, "kvConfigMaxValueBytes")
	big := strings.Repeat("B", 12<<10)
	resp = r.roundTrip(reqPutKVConfig, map[string]string{"namespace": "HOSTILE", "key": "big", "value": big}, nil)
	require.Equal(t, 0, resp.Code, resp.String())
	log := ns.Log()
	require.NotContains(t, log, huge[:200])
	require.NotContains(t, log, big[:200], "a value logged in full")
	require.Contains(t, log, "12288", "the value's length is logged")
}

// kvWriteFlood: 400 PUT_KV_CONFIG on eight pipelining connections are all answered SUCCESS and
// rewrite kvConfig.json far fewer than 400 times, as the name server's own counter says (before:
// a full rewrite per put). It returns the keys and values answered SUCCESS.
func kvWriteFlood(t *testing.T, ns *cluster.Namesrv, metricsPort int) map[string]string {
	const conns, perConn = 8, 50
	writesBefore := kvFileWrites(t, metricsPort)
	var mu sync.Mutex
	answered := map[string]string{}
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := dialRaw(t, ns.Addr)
			var frames []byte
			for j := 0; j < perConn; j++ {
				ext := map[string]string{"namespace": "FLOOD", "key": fmt.Sprintf("k%d_%d", i, j), "value": fmt.Sprintf("v%d_%d", i, j)}
				frames = append(frames, request(t, reqPutKVConfig, ext, nil)...)
			}
			require.True(t, r.write(frames, 10*time.Second))
			for j := 0; j < perConn; j++ {
				resp, err := r.read(20 * time.Second)
				require.NoError(t, err)
				if resp.Code == 0 {
					ok.Add(1)
				}
			}
			mu.Lock()
			for j := 0; j < perConn; j++ {
				answered[fmt.Sprintf("k%d_%d", i, j)] = fmt.Sprintf("v%d_%d", i, j)
			}
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	writes := kvFileWrites(t, metricsPort) - writesBefore
	t.Logf("%d PUT_KV_CONFIG answered SUCCESS, kvConfig.json written %.0f times", ok.Load(), writes)
	require.Equal(t, int64(conns*perConn), ok.Load())
	require.Less(t, writes, float64(conns*perConn/2), "writes were not coalesced")
	return answered
}

// kvSurvivesKill9: after kill -9 and a restart, every put answered SUCCESS is in the KV store.
func kvSurvivesKill(t *testing.T, ns *cluster.Namesrv, answered map[string]string) {
	require.NotEmpty(t, answered)
	require.NoError(t, ns.Kill())
	ns.StartAgain(t)
	r := dialRaw(t, ns.Addr)
	for key, value := range answered {
		resp := r.roundTrip(reqGetKVConfig, map[string]string{"namespace": "FLOOD", "key": key}, nil)
		require.Equal(t, 0, resp.Code, "%s after kill -9: %s", key, resp)
		require.Equal(t, value, resp.ExtFields["value"])
	}
}

// kvFileWrites reads rocketgo_namesrv_kv_file_writes_total from the name server's /metrics.
func kvFileWrites(t testing.TB, port int) float64 {
	return scrape(t, port, "rocketgo_namesrv_kv_file_writes_total")
}

// scrape reads one unlabelled series (or the first series of name) from a server's /metrics.
func scrape(t testing.TB, port int, name string) float64 {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	require.NoError(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == name || strings.HasPrefix(line, name+" ") || strings.HasPrefix(line, name+"{") {
			fields := strings.Fields(line)
			v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
			require.NoError(t, err, line)
			return v
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("no %s in /metrics", name)
	return 0
}
