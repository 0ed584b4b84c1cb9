package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeouts of the readiness checks.
const (
	NamesrvReadyTimeout = 20 * time.Second
	BrokerReadyTimeout  = 40 * time.Second
)

// Options configure a Cluster. The zero value is one nameserver and one broker "broker-a".
type Options struct {
	ClusterName string            // brokerClusterName; default "E2ECluster"
	Brokers     []string          // brokerName of each broker (all masters, brokerId 0); default {"broker-a"}
	BrokerProps map[string]string // broker.conf keys that override the defaults, for every broker (see AddBroker)
	BrokerArgs  []string          // extra mqbroker command-line arguments, e.g. "--log-level", "debug"
	// NamesrvProps are namesrv.conf keys beside listenPort and kvConfigPath (which they may
	// override).
	NamesrvProps map[string]string
}

// Cluster is one nameserver and its brokers, owned by one test.
type Cluster struct {
	t          testing.TB
	dir        string
	brokerArgs []string
	Name       string
	Namesrv    *Namesrv
	Brokers    []*Broker

	mu    sync.Mutex
	procs []*Process // every process started, in start order
}

// Start starts a nameserver and the brokers of opts and waits until every broker is visible through
// the nameserver. Everything is stopped by t.Cleanup; a process that does not stop cleanly on
// SIGTERM fails the test, and a failed test prints the tail of every log.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.ClusterName == "" {
		opts.ClusterName = "E2ECluster"
	}
	if len(opts.Brokers) == 0 {
		opts.Brokers = []string{"broker-a"}
	}
	nsBin := Binary(t, NamesrvBinary)
	brBin := Binary(t, BrokerBinary)
	c := &Cluster{t: t, dir: t.TempDir(), Name: opts.ClusterName, brokerArgs: opts.BrokerArgs}
	t.Cleanup(c.cleanup)

	c.Namesrv = c.startNamesrv(nsBin, opts.NamesrvProps)
	for _, name := range opts.Brokers {
		c.Brokers = append(c.Brokers, c.startBroker(brBin, name, opts.BrokerProps))
	}
	return c
}

// Broker returns the broker called name.
func (c *Cluster) Broker(name string) *Broker {
	for _, b := range c.Brokers {
		if b.Name == name {
			return b
		}
	}
	c.t.Fatalf("e2e: no broker %q in the cluster", name)
	return nil
}

// NamesrvAddr is "127.0.0.1:port" of the nameserver.
func (c *Cluster) NamesrvAddr() string { return c.Namesrv.Addr }

func (c *Cluster) track(p *Process) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.procs = append(c.procs, p)
}

// cleanup stops brokers before the nameserver (reverse start order) and dumps logs on failure.
func (c *Cluster) cleanup() {
	c.mu.Lock()
	procs := append([]*Process(nil), c.procs...)
	c.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		if procs[i].DiedUnexpectedly() {
			c.t.Errorf("e2e: %s exited on its own during the test (%s)", procs[i].Name, procs[i].ExitStatus())
			continue
		}
		if err := procs[i].Stop(); err != nil {
			c.t.Errorf("e2e: cleanup: %v", err)
		}
	}
	if c.t.Failed() {
		c.DumpLogs(80)
	}
}

// DumpLogs logs the last n lines of every run of every process.
func (c *Cluster) DumpLogs(n int) {
	c.mu.Lock()
	procs := append([]*Process(nil), c.procs...)
	c.mu.Unlock()
	for _, p := range procs {
		logs := p.LogPaths()
		for i, path := range logs {
			status := "an earlier run"
			if i == len(logs)-1 {
				status = p.ExitStatus()
			}
			c.t.Logf("==== %s (%s) ====\n%s", filepath.Base(path), status, tailFile(path, n))
		}
	}
}

// Namesrv is the cluster's nameserver.
type Namesrv struct {
	*Process
	Addr string
	Port int
	// MetricsAddr is host:port of its /metrics, empty when the test turned metrics off.
	MetricsAddr string
}

func (c *Cluster) startNamesrv(bin string, overrides map[string]string) *Namesrv {
	t := c.t
	t.Helper()
	dir := filepath.Join(c.dir, "namesrv")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		port := mustFreePort(t)
		conf := filepath.Join(dir, "namesrv.conf")
		props := map[string]string{
			"listenPort":   strconv.Itoa(port),
			"kvConfigPath": filepath.Join(dir, "kvConfig.json"),
			// the name server's metrics are on by default: on a free port of their own
			"metricsPromExporterPort": strconv.Itoa(mustFreePort(t)),
		}
		for k, v := range overrides {
			props[k] = v
		}
		writeConf(t, conf, "namesrv.conf written by test/e2e/cluster", props)
		p := newProcess(attemptName("namesrv", attempt), bin, dir, []string{"-c", conf})
		if err := p.start(); err != nil {
			t.Fatalf("e2e: %v", err)
		}
		c.track(p)
		ns := &Namesrv{Process: p, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Port: port,
			MetricsAddr: namesrvMetricsAddr(props)}
		lastErr = ns.waitReady()
		if lastErr == nil {
			return ns
		}
		if !portClash(p) {
			break
		}
		_ = p.Stop()
		p.acceptExit()
	}
	t.Fatalf("e2e: nameserver not ready: %v\n%s", lastErr, "(its log is printed below)")
	return nil
}

