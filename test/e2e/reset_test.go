package e2e

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestResetOffsetByTimeReplaysToRunningConsumer: a Go push consumer has consumed every message of
// a topic and committed its offsets; `bin/mqadmin resetOffsetByTime` to a time before the first
// message (INVOKE_BROKER_TO_RESET_OFFSET at the broker, which commits the new offsets and sends
// RESET_CONSUMER_CLIENT_OFFSET to the consumer) makes the still-running consumer receive every
// message again, without a restart, and the broker's committed offsets end at the queue ends
// again once it has.
func TestResetOffsetByTimeReplaysToRunningConsumer(t *testing.T) {
	t.Parallel()
	c := cluster.Start(t, cluster.Options{})
	b := c.Brokers[0]
	topic, group := uniq(t, "T"), uniq(t, "CG")
	const queues = 2
	createTopic(t, c, topic, queues)

	before := time.Now().Add(-time.Minute).UnixMilli()
	p := newProducer(t, c)
	ids, results := sendN(t, p, topic, "replay", 12)
	waitDispatched(t, b, topic, results)
	for q, n := range expectedCounts(b, results) {
		require.Positive(t, n, "queue %d got no message; the reset would not be visible there", q)
	}

	col := newCollector()
	pc := newPushConsumer(t, c, group, topic, selectAll, col)
	col.waitFor(t, ids, consumeTimeout)
	waitDrained(t, pc, topic)
	waitCommitted(t, b, group, topic, queues)
	for id, n := range col.ids() {
		require.Equal(t, 1, n, "%s delivered more than once before the reset", id)
	}

	out := runMQAdmin(t, c, "resetOffsetByTime", "-g", group, "-t", topic, "-s", strconv.FormatInt(before, 10))
	t.Logf("mqadmin resetOffsetByTime:\n%s", out)
	rows := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, rows, 2+queues, "a header, a title and one row per queue")
	require.Contains(t, rows[0], "rollback consumer offset by specified group["+group+"], topic["+topic+"], force[true]")
	for _, row := range rows[2:] {
		f := strings.Fields(row)
		require.Len(t, f, 3, "row %q", row)
		require.Equal(t, []string{b.Name, "0"}, []string{f[0], f[2]}, "every queue goes back to offset 0: %q", row)
	}

	// Every message comes again to the consumer that is still running.
	ok := eventually(consumeTimeout, 100*time.Millisecond, func() bool {
		for _, id := range ids {
			if col.ids()[id] < 2 {
				return false
			}
		}
		return true
	})
	if !ok {
		var missing []string
		for _, id := range ids {
			if col.ids()[id] < 2 {
				missing = append(missing, id)
			}
		}
		t.Fatalf("after the reset %d of %d messages were not delivered again within %v, e.g. %v",
			len(missing), len(ids), consumeTimeout, sample(missing, 5))
	}
	for _, id := range ids {
		require.Equal(t, "body of "+id, string(col.first(id).Body))
	}
	waitDrained(t, pc, topic)
	waitCommitted(t, b, group, topic, queues)
}

// runMQAdmin runs bin/mqadmin against the cluster's nameserver and returns its standard output,
// failing the test (with stderr) when it exits non-zero.
func runMQAdmin(t *testing.T, c *cluster.Cluster, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cluster.Binary(t, "mqadmin"), append(args, "-n", c.NamesrvAddr())...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "mqadmin %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out, stderr.String())
	return string(out)
}
