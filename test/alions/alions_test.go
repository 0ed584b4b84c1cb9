// Package alions drives the broker with the Node client ali-ons (make test-alions): it needs node
// and npm, so it is not part of make test.
package alions

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/test/e2e/cluster"
)

// TestAliOnsProduceConsume sends and consumes through ali-ons, whose quirks differ from the Go
// client's: numbers and booleans in extFields, SEND_MESSAGE_V2, JSON-only decoding, no UNIQ_KEY.
func TestAliOnsProduceConsume(t *testing.T) {
	if os.Getenv("ALIONS") == "" {
		t.Skip("set ALIONS=1 (make test-alions) to run the ali-ons client test; it needs node and npm")
	}
	if _, err := os.Stat("node_modules/ali-ons"); err != nil {
		out, err := exec.Command("npm", "install", "--no-audit", "--no-fund").CombinedOutput()
		require.NoError(t, err, "npm install: %s", out)
	}
	c := cluster.Start(t, cluster.Options{})
	const topic = "AliOnsTopic"
	// ali-ons does not fall back to TBW102 for unknown topics (Aliyun topics are created first).
	createTopic(t, c, topic)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "produce_consume.js")
	cmd.Env = append(os.Environ(), "NAMESRV_ADDR="+c.NamesrvAddr(), "TOPIC="+topic, "COUNT=20")
	out, err := cmd.CombinedOutput()
	t.Logf("ali-ons output:\n%s", out)
	require.NoError(t, err)
	require.Contains(t, string(out), "received 20 of 20")
}

// createTopic creates topic on every broker with the Go client's admin API and waits until the
// nameserver routes it.
func createTopic(t *testing.T, c *cluster.Cluster, topic string) {
	t.Helper()
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{c.NamesrvAddr()})))
	require.NoError(t, err)
	defer adm.Close()
	for _, b := range c.Brokers {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := adm.CreateTopic(ctx, admin.WithTopicCreate(topic), admin.WithBrokerAddrCreate(b.Addr),
			admin.WithReadQueueNums(4), admin.WithWriteQueueNums(4))
		cancel()
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool {
		mqs, err := adm.FetchPublishMessageQueues(context.Background(), topic)
		return err == nil && len(mqs) > 0
	}, 30*time.Second, 100*time.Millisecond, "topic %s never routed", topic)
}