// StartAgain starts a stopped or killed nameserver with the same namesrv.conf (port, KV file) and
// waits until it answers.
func (ns *Namesrv) StartAgain(t testing.TB) {
	t.Helper()
	if err := ns.start(); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	if err := ns.waitReady(); err != nil {
		t.Fatalf("e2e: nameserver not ready after restart: %v", err)
	}
}

// waitReady waits until the nameserver answers a route query (for a topic that does not exist).
func (ns *Namesrv) waitReady() error {
	deadline := time.Now().Add(NamesrvReadyTimeout)
	var last string
	for time.Now().Before(deadline) {
		select {
		case <-ns.Exited():
			return fmt.Errorf("nameserver exited during start-up (%s)", ns.ExitStatus())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, resp, err := RouteInfo(ctx, ns.Addr, "E2E_READINESS_PROBE")
		cancel()
		if err == nil && resp != nil {
			return nil
		}
		if err != nil {
			last = err.Error()
		}
		pause(ns.Exited(), 100*time.Millisecond)
	}
	return fmt.Errorf("nameserver on %s did not answer a GET_ROUTEINFO_BY_TOPIC within %v; last error: %s",
		ns.Addr, NamesrvReadyTimeout, last)
}

// Broker is one broker of the cluster.
type Broker struct {
	*Process
	c        *Cluster
	Name     string
	Addr     string // brokerIP1:listenPort, as clients see it
	Port     int
	HAPort   int
	StoreDir string
	Conf     string // path of broker.conf
	Props    map[string]string
}

// DefaultBrokerProps are the broker.conf keys every test broker gets, before Options.BrokerProps.
func DefaultBrokerProps() map[string]string {
	return map[string]string{
		"brokerId":                    "0",
		"brokerIP1":                   "127.0.0.1",
		"brokerIP2":                   "127.0.0.1",
		"mappedFileSizeCommitLog":     strconv.Itoa(32 << 20),
		"mappedFileSizeConsumeQueue":  strconv.Itoa(6000 * 20),
		"flushDiskType":               "ASYNC_FLUSH",
		"autoCreateTopicEnable":       "true",
		"autoCreateSubscriptionGroup": "true",
		"maxMessageSize":              "4194304",
		"metricsExporterType":         "DISABLE",
		"deleteWhen":                  "04",
		"fileReservedTime":            "48",
	}
}

// AddBroker starts one more broker in the cluster, with overrides on top of DefaultBrokerProps, and
// waits until it is ready. An empty "namesrvAddr" override leaves the key out of broker.conf and
// passes the nameserver as `-n host:port` instead.
func (c *Cluster) AddBroker(name string, overrides map[string]string) *Broker {
	c.t.Helper()
	b := c.startBroker(Binary(c.t, BrokerBinary), name, overrides)
	c.Brokers = append(c.Brokers, b)
	return b
}

func (c *Cluster) startBroker(bin, name string, overrides map[string]string) *Broker {
	t := c.t
	t.Helper()
	dir := filepath.Join(c.dir, name)
	store := filepath.Join(dir, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	var lastErr error
	for attempt := 1; attempt <= 3; attempt++ {
		b := &Broker{c: c, Name: name, StoreDir: store, Conf: filepath.Join(dir, "broker.conf"),
			Port: mustFreePort(t), HAPort: mustFreePort(t)}
		b.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port))
		props := DefaultBrokerProps()
		props["brokerClusterName"] = c.Name
		props["brokerName"] = name
		props["namesrvAddr"] = c.Namesrv.Addr
		props["listenPort"] = strconv.Itoa(b.Port)
		props["haListenPort"] = strconv.Itoa(b.HAPort)
		props["storePathRootDir"] = store
		props["storePathCommitLog"] = filepath.Join(store, "commitlog")
		for k, v := range overrides {
			props[k] = v
		}
		args := []string{"-c", b.Conf}
		if props["namesrvAddr"] == "" {
			// Asked for on the command line instead of in broker.conf.
			delete(props, "namesrvAddr")
			args = append(args, "-n", c.Namesrv.Addr)
		}
		b.Props = props
		writeConf(t, b.Conf, "broker.conf written by test/e2e/cluster", props)
		b.Process = newProcess(attemptName(name, attempt), bin, dir, append(args, c.brokerArgs...))
		if err := b.start(); err != nil {
			t.Fatalf("e2e: %v", err)
		}
		c.track(b.Process)
		lastErr = b.WaitReady()
		if lastErr == nil {
			return b
		}
		if !portClash(b.Process) {
			break
		}
		_ = b.Process.Stop()
		b.Process.acceptExit()
	}
	t.Fatalf("e2e: broker %s not ready: %v", name, lastErr)
	return nil
}

