package mqadmin

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"
	"github.com/stretchr/testify/require"

	"github.com/rocketgo/rocketgo/internal/admin"
	"github.com/rocketgo/rocketgo/internal/admin/admintest"
	"github.com/rocketgo/rocketgo/pkg/protocol/body"
)

// goPushConsumer starts rocketmq-client-go's push consumer of group on topic and waits until a
// broker lists it; it is shut down when the test ends.
func goPushConsumer(t *testing.T, cl *admintest.Cluster, group, topic string) {
	t.Helper()
	rlog.SetLogLevel("error")
	pc, err := rocketmq.NewPushConsumer(consumer.WithNameServer(primitive.NamesrvAddr{cl.NamesrvAddr}),
		consumer.WithGroupName(group), consumer.WithInstance(group+"-instance"))
	require.NoError(t, err)
	require.NoError(t, pc.Subscribe(topic, consumer.MessageSelector{Type: consumer.TAG, Expression: "TagA || TagB"},
		func(context.Context, ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			return consumer.ConsumeSuccess, nil
		}))
	require.NoError(t, pc.Start())
	t.Cleanup(func() { _ = pc.Shutdown() })
	require.Eventually(t, func() bool {
		_, _, err := runAdmin(t, "consumerConnection", "-g", group, "-n", cl.NamesrvAddr)
		return err == nil
	}, admintest.WaitFor, 50*time.Millisecond, "the consumer did not come online")
	// rocketmq-client-go encodes its running info while its first rebalance may still be writing
	// the process-queue table (a data race in the client, reported by -race when an admin call
	// asks at that moment); the rebalance runs right after Start and is done well within this.
	time.Sleep(2 * time.Second)
}

var statusRow = regexp.MustCompile(`^1\s+(\S+@StatusGroup-instance)\s+(V\S+)\s+(\d+/\S+)$`)

// TestConsumerStatus: against rocketmq-client-go's push consumer, each member's running info is
// saved to <now>/<clientId> in Java's format and listed, then the subscription analysis; -i prints
// one member's running info.
func TestConsumerStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a rocketmq-client-go consumer")
	}
	cl := admintest.Start(t)
	cl.CreateTopic(t, "Status", 2)
	goPushConsumer(t, cl, "StatusGroup", "Status")

	env := testEnv(t)
	out, errOut, err := runAdminEnv(t, env, "consumerStatus", "-g", "StatusGroup", "-n", cl.NamesrvAddr)
	require.NoError(t, err, errOut)
	ls := lines(out)
	require.Regexp(t, `^#Index\s+#ClientId\s+#Version\s+#ConsumerRunningInfoFile$`, ls[0])
	m := statusRow.FindStringSubmatch(ls[1])
	require.NotNil(t, m, out)
	require.Equal(t, []string{"", "", "Same subscription in the same group of consumer", "", "Rebalance OK"}, ls[2:])
	saved, err := os.ReadFile(filepath.Join(env.workDir, m[3]))
	require.NoError(t, err)
	text := string(saved)
	require.Regexp(t, `(?m)^#Consumer Properties#$`, text)
	require.Regexp(t, `(?m)^PROP_CONSUME_TYPE\s+: CONSUME_PASSIVELY$`, text)
	require.Regexp(t, `(?m)^001 Topic: %RETRY%StatusGroup\s+ClassFilter: false\s+SubExpression: \*$`, text)
	require.Regexp(t, `(?m)^002 Topic: Status\s+ClassFilter: false\s+SubExpression: TagA \|\| TagB$`, text)
	require.Regexp(t, `(?m)^Status\s+broker-a\s+1\s+ProcessQueueInfo \[commitOffset=\d+, cachedMsgMinOffset=`, text)
	require.Regexp(t, `(?m)^#Topic\s+#Pull RT\s+#Pull TPS\s+#Consume RT\s+#ConsumeOK TPS\s+#ConsumeFailed TPS\s+#ConsumeFailedMsgsInHour$`, text)

	out = mustRunAdmin(t, "consumerStatus", "-g", "StatusGroup", "-i", m[1], "-n", cl.NamesrvAddr)
	require.Contains(t, out, "#Consumer Subscription#\n001 Topic: %RETRY%StatusGroup")
	require.Contains(t, out, "\n\n#Consumer MQ Detail#\n")

	_, errOut, err = runAdmin(t, "consumerStatus", "-g", "Nobody", "-n", cl.NamesrvAddr)
	require.Error(t, err)
	require.Contains(t, errOut, "CONSUMER_NOT_ONLINE")
}

// TestConsumerAnalysis: Java's checks of running infos — subscriptions compared once push
// consumers ran two minutes, queues reported as blocked or not locked — and file names made safe.
func TestConsumerAnalysis(t *testing.T) {
	now := time.UnixMilli(10_000_000)
	push := func(started int64, expr string) *admin.ConsumerRunningInfo {
		return &admin.ConsumerRunningInfo{Properties: map[string]string{"PROP_CONSUME_TYPE": "CONSUME_PASSIVELY",
			"PROP_CONSUMER_START_TIMESTAMP": strconv.FormatInt(started, 10)},
			SubscriptionSet: []body.SubscriptionData{{Topic: "T", SubString: expr}}}
	}
	old := now.UnixMilli() - 3*60*1000
	require.True(t, sameSubscription(map[string]*admin.ConsumerRunningInfo{"a": push(old, "*"), "b": push(old, "*")}, now))
	require.False(t, sameSubscription(map[string]*admin.ConsumerRunningInfo{"a": push(old, "*"), "b": push(old, "TagA")}, now))
	recent := now.UnixMilli() - 1000
	require.True(t, sameSubscription(map[string]*admin.ConsumerRunningInfo{"a": push(recent, "*"), "b": push(recent, "TagA")}, now))

	mq := body.MessageQueue{Topic: "T", BrokerName: "b", QueueID: 3}
	info := push(old, "*")
	info.MQTable = map[body.MessageQueue]admin.ProcessQueueInfo{mq: {CachedMsgCount: 5, LastConsumeTimestamp: now.UnixMilli() - 61_000}}
	require.Equal(t, "c1 MessageQueue [topic=T, brokerName=b, queueId=3] can't consume for a while, maybe blocked, 61000ms\n",
		blockedQueues("c1", info, now))
	info.Properties["PROP_CONSUMEORDERLY"] = "true"
	info.MQTable[mq] = admin.ProcessQueueInfo{LastLockTimestamp: now.UnixMilli() - 5}
	require.Equal(t, "c1 MessageQueue [topic=T, brokerName=b, queueId=3] can't lock for a while, 5ms\n", blockedQueues("c1", info, now))
	info.Properties["PROP_CONSUME_TYPE"] = "CONSUME_ACTIVELY"
	require.Empty(t, blockedQueues("c1", info, now))

	require.Equal(t, "10.0.0.1@1234", fileSafe("10.0.0.1@1234"))
	require.Equal(t, "_.._etc_passwd", fileSafe("/../etc/passwd"))
	require.Equal(t, "_", fileSafe(".."))
	require.Equal(t, "_", fileSafe(""))
}
