package monitoring

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

const (
	callTimeout = 15 * time.Second
	// emitTimeout bounds the wait for every queried series: the consumer's first pulls, the
	// transaction ends (oneway) and the slave's first acknowledgement.
	emitTimeout = 90 * time.Second
)

func TestMain(m *testing.M) {
	rlog.SetLogLevel("error")
	os.Exit(m.Run())
}

// prometheusLabels are the labels Prometheus adds to every scraped series itself.
var prometheusLabels = map[string]bool{"job": true, "instance": true}

// prometheusSeries are the series Prometheus makes of every scrape.
var prometheusSeries = map[string]bool{"up": true, "scrape_duration_seconds": true, "scrape_samples_scraped": true}

// TestDashboardAndRulesReadEmittedMetrics starts a name server, a master and its slave, sends,
// consumes (some messages to the dead-letter topic), commits and rolls back transactions, then
// scrapes the three /metrics endpoints until every metric the dashboard and the alert rules select
// is there, with every label their matchers name.
func TestDashboardAndRulesReadEmittedMetrics(t *testing.T) {
	qs := append(dashboardQueries(t, deployFile(t, "grafana/rocketgo-dashboard.json")),
		ruleQueries(t, deployFile(t, "prometheus/rocketgo-alerts.yml"))...)
	want := selectors(t, qs)

	c, endpoints := startServers(t)
	traffic(t, c)

	var missing []string
	deadline := time.Now().Add(emitTimeout)
	for {
		families := scrapeAll(t, endpoints)
		missing = missingSelectors(want, families)
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	require.Empty(t, missing, "selected by the monitoring files, not emitted by the servers")
	requireTrafficCounted(t, endpoints["master"])
	families := scrapeAll(t, endpoints)
	require.Len(t, missingSelectors([]selector{{where: "self-check", metric: "rocketmq_no_such_metric"},
		{where: "self-check", metric: "rocketmq_messages_in_total", labels: []string{"no_such_label"}},
		{where: "self-check", metric: "rocketmq_topic_number_bucket"}}, families), 3, "the check can fail")
	t.Logf("%d selectors of %d metrics found in %d emitted families", len(want), distinctMetrics(want), len(families))
}

// requireTrafficCounted: the master's counters say what traffic did, once the consumer is done.
func requireTrafficCounted(t *testing.T, master string) {
	t.Helper()
	want := map[string]float64{
		`rocketmq_messages_in_total{topic="MonitoringTopic"}`:                                   20, // a transaction counts where its half is stored:
		`rocketmq_messages_in_total{topic="RMQ_SYS_TRANS_HALF_TOPIC"}`:                          2,
		`rocketmq_send_to_dlq_messages_total{consumer_group="MonitoringGroup"}`:                 5,
		`rocketmq_commit_messages_total{topic="MonitoringTopic"}`:                               1,
		`rocketmq_rollback_messages_total{topic="MonitoringTopic"}`:                             1,
		`rocketmq_half_messages{topic="MonitoringTopic"}`:                                       0,
		`rocketmq_consumer_lag_messages{consumer_group="MonitoringGroup"}`:                      0,
		`rocketmq_consumer_connections{consumer_group="MonitoringGroup"}`:                       1,
		`rocketmq_messages_out_total{consumer_group="MonitoringGroup",topic="MonitoringTopic"}`: 20 + 1, // and the commit
	}
	got := map[string]float64{}
	deadline := time.Now().Add(emitTimeout)
	for {
		fams := scrape(t, "master", master)
		for k := range want {
			got[k] = sum(fams, k)
		}
		if fmt.Sprint(got) == fmt.Sprint(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	require.Equal(t, want, got)
}

// sum adds the values of the series of a metric{label="value",...} key that carry those labels.
func sum(fams map[string]*dto.MetricFamily, key string) float64 {
	name, rest, _ := strings.Cut(key, "{")
	var match [][2]string
	for _, kv := range strings.Split(strings.TrimSuffix(rest, "}"), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			match = append(match, [2]string{k, strings.Trim(v, `"`)})
		}
	}
	total := 0.0
	for _, m := range fams[name].GetMetric() {
		if hasLabels(m, match) {
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return total
}

func hasLabels(m *dto.Metric, match [][2]string) bool {
	for _, kv := range match {
		found := false
		for _, lp := range m.GetLabel() {
			found = found || (lp.GetName() == kv[0] && lp.GetValue() == kv[1])
		}
		if !found {
			return false
		}
	}
	return true
}

func distinctMetrics(sels []selector) int {
	m := map[string]bool{}
	for _, s := range sels {
		m[s.metric] = true
	}
	return len(m)
}

// startServers starts the cluster with metrics on for both brokers; the name server's are on by
// default. It returns the /metrics addresses.
func startServers(t *testing.T) (*cluster.Cluster, map[string]string) {
	t.Helper()
	masterPort, slavePort := freePort(t), freePort(t)
	c := cluster.Start(t, cluster.Options{BrokerProps: map[string]string{
		"metricsExporterType": "PROM", "metricsPromExporterPort": strconv.Itoa(masterPort),
		"brokerRole": "SYNC_MASTER", "transactionCheckInterval": "1000", "transactionTimeOut": "1000",
	}})
	c.AddSlave("broker-a", 1, map[string]string{
		"metricsExporterType": "PROM", "metricsPromExporterPort": strconv.Itoa(slavePort)})
	require.NotEmpty(t, c.Namesrv.MetricsAddr, "the name server serves /metrics by default")
	return c, map[string]string{
		"namesrv": c.Namesrv.MetricsAddr,
		"master":  net.JoinHostPort("127.0.0.1", strconv.Itoa(masterPort)),
		"slave":   net.JoinHostPort("127.0.0.1", strconv.Itoa(slavePort)),
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	p, err := cluster.FreePort()
	require.NoError(t, err)
	return p
}

// traffic: a topic and a group created by admin requests, 20 messages sent, a push consumer that
// gives up at once on the 5 tagged "fail" (they go to %DLQ%), and two transactions, one committed
// and one rolled back. The producers and the consumer stay up until the test ends, so that their
// connections are counted.
func traffic(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	const topic, group = "MonitoringTopic", "MonitoringGroup"
	createTopic(t, c, topic)
	createGroup(t, c, group)
	p := startProducer(t, c)
	for i := range 20 {
		m := primitive.NewMessage(topic, []byte("monitoring "+strconv.Itoa(i)))
		if i%4 == 0 {
			m.WithTag("fail")
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		res, err := p.SendSync(ctx, m)
		cancel()
		require.NoError(t, err)
		require.Equal(t, primitive.SendOK, res.Status)
	}
	startConsumer(t, c, topic, group)
	transactions(t, c, topic)
}

func createTopic(t *testing.T, c *cluster.Cluster, topic string) {
	t.Helper()
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{c.NamesrvAddr()})))
	require.NoError(t, err)
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	require.NoError(t, adm.CreateTopic(ctx, admin.WithTopicCreate(topic),
		admin.WithBrokerAddrCreate(c.Broker("broker-a").Addr), admin.WithReadQueueNums(4), admin.WithWriteQueueNums(4)))
	require.Eventually(t, func() bool {
		route, _, err := cluster.RouteInfo(context.Background(), c.NamesrvAddr(), topic)
		return err == nil && route != nil && route.MasterAddr("broker-a") != ""
	}, callTimeout, 100*time.Millisecond, "route of %s", topic)
}

// createGroup sends UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) with no retries allowed.
func createGroup(t *testing.T, c *cluster.Cluster, group string) {
	t.Helper()
	body := fmt.Sprintf(`{"groupName":%q,"consumeEnable":true,"consumeBroadcastEnable":true,`+
		`"retryQueueNums":1,"retryMaxTimes":0,"brokerId":0,"whichBrokerWhenConsumeSlowly":1}`, group)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	resp, err := cluster.Invoke(ctx, c.Broker("broker-a").Addr, 200, nil, []byte(body))
	require.NoError(t, err)
	require.Equal(t, 0, resp.Code, resp.String())
}

func startProducer(t *testing.T, c *cluster.Cluster) rocketmq.Producer {
	t.Helper()
	p, err := rocketmq.NewProducer(producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName("MonitoringProducer"), producer.WithInstanceName("monitoring-producer"),
		producer.WithRetry(2), producer.WithSendMsgTimeout(callTimeout))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })
	return p
}

// startConsumer consumes topic as group, asking for the messages tagged "fail" to be retried
// with no retries left, which sends them to the group's dead-letter topic.
func startConsumer(t *testing.T, c *cluster.Cluster, topic, group string) {
	t.Helper()
	pc, err := rocketmq.NewPushConsumer(consumer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		consumer.WithGroupName(group), consumer.WithInstance("monitoring-consumer"),
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset), consumer.WithMaxReconsumeTimes(0))
	require.NoError(t, err)
	require.NoError(t, pc.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "*"},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			for _, m := range msgs {
				if m.GetTags() == "fail" {
					return consumer.ConsumeRetryLater, nil
				}
			}
			return consumer.ConsumeSuccess, nil
		}))
	require.NoError(t, pc.Start())
	t.Cleanup(func() { _ = pc.Shutdown() })
}