// Restart stops the broker with SIGTERM (failing the test if it does not stop cleanly), starts it
// again with the same broker.conf, ports and store, and waits until it is ready.
func (b *Broker) Restart() {
	t := b.c.t
	t.Helper()
	if err := b.Stop(); err != nil {
		t.Errorf("e2e: %v", err)
	}
	b.StartAgain()
}

// StartAgain starts a stopped or killed broker with the same broker.conf and waits until it is ready.
func (b *Broker) StartAgain() {
	t := b.c.t
	t.Helper()
	if err := b.start(); err != nil {
		t.Fatalf("e2e: %v", err)
	}
	if err := b.WaitReady(); err != nil {
		t.Fatalf("e2e: broker %s not ready after restart: %v", b.Name, err)
	}
}

// WaitReady waits until the broker accepts connections and the nameserver routes TBW102 to it
// (or, when autoCreateTopicEnable=false, lists it in GET_BROKER_CLUSTER_INFO).
func (b *Broker) WaitReady() error {
	deadline := time.Now().Add(BrokerReadyTimeout)
	byRoute := b.Props["autoCreateTopicEnable"] != "false"
	last := "nothing tried"
	for time.Now().Before(deadline) {
		select {
		case <-b.Exited():
			return fmt.Errorf("broker %s exited during start-up (%s)", b.Name, b.ExitStatus())
		default:
		}
		if err := b.visible(byRoute); err != nil {
			last = err.Error()
			pause(b.Exited(), 100*time.Millisecond)
			continue
		}
		return nil
	}
	return fmt.Errorf("broker %s (%s) not ready within %v: %s", b.Name, b.Addr, BrokerReadyTimeout, last)
}

func (b *Broker) visible(byRoute bool) error {
	conn, err := net.DialTimeout("tcp", b.Addr, time.Second)
	if err != nil {
		return fmt.Errorf("broker does not accept connections: %v", err)
	}
	_ = conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if byRoute {
		route, resp, err := RouteInfo(ctx, b.c.Namesrv.Addr, "TBW102")
		switch {
		case err != nil:
			return fmt.Errorf("route of TBW102: %v", err)
		case route == nil:
			return fmt.Errorf("nameserver has no route for TBW102: %v", resp)
		}
		if _, ok := route.Queues(b.Name); !ok || route.MasterAddr(b.Name) != b.Addr {
			return fmt.Errorf("nameserver route for TBW102 does not list %s at %s yet: %s", b.Name, b.Addr, clip(route.Raw, 400))
		}
		return nil
	}
	info, resp, err := GetClusterInfo(ctx, b.c.Namesrv.Addr)
	switch {
	case err != nil:
		return fmt.Errorf("cluster info: %v", err)
	case info == nil:
		return fmt.Errorf("cluster info: %v", resp)
	}
	if bd, ok := info.BrokerAddrTable[b.Name]; !ok || bd.BrokerAddrs["0"] != b.Addr {
		return fmt.Errorf("cluster info does not list %s at %s yet: %v", b.Name, b.Addr, resp)
	}
	return nil
}

// attemptName names the process of a start-up attempt; retries (after a port clash) get their own
// log files.
func attemptName(name string, attempt int) string {
	if attempt == 1 {
		return name
	}
	return fmt.Sprintf("%s-attempt%d", name, attempt)
}

func mustFreePort(t testing.TB) int {
	t.Helper()
	p, err := FreePort()
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	return p
}

// portClash reports whether a process that failed to start says its port was taken.
// namesrvMetricsAddr is where a name server started with props serves /metrics ("" when off).
func namesrvMetricsAddr(props map[string]string) string {
	if strings.EqualFold(props["metricsExporterType"], "DISABLE") || props["metricsPromExporterPort"] == "" {
		return ""
	}
	host := props["metricsPromExporterHost"]
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, props["metricsPromExporterPort"])
}

func portClash(p *Process) bool {
	return strings.Contains(strings.ToLower(p.Log()), "address already in use")
}

// writeConf writes a Java-properties file with sorted keys.
func writeConf(t testing.TB, path, comment string, props map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString("# " + comment + "\n")
	for _, k := range keys {
		sb.WriteString(k + "=" + props[k] + "\n")
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatalf("e2e: write %s: %v", path, err)
	}
}

// pause waits for d, or less if stop closes.
func pause(stop <-chan struct{}, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-stop:
	case <-timer.C:
	}
}
