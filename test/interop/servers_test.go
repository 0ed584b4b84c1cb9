package interop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Readiness limits: a JVM broker on a busy 2-core machine takes 10-20 s to boot.
const (
	namesrvReady = 60 * time.Second
	brokerReady  = 90 * time.Second
)

// The store geometry every broker of the suite uses, Apache's and ours alike: the CommitLog and
// ConsumeQueue file sizes must match for a store to move or a slave to follow, and the index
// geometry for index files to be read.
var storeGeometry = map[string]string{
	"mappedFileSizeCommitLog":    strconv.Itoa(64 << 20),
	"mappedFileSizeConsumeQueue": strconv.Itoa(6000 * 20),
	"maxHashSlotNum":             "5000",
	"maxIndexNum":                "20000",
}

// jvmFlags keep Apache's servers small and cheap on two cores. The --add-opens let 4.9's
// MappedFile unmap its buffers on JDK 17 (without them its shutdown hook fails half way).
var jvmFlags = []string{
	"-Xms64m", "-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC",
	"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.net.preferIPv4Stack=true",
	"--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
	"--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
}

// namesrv is a name server, Apache's or ours.
type namesrv struct {
	*process
	kind string // "go" or the Apache version
	Addr string
}

// broker is a broker, Apache's or ours.
type broker struct {
	*process
	kind     string // "go" or the Apache version
	Name     string
	ID       int
	Addr     string // 127.0.0.1:listenPort
	HAAddr   string // 127.0.0.1:haListenPort
	StoreDir string
	Props    map[string]string
	conf     string
}

func (b *broker) apache() bool { return b.kind != "go" }

// startGoNamesrv starts our mqnamesrv on a free port and waits until it answers.
func startGoNamesrv(t *testing.T, g *group) *namesrv {
	t.Helper()
	dir := mkdir(t, "go-namesrv")
	port := freeBlock(t)
	conf := filepath.Join(dir, "namesrv.conf")
	writeProps(t, conf, map[string]string{
		"listenPort":          strconv.Itoa(port),
		"kvConfigPath":        filepath.Join(dir, "kvConfig.json"),
		"metricsExporterType": "DISABLE", // on by default, on a fixed port
	})
	p := &process{name: "go-namesrv", dir: dir, argv: []string{cluster.Binary(t, cluster.NamesrvBinary), "-c", conf}}
	return launchNamesrv(t, g, p, "go", port)
}

// startApacheNamesrv starts Apache's NamesrvStartup of version and waits until it answers.
func startApacheNamesrv(t *testing.T, g *group, version string) *namesrv {
	t.Helper()
	dir := mkdir(t, "apache-namesrv-"+version)
	home := javaHome(t, dir, "namesrv")
	port := freeBlock(t)
	conf := filepath.Join(dir, "namesrv.conf")
	writeProps(t, conf, map[string]string{
		"listenPort":   strconv.Itoa(port),
		"bindAddress":  "127.0.0.1", // 5.x; 4.9 has no such key and listens on every interface
		"kvConfigPath": filepath.Join(dir, "kvConfig.json"),
	})
	p := &process{name: "apache-namesrv-" + version, dir: dir, javaExit: true,
		argv:      javaArgv(t, version, dir, home, "org.apache.rocketmq.namesrv.NamesrvStartup", conf),
		extraLogs: []string{filepath.Join(dir, "logs", "rocketmqlogs", "namesrv.log")}}
	return launchNamesrv(t, g, p, version, port)
}

func launchNamesrv(t *testing.T, g *group, p *process, kind string, port int) *namesrv {
	t.Helper()
	if err := p.start(); err != nil {
		t.Fatalf("interop: %v", err)
	}
	g.add(p)
	ns := &namesrv{process: p, kind: kind, Addr: "127.0.0.1:" + strconv.Itoa(port)}
	waitFor(t, namesrvReady, p, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, resp, err := cluster.RouteInfo(ctx, ns.Addr, "INTEROP_READINESS_PROBE")
		if err == nil && resp == nil {
			return fmt.Errorf("no answer")
		}
		return err
	}, "%s name server on %s", kind, ns.Addr)
	return ns
}

// brokerProps are the broker.conf keys of a broker called name, before the scenario's overrides:
// loopback addresses, the shared store geometry, a store under dir, and Apache's defaults
// otherwise (ASYNC_MASTER, ASYNC_FLUSH).
func brokerProps(cluster, name, dir string, port int, namesrvs ...*namesrv) map[string]string {
	var addrs []string
	for _, ns := range namesrvs {
		addrs = append(addrs, ns.Addr)
	}
	store := filepath.Join(dir, "store")
	props := map[string]string{
		"brokerClusterName":           cluster,
		"brokerName":                  name,
		"brokerId":                    "0",
		"brokerRole":                  "ASYNC_MASTER",
		"brokerIP1":                   "127.0.0.1",
		"brokerIP2":                   "127.0.0.1",
		"namesrvAddr":                 strings.Join(addrs, ";"),
		"listenPort":                  strconv.Itoa(port),
		"haListenPort":                strconv.Itoa(port + 1),
		"storePathRootDir":            store,
		"storePathCommitLog":          filepath.Join(store, "commitlog"),
		"flushDiskType":               "ASYNC_FLUSH",
		"autoCreateTopicEnable":       "true",
		"autoCreateSubscriptionGroup": "true",
		"deleteWhen":                  "04",
		"fileReservedTime":            "48",
	}
	for k, v := range storeGeometry {
		props[k] = v
	}
	return props
}