// decide commits the messages with body "commit" and rolls back the others.
type decide struct{}

func (decide) ExecuteLocalTransaction(m *primitive.Message) primitive.LocalTransactionState {
	if string(m.Body) == "commit" {
		return primitive.CommitMessageState
	}
	return primitive.RollbackMessageState
}

func (decide) CheckLocalTransaction(*primitive.MessageExt) primitive.LocalTransactionState {
	return primitive.RollbackMessageState
}

func transactions(t *testing.T, c *cluster.Cluster, topic string) {
	t.Helper()
	p, err := rocketmq.NewTransactionProducer(decide{}, producer.WithNameServer(primitive.NamesrvAddr{c.NamesrvAddr()}),
		producer.WithGroupName("MonitoringTxProducer"), producer.WithInstanceName("monitoring-tx"),
		producer.WithRetry(2), producer.WithSendMsgTimeout(callTimeout))
	require.NoError(t, err)
	require.NoError(t, p.Start())
	t.Cleanup(func() { _ = p.Shutdown() })
	for _, body := range []string{"commit", "rollback"} {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		_, err := p.SendMessageInTransaction(ctx, primitive.NewMessage(topic, []byte(body)))
		cancel()
		require.NoError(t, err)
	}
}

// family is what a scrape says of one metric: its type and the label names of its series.
type family struct {
	typ    dto.MetricType
	labels map[string]bool
}

