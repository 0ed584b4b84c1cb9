package crash

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rocketmq "github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// Deadlines of the waits in this package.
const (
	routeTimeout    = 40 * time.Second // a created topic shows up in the nameserver's route
	sendTimeout     = 3 * time.Second  // one Go-client send (a send caught by a kill waits this long)
	firstAckTimeout = 40 * time.Second // a restarted broker acknowledges a send
	dispatchTimeout = 30 * time.Second // consume queues catch up with the commit log
	consumeTimeout  = 60 * time.Second // a consumer receives what it should
	commitTimeout   = 40 * time.Second // the broker's committed / persisted consumer offsets catch up
)

// segmentSize is the commit log segment size of the test brokers.
const segmentSize = 1 << 20

// brokerProps are the broker.conf overrides of the tests: the flush mode, 1 MiB commit log
// segments (so that every cycle crosses segment boundaries), 6000-entry consume queue files, 20000-entry
// index files (so that index files fill up and roll over across kills) and consumer offsets
// persisted every second.
func brokerProps(flushDiskType string) map[string]string {
	return map[string]string{
		"flushDiskType":               flushDiskType,
		"mappedFileSizeCommitLog":     strconv.Itoa(segmentSize),
		"mappedFileSizeConsumeQueue":  strconv.Itoa(6000 * 20),
		"maxMessageSize":              strconv.Itoa(segmentSize / 2),
		"maxHashSlotNum":              "5000",
		"maxIndexNum":                 "20000",
		"flushConsumerOffsetInterval": "1000",
	}
}

// startCluster starts a nameserver and one broker with brokerProps(flushDiskType); on failure the
// tail of every log is printed (the harness does it at cleanup).
func startCluster(t *testing.T, flushDiskType string) (*cluster.Cluster, *cluster.Broker) {
	t.Helper()
	c := cluster.Start(t, cluster.Options{BrokerProps: brokerProps(flushDiskType)})
	return c, c.Brokers[0]
}

var nameSeq atomic.Int64

var nonName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// uniq returns a topic, group or instance name no other test in this process uses.
func uniq(t testing.TB, prefix string) string {
	name := nonName.ReplaceAllString(t.Name(), "_")
	if len(name) > 50 {
		name = name[len(name)-50:]
	}
	return fmt.Sprintf("%s_%s_%d", prefix, name, nameSeq.Add(1))
}

// createTopic creates topic with queues read/write queues on broker b through the Go client's
// admin API and waits until the nameserver routes it there.
func createTopic(t testing.TB, c *cluster.Cluster, b *cluster.Broker, topic string, queues int) {
	t.Helper()
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{c.NamesrvAddr()})))
	require.NoError(t, err, "new admin")
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, adm.CreateTopic(ctx, admin.WithTopicCreate(topic), admin.WithBrokerAddrCreate(b.Addr),
		admin.WithReadQueueNums(queues), admin.WithWriteQueueNums(queues)), "UPDATE_AND_CREATE_TOPIC %s", topic)
	waitRoute(t, c, b, topic, queues)
}

// waitRoute waits until the nameserver routes topic to b with queues read and write queues.
func waitRoute(t testing.TB, c *cluster.Cluster, b *cluster.Broker, topic string, queues int) {
	t.Helper()
	waitUntil(t, routeTimeout, 100*time.Millisecond, "route of "+topic, func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		route, resp, err := cluster.RouteInfo(ctx, c.NamesrvAddr(), topic)
		switch {
		case err != nil:
			return false, err.Error()
		case route == nil:
			return false, "no route: " + resp.String()
		}
		q, ok := route.Queues(b.Name)
		if ok && q.ReadQueueNums == queues && q.WriteQueueNums == queues && route.MasterAddr(b.Name) == b.Addr {
			return true, ""
		}
		return false, "route does not have the queues yet: " + string(route.Raw)
	})
}

// waitUntil checks cond every tick until it holds, failing t after timeout with what was waited
// for and cond's last reason. (The conditions are states of another process, which sends no
// event when they change.)
func waitUntil(t testing.TB, timeout, tick time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		ok, why := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not reached within %v: %s", what, timeout, why)
		}
		<-ticker.C
	}
}

// newProducer starts a Go-client producer without retries (a retried send could store a message
// twice; a duplicate would be harmless, but without retries every acknowledgement names the one
// stored copy). t.Cleanup shuts it down.
func newProducer(t testing.TB, c *cluster.Cluster, group string) rocketmq.Producer {
	t.Helper()
	p, err := rocketmq.NewProducer(
		producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName(group),
		producer.WithInstanceName(uniq(t, "prod")),
		producer.WithRetry(0),
		producer.WithSendMsgTimeout(sendTimeout),
	)
	require.NoError(t, err, "new producer")
	require.NoError(t, p.Start(), "start producer")
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// commitLogSegments lists the commit log segment files of broker b.
func commitLogSegments(t testing.TB, b *cluster.Broker) []string {
	t.Helper()
	dir := b.Props["storePathCommitLog"]
	if dir == "" {
		dir = filepath.Join(b.StoreDir, "commitlog")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err, "list the commit log")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// indexFiles counts the index files of broker b.
func indexFiles(t testing.TB, b *cluster.Broker) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(b.StoreDir, "index"))
	require.NoError(t, err, "list the index directory")
	return len(entries)
}

// consumeQueueTopics lists the topics broker b has consume queues for.
func consumeQueueTopics(t testing.TB, b *cluster.Broker) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(b.StoreDir, "consumequeue"))
	require.NoError(t, err, "list the consume queues")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// grepLog returns the lines of the broker's logs (every run) that contain any of words, at most n.
func grepLog(b *cluster.Broker, n int, words ...string) string {
	var out []string
	for _, path := range b.LogPaths() {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			for _, w := range words {
				if strings.Contains(line, w) {
					out = append(out, filepath.Base(path)+": "+line)
					break
				}
			}
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "\n")
}