// brokerSpec says which broker to start: its kind, name, role and extra keys.
type brokerSpec struct {
	kind     string // "go" or an Apache version
	cluster  string
	name     string
	id       int
	role     string // ASYNC_MASTER (default), SYNC_MASTER or SLAVE
	namesrvs []*namesrv
	props    map[string]string // overrides, applied last
	// storeDir, when set, is an existing store the broker opens (storePathRootDir).
	storeDir string
}

// startBroker starts the broker of spec and waits until every name server of the spec lists it.
func startBroker(t *testing.T, g *group, spec brokerSpec) *broker {
	t.Helper()
	dir := mkdir(t, fmt.Sprintf("%s-%s-%d", spec.kind, spec.name, spec.id))
	port := freeBlock(t)
	props := brokerProps(spec.cluster, spec.name, dir, port, spec.namesrvs...)
	props["brokerId"] = strconv.Itoa(spec.id)
	if spec.role != "" {
		props["brokerRole"] = spec.role
	}
	if spec.storeDir != "" {
		props["storePathRootDir"] = spec.storeDir
		props["storePathCommitLog"] = filepath.Join(spec.storeDir, "commitlog")
	}
	if spec.kind == "go" {
		for k, v := range map[string]string{"metricsExporterType": "DISABLE", "maxMessageSize": "4194304"} {
			props[k] = v
		}
	} else {
		props["bindAddress"] = "127.0.0.1" // 5.x's remoting servers; 4.9 listens on every interface
	}
	for k, v := range spec.props {
		props[k] = v
	}
	b := &broker{kind: spec.kind, Name: spec.name, ID: spec.id, Addr: "127.0.0.1:" + strconv.Itoa(port),
		HAAddr: "127.0.0.1:" + props["haListenPort"], StoreDir: props["storePathRootDir"], Props: props,
		conf: filepath.Join(dir, "broker.conf")}
	writeProps(t, b.conf, props)
	label := fmt.Sprintf("%s-broker-%s-%d", spec.kind, spec.name, spec.id)
	if spec.kind == "go" {
		b.process = &process{name: label, dir: dir, argv: []string{cluster.Binary(t, cluster.BrokerBinary), "-c", b.conf}}
	} else {
		home := javaHome(t, dir, "broker")
		b.process = &process{name: label, dir: dir, javaExit: true,
			argv:      javaArgv(t, spec.kind, dir, home, "org.apache.rocketmq.broker.BrokerStartup", b.conf),
			extraLogs: []string{filepath.Join(dir, "logs", "rocketmqlogs", "broker.log")}}
	}
	g.add(b.process)
	b.startAgain(t, spec.namesrvs...)
	return b
}

// startAgain starts a stopped broker with the same broker.conf and waits until it is registered
// with every name server given.
func (b *broker) startAgain(t *testing.T, namesrvs ...*namesrv) {
	t.Helper()
	if err := b.start(); err != nil {
		t.Fatalf("interop: %v", err)
	}
	for _, ns := range namesrvs {
		b.waitRegistered(t, ns)
	}
}

// waitRegistered waits until ns lists the broker as brokerAddrs[ID] of its name.
func (b *broker) waitRegistered(t *testing.T, ns *namesrv) {
	t.Helper()
	waitFor(t, brokerReady, b.process, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		info, resp, err := cluster.GetClusterInfo(ctx, ns.Addr)
		switch {
		case err != nil:
			return err
		case info == nil:
			return fmt.Errorf("cluster info: %v", resp)
		}
		if got := info.BrokerAddrTable[b.Name].BrokerAddrs[strconv.Itoa(b.ID)]; got != b.Addr {
			return fmt.Errorf("the %s name server lists %q as %s/%d, want %s", ns.kind, got, b.Name, b.ID, b.Addr)
		}
		return nil
	}, "%s broker %s/%d registered with the %s name server", b.kind, b.Name, b.ID, ns.kind)
}

// javaHome makes ROCKETMQ_HOME for Apache's server: 4.9 reads its logback configuration from
// conf/logback_<server>.xml there (5.x carries its own in the jar). Both log to
// <dir>/logs/rocketmqlogs/<server>.log, where 5.x logs by default with user.home at dir.
func javaHome(t *testing.T, dir, server string) string {
	t.Helper()
	home := filepath.Join(dir, "rocketmq-home")
	logFile := filepath.Join(dir, "logs", "rocketmqlogs", server+".log")
	conf := `<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>` + logFile + `</file>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5p [%t] %c{0} - %m%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`
	mkdirAll(t, filepath.Join(home, "conf"))
	if err := os.WriteFile(filepath.Join(home, "conf", "logback_"+server+".xml"), []byte(conf), 0o644); err != nil {
		t.Fatalf("interop: %v", err)
	}
	return home
}

// javaArgv is the command line of an Apache server's main class.
func javaArgv(t *testing.T, version, dir, home, main, conf string) []string {
	t.Helper()
	argv := append([]string{"java"}, jvmFlags...)
	return append(argv, "-Duser.home="+dir, "-Drocketmq.home.dir="+home,
		"-cp", classpath(t, version), main, "-c", conf)
}

// waitFor polls check until it returns nil, failing the test (with the process's log) when p
// exits or the limit passes.
func waitFor(t *testing.T, limit time.Duration, p *process, check func() error, what string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(limit)
	last := fmt.Errorf("nothing tried")
	for time.Now().Before(deadline) {
		if !p.running() {
			t.Fatalf("interop: %s: %s exited (%v)\n%s", fmt.Sprintf(what, args...), p.name, p.exitErr(), p.tail(40))
		}
		if last = check(); last == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("interop: %s: not within %v: %v\n%s", fmt.Sprintf(what, args...), limit, last, p.tail(40))
}

func mkdir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	mkdirAll(t, dir)
	return dir
}

func mkdirAll(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("interop: %v", err)
	}
}