// scrapeAll scrapes every endpoint and merges the families by name.
func scrapeAll(t *testing.T, endpoints map[string]string) map[string]family {
	t.Helper()
	out := map[string]family{}
	for name, addr := range endpoints {
		for fname, mf := range scrape(t, name, addr) {
			f, ok := out[fname]
			if !ok {
				f = family{typ: mf.GetType(), labels: map[string]bool{}}
				out[fname] = f
			}
			for _, m := range mf.GetMetric() {
				for _, lp := range m.GetLabel() {
					f.labels[lp.GetName()] = true
				}
			}
		}
	}
	return out
}

func scrape(t *testing.T, name, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err, "scrape %s", name)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "scrape %s", name)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	require.NoError(t, err, "scrape %s", name)
	return fams
}

// missingSelectors lists the selectors whose metric no server emits, or whose matchers name a
// label no series of the metric has.
func missingSelectors(want []selector, families map[string]family) []string {
	seen := map[string]bool{}
	for _, s := range want {
		if prometheusSeries[s.metric] {
			continue
		}
		f, ok := lookup(families, s.metric)
		problem := ""
		switch {
		case !ok:
			problem = "no such metric"
		default:
			for _, l := range s.labels {
				if !f.labels[l] && !prometheusLabels[l] {
					problem += " no label " + l
				}
			}
		}
		if problem != "" {
			seen[s.String()+": "+strings.TrimSpace(problem)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lookup finds a metric by its exposed name: a family, or a histogram's _bucket, _sum or _count.
func lookup(families map[string]family, name string) (family, bool) {
	if f, ok := families[name]; ok {
		return f, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if f, found := families[base]; ok && found && f.typ == dto.MetricType_HISTOGRAM {
			if suffix == "_bucket" {
				f.labels = withLabel(f.labels, "le")
			}
			return f, true
		}
	}
	return family{}, false
}

func withLabel(ls map[string]bool, l string) map[string]bool {
	out := map[string]bool{l: true}
	for k := range ls {
		out[k] = true
	}
	return out
}
